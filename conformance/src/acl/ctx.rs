//! `Ctx`: what an ACL check gets. The table, the rule being checked, setup
//! helpers whose failures read "setup: <call> returned <code>", peers, and
//! the judging helpers that compare a code with the catalog's.
#![forbid(unsafe_code)]

use std::ffi::c_void;
use std::fmt;
use std::ptr;

use vmmkit_sys::acl::*;

use super::table::Acl;
use crate::outcome::Failure;
use crate::pattern;
use crate::peer::{Launcher, Peer};
use crate::rule::{Code, Expect, Need, Rule};

/// 1 MiB.
pub const MIB: usize = 1 << 20;
/// The granularity of every non-1G attribute (acl.md §2.6).
pub const TWO_MIB: usize = 2 * MIB;
/// The granularity of the 1G attributes.
pub const GIB: usize = 1 << 30;

/// A device address as the checks handle it.
pub type Va = *mut c_void;
/// A process-local physical-memory handle.
pub type Handle = aclrtDrvMemHandle;

/// A mapped allocation made by [`Ctx::alloc_mapped`].
#[derive(Debug, Clone, Copy)]
pub struct Mapped {
    /// Start of the reservation, where the handle is mapped.
    pub va: Va,
    /// The physical handle.
    pub handle: Handle,
    /// Bytes, reservation and allocation alike.
    pub size: usize,
}

/// The property record of the samples: NONE, PINNED, `ACL_HBM_MEM_HUGE`,
/// DEVICE `device`, reserve 0.
pub fn prop(device: u32) -> aclrtPhysicalMemProp {
    prop_with(ACL_HBM_MEM_HUGE, ACL_MEM_LOCATION_TYPE_DEVICE, device)
}

/// A property record with `attr` at location (`kind`, `id`).
pub fn prop_with(attr: aclrtMemAttr, kind: aclrtMemLocationType, id: u32) -> aclrtPhysicalMemProp {
    aclrtPhysicalMemProp {
        handleType: ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: attr,
        location: aclrtMemLocation { id, type_: kind },
        reserve: 0,
    }
}

