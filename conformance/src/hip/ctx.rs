//! `Ctx`: what a HIP check gets. The table, the rule being checked, setup
//! helpers whose failures read "setup: <call> returned <code>", and the
//! judging helpers that compare a code with the catalog's.
#![forbid(unsafe_code)]

use std::ffi::c_void;
use std::fmt;
use std::ptr;

use vmmkit_sys::hip::*;

use super::table::Hip;
use crate::outcome::Failure;
use crate::pattern;
use crate::rule::{Code, Expect, Need, Rule};

/// A device address as the checks handle it.
pub type Va = *mut c_void;

/// A Pinned allocation on device `device` with `handle_type`.
pub fn prop(device: i32, handle_type: hipMemAllocationHandleType) -> hipMemAllocationProp {
    hipMemAllocationProp {
        type_: hipMemAllocationTypePinned,
        requestedHandleType: handle_type,
        location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
        ..Default::default()
    }
}

/// [`prop`] for a POSIX-fd shareable allocation on device 0.
pub fn posix_prop() -> hipMemAllocationProp {
    prop(0, hipMemHandleTypePosixFileDescriptor)
}

/// An access descriptor granting ReadWrite to device `device`.
pub fn rw_desc(device: i32) -> hipMemAccessDesc {
    hipMemAccessDesc {
        location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
        flags: hipMemAccessFlagsProtReadWrite,
    }
}

/// `Ok` for success, else a setup failure for `call`.
pub fn setup(call: &str, r: hipError_t) -> Result<(), Failure> {
    let r = HipError(r);
    if r.is_success() { Ok(()) } else { Err(Failure::setup(call, r)) }
}

/// The context of one HIP check.
#[derive(Debug)]
pub struct Ctx {
    hip: Hip,
    rule: &'static Rule,
    notes: Vec<String>,
}

impl Ctx {
    /// A context for `rule` over `hip`.
    pub fn new(hip: Hip, rule: &'static Rule) -> Self {
        Self { hip, rule, notes: Vec::new() }
    }

    /// The table.
    pub fn hip(&self) -> Hip {
        self.hip
    }