/// An access descriptor granting READWRITE to device `device`.
pub fn rw_desc(device: u32) -> aclrtMemAccessDesc {
    aclrtMemAccessDesc {
        flags: ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
        location: aclrtMemLocation { id: device, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        rsv: [0; 12],
    }
}

/// The context of one ACL check.
#[derive(Debug)]
pub struct Ctx {
    acl: Acl,
    rule: &'static Rule,
    launcher: Launcher,
    notes: Vec<String>,
}

impl Ctx {
    /// A context for `rule` over `acl`; peers are started with `launcher`.
    pub fn new(acl: Acl, rule: &'static Rule, launcher: Launcher) -> Self {
        Self { acl, rule, launcher, notes: Vec::new() }
    }

    /// The table.
    pub fn acl(&self) -> Acl {
        self.acl
    }

    /// The rule being checked.
    pub fn rule(&self) -> &'static Rule {
        self.rule
    }

    /// How peers are started.
    pub fn launcher(&self) -> &Launcher {
        &self.launcher
    }

    /// Records an observation for the report (observed rules, partial checks).
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
                    if self.acl.missing_optional().contains(&sym) {
                        return Err(Failure::NotSupported(format!("the backend lacks the optional symbol {sym}")));
                    }
                }
                Need::Devices(n) => {
                    let count = self.device_count()?;
                    if count < n {
                        return Err(Failure::NotSupported(format!("needs {n} devices, the backend has {count}")));
                    }
                }
                Need::PidSteering => crate::peer::steer::available().map_err(Failure::NotSupported)?,
                Need::Peers | Need::DeviceMemory(_) => {}
            }
        }
        Ok(())
    }

    /// Whether a real library can run anything here: not the CANN stub
    /// (every call 100039), and some device. Asked without `aclInit`, so
    /// rules about initialisation still see a fresh process.
    ///
    /// # Errors
    /// [`Failure::NotSupported`] saying which.
    pub fn probe_real_device(&self) -> Result<(), Failure> {
        let mut n = 0u32;
        let r = self.acl.get_device_count(&mut n);
        if r == AclError::COMPILING_STUB_MODE {
            return Err(Failure::NotSupported(format!("the library is the CANN stub: aclrtGetDeviceCount gave {r}")));
        }
        if r == AclError::RT_NO_DEVICE || (r.is_success() && n == 0) {
            return Err(Failure::NotSupported(format!("no device: aclrtGetDeviceCount gave {r}, {n} devices")));
        }
        Ok(())
    }

    // ---- setup ----------------------------------------------------------

    /// `aclInit(NULL)`; 100002 (already initialised) is fine.
    pub fn init(&self) -> Result<(), Failure> {
        let r = self.acl.init(ptr::null());
        if r.is_success() || r == AclError::REPEAT_INITIALIZE {
            Ok(())
        } else {
            Err(Failure::setup("aclInit(NULL)", r))
        }
    }

    /// `aclInit` then `aclrtSetDevice(device)`.
    pub fn device(&self, device: i32) -> Result<(), Failure> {
        self.init()?;
        setup(&format!("aclrtSetDevice({device})"), self.acl.set_device(device))
    }

    /// `aclrtGetDeviceCount`, after `aclInit`.
    pub fn device_count(&self) -> Result<u32, Failure> {
        self.init()?;
        let mut n = 0u32;
        setup("aclrtGetDeviceCount", self.acl.get_device_count(&mut n))?;
        Ok(n)
    }

    /// Free and total bytes of the current device (`aclrtGetMemInfo(ACL_HBM_MEM)`).
    pub fn mem_info(&self) -> Result<(usize, usize), Failure> {
        let (mut free, mut total) = (0usize, 0usize);
        setup("aclrtGetMemInfo(ACL_HBM_MEM)", self.acl.get_mem_info(ACL_HBM_MEM, &mut free, &mut total))?;
        Ok((free, total))
    }

    /// Device 0 made current, and the MINIMUM granularity of [`prop`]`(0)`.
    pub fn granule(&self) -> Result<usize, Failure> {
        self.device(0)?;
        let mut p = prop(0);
        let mut g = 0usize;
        setup(
            "aclrtMemGetAllocationGranularity",
            self.acl.mem_get_allocation_granularity(&mut p, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &mut g),
        )?;
        if g == 0 {
            return Err(Failure::Setup("setup: aclrtMemGetAllocationGranularity gave 0".into()));
        }
        Ok(g)
    }

    /// `aclrtMallocPhysical(size)` with [`prop`]`(0)`.
    pub fn malloc(&self, size: usize) -> Result<Handle, Failure> {
        self.malloc_with(&prop(0), size)
    }

    /// `aclrtMallocPhysical(size)` with `p`.
    pub fn malloc_with(&self, p: &aclrtPhysicalMemProp, size: usize) -> Result<Handle, Failure> {
        let mut h: Handle = ptr::null_mut();
        let step = format!("aclrtMallocPhysical({} MiB, attr {}, location {:?})", size >> 20, p.memAttr, p.location);
        setup(&step, self.acl.malloc_physical(&mut h, size, p, 0))?;
        Ok(h)
    }

    /// `aclrtReserveMemAddress(size)`, flags 0, anywhere.
    pub fn reserve(&self, size: usize) -> Result<Va, Failure> {
        let mut va: Va = ptr::null_mut();
        setup(
            &format!("aclrtReserveMemAddress({} MiB)", size >> 20),
            self.acl.reserve_mem_address(&mut va, size, 0, ptr::null_mut(), 0),
        )?;
        Ok(va)
    }

    /// `aclrtMapMem(va, size, 0, h, 0)`.
    pub fn map(&self, va: Va, size: usize, h: Handle) -> Result<(), Failure> {
        setup(&format!("aclrtMapMem({} MiB)", size >> 20), self.acl.map_mem(va, size, 0, h, 0))
    }

    /// Device 0, then reserve, allocate and map `size` bytes.
    pub fn alloc_mapped(&self, size: usize) -> Result<Mapped, Failure> {
        self.device(0)?;
        let va = self.reserve(size)?;
        let handle = self.malloc(size)?;
        self.map(va, size, handle)?;
        Ok(Mapped { va, handle, size })
    }

    /// Writes `len` bytes of the pattern `seed` at `va` (`aclrtMemcpy` host to device).
    pub fn write(&self, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let data = pattern::fill(seed, len);
        let r = self.acl.memcpy(va, len, data.as_ptr().cast(), len, ACL_MEMCPY_HOST_TO_DEVICE);
        setup("aclrtMemcpy(host to device)", r)
    }

    /// Reads `len` bytes at `va` (`aclrtMemcpy` device to host).
    pub fn read(&self, va: Va, len: usize) -> Result<Vec<u8>, Failure> {
        let mut data = vec![0u8; len];
        let r = self.acl.memcpy(data.as_mut_ptr().cast(), len, va.cast_const(), len, ACL_MEMCPY_DEVICE_TO_HOST);
        setup("aclrtMemcpy(device to host)", r)?;
        Ok(data)
    }

    /// Reads `len` bytes at `va` and checks they are the pattern `seed`.
    ///
    /// # Errors
    /// A mismatch names the first differing byte.
    pub fn verify(&self, step: &str, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let data = self.read(va, len)?;
        match pattern::first_mismatch(seed, &data) {
            None => Ok(()),
            Some((at, want, got)) => Err(Failure::Mismatch {
                step: step.into(),
                expected: format!("pattern {seed} ({len} bytes)"),
                got: format!("byte {at} is {got:#04x}, not {want:#04x}"),
            }),
        }
    }

    /// `aclrtMemExportToShareableHandle(h, NONE, flags)`.
    pub fn export(&self, h: Handle, flags: u64) -> Result<u64, Failure> {
        let mut sh = 0u64;
        setup(
            &format!("aclrtMemExportToShareableHandle(flags {flags})"),
            self.acl.mem_export_to_shareable_handle(h, ACL_MEM_HANDLE_TYPE_NONE, flags, &mut sh),
        )?;
        Ok(sh)
    }

    /// `aclrtMemSetPidToShareableHandle(sh, pids)`.
    pub fn set_pids(&self, sh: u64, pids: &[i32]) -> Result<(), Failure> {
        let mut p = pids.to_vec();
        setup(
            &format!("aclrtMemSetPidToShareableHandle({pids:?})"),
            self.acl.mem_set_pid_to_shareable_handle(sh, p.as_mut_ptr(), p.len()),
        )
    }

    /// `aclrtUnmapMem`, `aclrtReleaseMemAddress` and `aclrtFreePhysical` of `m`.
    pub fn teardown(&self, m: Mapped) -> Result<(), Failure> {
        setup("aclrtUnmapMem", self.acl.unmap_mem(m.va))?;
        setup("aclrtReleaseMemAddress", self.acl.release_mem_address(m.va))?;
        setup("aclrtFreePhysical", self.acl.free_physical(m.handle))
    }

    /// A peer process, started on device 0 (`aclInit`, `aclrtSetDevice(0)`).
    pub fn peer(&self, name: &str) -> Result<Peer, Failure> {
        let mut p = Peer::spawn(&self.launcher, name)?;
        p.start(Some(0))?;
        Ok(p)
    }

    // ---- judging --------------------------------------------------------

    /// `got` must be the rule's main code.
    pub fn expect_code(&self, step: &str, got: AclError) -> Result<(), Failure> {
        match self.rule.expect {
            Expect::Codes([Code::Acl(want), ..]) => self.expect(step, *want, got),
            _ => Err(check_error(self.rule, "expect_code on a rule without an ACL code")),
        }
    }

    /// `got` must be `want`, which must be one of the rule's codes (or
    /// success). A check that expects a code its catalog entry does not list
    /// is a defect of the suite, reported as such.
    pub fn expect(&self, step: &str, want: AclError, got: AclError) -> Result<(), Failure> {
        let listed = match self.rule.expect {
            Expect::Codes(codes) => codes.contains(&Code::Acl(want)),
            Expect::Behaviour | Expect::Observed => false,
        };
        if !want.is_success() && !listed {
            return Err(check_error(self.rule, &format!("{step} expects {want}, which the catalog does not list")));
        }
        if got == want {
            Ok(())
        } else {
            Err(Failure::Mismatch { step: step.into(), expected: want.to_string(), got: got.to_string() })
        }
    }

    /// `got` must be success: the state after a rejected call is unchanged,
    /// or the behaviour the rule states works.
    pub fn expect_ok(&self, step: &str, got: AclError) -> Result<(), Failure> {
        self.expect(step, AclError::SUCCESS, got)
    }

    /// `got` must be `want`, for a rule without codes of its own (the
    /// reference's "–"), where a code is evidence of the behaviour.
    pub fn ensure_code(&self, step: &str, want: AclError, got: AclError) -> Result<(), Failure> {
        self.ensure(step, got == want, want, got)
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

/// `Ok` for success, else a setup failure for `call`.
pub fn setup(call: &str, r: AclError) -> Result<(), Failure> {
    if r.is_success() { Ok(()) } else { Err(Failure::setup(call, r)) }
}

fn check_error(rule: &Rule, what: &str) -> Failure {
    Failure::Mismatch {
        step: format!("check of {}", rule.id),
        expected: "a check consistent with its catalog entry".into(),
        got: format!("suite defect: {what}"),
    }
}