    /// The rule being checked.
    pub fn rule(&self) -> &'static Rule {
        self.rule
    }

    /// Records an observation for the report.
    pub fn note(&mut self, text: impl Into<String>) {
        self.notes.push(text.into());
    }

    /// The observations recorded so far, joined.
    pub fn notes(&self) -> Option<String> {
        (!self.notes.is_empty()).then(|| self.notes.join("; "))
    }

    /// Decides the rule's `requires` against this backend.
    ///
    /// # Errors
    /// [`Failure::NotSupported`] naming what is missing.
    pub fn check_needs(&self) -> Result<(), Failure> {
        for need in self.rule.requires {
            match *need {
                Need::Symbol(sym) => {
                    if self.hip.missing_optional().contains(&sym) {
                        return Err(Failure::NotSupported(format!("the backend lacks the optional symbol {sym}")));
                    }
                }
                Need::Devices(n) => {
                    let count = self.device_count()?;
                    if count < n as i32 {
                        return Err(Failure::NotSupported(format!("needs {n} devices, the backend has {count}")));
                    }
                }
                Need::PidSteering => crate::peer::steer::available().map_err(Failure::NotSupported)?,
                Need::Peers | Need::DeviceMemory(_) => {}
            }
        }
        Ok(())
    }

    /// Whether a real library can run anything here (hip.md §1.4): a runtime
    /// that cannot start answers 101 or 100 to the first device query, and
    /// that is not-supported, never a failure.
    ///
    /// # Errors
    /// [`Failure::NotSupported`] with the code and count.
    pub fn probe_real_device(&self) -> Result<(), Failure> {
        probe(&self.hip).map_err(Failure::NotSupported)
    }

    // ---- setup ----------------------------------------------------------

    /// `hipGetDeviceCount`.
    pub fn device_count(&self) -> Result<i32, Failure> {
        let mut n = 0;
        setup("hipGetDeviceCount", self.hip.hipGetDeviceCount(&mut n))?;
        Ok(n)
    }

    /// `hipSetDevice(device)`.
    pub fn device(&self, device: i32) -> Result<(), Failure> {
        setup(&format!("hipSetDevice({device})"), self.hip.hipSetDevice(device))
    }

    /// Device 0, and the minimum granularity of [`posix_prop`].
    pub fn granule(&self) -> Result<usize, Failure> {
        self.device(0)?;
        let mut g = 0usize;
        setup(
            "hipMemGetAllocationGranularity",
            self.hip.hipMemGetAllocationGranularity(&mut g, &posix_prop(), hipMemAllocationGranularityMinimum),
        )?;
        if g == 0 {
            return Err(Failure::Setup("setup: hipMemGetAllocationGranularity gave 0".into()));
        }
        Ok(g)
    }

    /// `hipMalloc(size)`.
    pub fn malloc(&self, size: usize) -> Result<Va, Failure> {
        let mut p = ptr::null_mut();
        setup(&format!("hipMalloc({size})"), self.hip.hipMalloc(&mut p, size))?;
        Ok(p)
    }

    /// `hipFree(p)`.
    pub fn free(&self, p: Va) -> Result<(), Failure> {
        setup("hipFree", self.hip.hipFree(p))
    }

    /// `hipMemCreate(size)` with `p`.
    pub fn create(&self, size: usize, p: &hipMemAllocationProp) -> Result<hipMemGenericAllocationHandle_t, Failure> {
        let mut h = ptr::null_mut();
        setup(&format!("hipMemCreate({size})"), self.hip.hipMemCreate(&mut h, size, p, 0))?;
        Ok(h)
    }

    /// `hipMemRelease(h)`.
    pub fn release(&self, h: hipMemGenericAllocationHandle_t) -> Result<(), Failure> {
        setup("hipMemRelease", self.hip.hipMemRelease(h))
    }

    /// `hipMemAddressReserve(size)`, anywhere, alignment 0.
    pub fn reserve(&self, size: usize) -> Result<Va, Failure> {
        let mut va = ptr::null_mut();
        setup(
            &format!("hipMemAddressReserve({size})"),
            self.hip.hipMemAddressReserve(&mut va, size, 0, ptr::null_mut(), 0),
        )?;
        Ok(va)
    }

    /// `hipMemMap(va, size, 0, h, 0)`.
    pub fn map(&self, va: Va, size: usize, h: hipMemGenericAllocationHandle_t) -> Result<(), Failure> {
        setup(&format!("hipMemMap({size})"), self.hip.hipMemMap(va, size, 0, h, 0))
    }

    /// `hipMemSetAccess` ReadWrite for device 0 over `va..va+size`.
    pub fn access(&self, va: Va, size: usize) -> Result<(), Failure> {
        setup("hipMemSetAccess(ReadWrite)", self.hip.hipMemSetAccess(va, size, &rw_desc(0), 1))
    }

    /// Granule-sized POSIX-fd memory, reserved, mapped and readable: (va, handle, size).
    pub fn mapped(&self, granules: usize) -> Result<(Va, hipMemGenericAllocationHandle_t, usize), Failure> {
        let size = granules * self.granule()?;
        let h = self.create(size, &posix_prop())?;
        let va = self.reserve(size)?;
        self.map(va, size, h)?;
        self.access(va, size)?;
        Ok((va, h, size))
    }

    /// Unmaps, frees the reservation of and releases what [`Ctx::mapped`] made.
    pub fn unmapped(&self, va: Va, h: hipMemGenericAllocationHandle_t, size: usize) -> Result<(), Failure> {
        setup("hipMemUnmap", self.hip.hipMemUnmap(va, size))?;
        setup("hipMemAddressFree", self.hip.hipMemAddressFree(va, size))?;
        self.release(h)
    }

    /// Writes `len` bytes of the pattern `seed` at `va`.
    pub fn write(&self, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let data = pattern::fill(seed, len);
        setup("hipMemcpy(host to device)", self.hip.hipMemcpy(va, data.as_ptr().cast(), len, hipMemcpyHostToDevice))
    }

    /// Checks that `len` bytes at `va` are the pattern `seed`.
    pub fn verify(&self, step: &str, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let mut data = vec![0u8; len];
        setup(
            "hipMemcpy(device to host)",
            self.hip.hipMemcpy(data.as_mut_ptr().cast(), va, len, hipMemcpyDeviceToHost),
        )?;
        match pattern::first_mismatch(seed, &data) {
            None => Ok(()),
            Some((at, want, got)) => Err(Failure::Mismatch {
                step: step.into(),
                expected: format!("pattern {seed} ({len} bytes)"),
                got: format!("byte {at} is {got:#04x}, not {want:#04x}"),
            }),
        }
    }

    // ---- judging --------------------------------------------------------

    /// `got` must be the rule's main code.
    pub fn expect_code(&self, step: &str, got: hipError_t) -> Result<(), Failure> {
        match self.rule.expect {
            Expect::Codes([Code::Hip(want), ..]) => self.expect(step, *want, got),
            _ => Err(check_error(self.rule, "expect_code on a rule without a HIP code")),
        }
    }

    /// `got` must be `want`, which must be one of the rule's codes (or
    /// success); a check that expects a code its catalog entry does not
    /// list is a defect of the suite, reported as such.
    pub fn expect(&self, step: &str, want: HipError, got: hipError_t) -> Result<(), Failure> {
        let got = HipError(got);
        let listed = match self.rule.expect {
            Expect::Codes(codes) => codes.contains(&Code::Hip(want)),
            Expect::Behaviour | Expect::Observed => false,
        };
        if !want.is_success() && !listed {
            return Err(check_error(self.rule, &format!("{step} expects {want}, which the catalog does not list")));
        }
        self.ensure(step, got == want, want, got)
    }

    /// `got` must be success.
    pub fn expect_ok(&self, step: &str, got: hipError_t) -> Result<(), Failure> {
        self.expect(step, HipError::SUCCESS, got)
    }

    /// `cond` must hold; otherwise a mismatch with `expected` and `got`.
    pub fn ensure(
        &self,
        step: &str,
        cond: bool,
        expected: impl fmt::Display,
        got: impl fmt::Display,
    ) -> Result<(), Failure> {
        if cond {
            Ok(())
        } else {
            Err(Failure::Mismatch { step: step.into(), expected: expected.to_string(), got: got.to_string() })
        }
    }
}

/// `Ok` when `hip` reports a device; else why not (hip.md §1.4: 100 or 101
/// from the first device query, or a count of 0).
pub fn probe(hip: &Hip) -> Result<(), String> {
    let mut n = 0;
    let r = HipError(hip.hipGetDeviceCount(&mut n));
    if r == HipError::NO_DEVICE || r == HipError::INVALID_DEVICE || (r.is_success() && n == 0) {
        return Err(format!("no device: hipGetDeviceCount gave {r}, {n} devices"));
    }
    if !r.is_success() {
        return Err(format!("hipGetDeviceCount gave {r}"));
    }
    Ok(())
}

fn check_error(rule: &Rule, what: &str) -> Failure {
    Failure::Mismatch {
        step: format!("check of {}", rule.id),
        expected: "a check consistent with its catalog entry".into(),
        got: format!("suite defect: {what}"),
    }
}
