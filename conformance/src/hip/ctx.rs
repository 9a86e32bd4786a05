//! `Ctx`: what a HIP check gets. The table, the rule being checked, setup
//! helpers whose failures read "setup: `<call>` returned `<code>`", and the
//! judging helpers that compare a code with the catalog's.
#![forbid(unsafe_code)]

use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::hip::*;
use vmmkit_sys::vendor;

use super::table::Hip;
use crate::ctx::{Suite, nonzero};
use crate::outcome::Failure;
use crate::pattern;
use crate::vendors::BackendKind;

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
    crate::ctx::setup::<HipError>(call, r)
}

/// The context of one HIP check.
pub type Ctx = crate::ctx::Ctx<vendor::Hip>;

impl Suite for vendor::Hip {
    type Table = Hip;

    /// A runtime that cannot start answers 101 or 100 to the first device
    /// query (hip.md §1.4), as does one without a device; so does a count of 0.
    fn probe(hip: &Hip) -> Result<(), String> {
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

    fn devices(cx: &Ctx) -> Result<u32, Failure> {
        Ok(u32::try_from(cx.device_count()?).unwrap_or(0))
    }

    /// The profile of the major version hipRuntimeGetVersion reports: 7.x
    /// from 7 on, else 6.x (also when the query fails).
    fn profile(hip: &Hip) -> Option<&'static str> {
        let mut v = 0;
        let ok = HipError(hip.hipRuntimeGetVersion(&mut v)).is_success();
        Some(if ok && hip_version_parts(v).0 >= 7 { rules::PROFILE_7 } else { rules::PROFILE_6 })
    }
}

impl Ctx {
    /// The table.
    pub fn hip(&self) -> Hip {
        self.table()
    }

    /// A HIP peer named `name` with device `device` current.
    ///
    /// # Errors
    /// The peer's start failures.
    pub fn peer(&self, name: &str, device: i32) -> Result<super::peer::Peer, Failure> {
        super::peer::Peer::start(self.launcher(), name, device)
    }

    // ---- setup ----------------------------------------------------------

    /// `hipGetDeviceCount`.
    pub fn device_count(&self) -> Result<i32, Failure> {
        let mut n = 0;
        setup("hipGetDeviceCount", self.hip().hipGetDeviceCount(&mut n))?;
        Ok(n)
    }

    /// `hipSetDevice(device)`.
    pub fn device(&self, device: i32) -> Result<(), Failure> {
        setup(&format!("hipSetDevice({device})"), self.hip().hipSetDevice(device))
    }

    /// Device 0, and the minimum granularity of [`posix_prop`].
    pub fn granule(&self) -> Result<usize, Failure> {
        self.device(0)?;
        let mut g = 0usize;
        let r = self.hip().hipMemGetAllocationGranularity(&mut g, &posix_prop(), hipMemAllocationGranularityMinimum);
        nonzero::<HipError>("hipMemGetAllocationGranularity", r, g)
    }

    /// `hipMalloc(size)`.
    pub fn malloc(&self, size: usize) -> Result<Va, Failure> {
        let mut p = ptr::null_mut();
        setup(&format!("hipMalloc({size})"), self.hip().hipMalloc(&mut p, size))?;
        Ok(p)
    }

    /// `hipFree(p)`.
    pub fn free(&self, p: Va) -> Result<(), Failure> {
        setup("hipFree", self.hip().hipFree(p))
    }

    /// `hipMemCreate(size)` with `p`.
    pub fn create(&self, size: usize, p: &hipMemAllocationProp) -> Result<hipMemGenericAllocationHandle_t, Failure> {
        let mut h = ptr::null_mut();
        setup(&format!("hipMemCreate({size})"), self.hip().hipMemCreate(&mut h, size, p, 0))?;
        Ok(h)
    }

    /// `hipMemRelease(h)`.
    pub fn release(&self, h: hipMemGenericAllocationHandle_t) -> Result<(), Failure> {
        setup("hipMemRelease", self.hip().hipMemRelease(h))
    }

    /// `hipMemAddressReserve(size)`, anywhere, alignment 0.
    pub fn reserve(&self, size: usize) -> Result<Va, Failure> {
        let mut va = ptr::null_mut();
        setup(
            &format!("hipMemAddressReserve({size})"),
            self.hip().hipMemAddressReserve(&mut va, size, 0, ptr::null_mut(), 0),
        )?;
        Ok(va)
    }

    /// `hipMemMap(va, size, 0, h, 0)`.
    pub fn map(&self, va: Va, size: usize, h: hipMemGenericAllocationHandle_t) -> Result<(), Failure> {
        setup(&format!("hipMemMap({size})"), self.hip().hipMemMap(va, size, 0, h, 0))
    }

    /// `hipMemSetAccess` ReadWrite for device 0 over `va..va+size`.
    pub fn access(&self, va: Va, size: usize) -> Result<(), Failure> {
        setup("hipMemSetAccess(ReadWrite)", self.hip().hipMemSetAccess(va, size, &rw_desc(0), 1))
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
        setup("hipMemUnmap", self.hip().hipMemUnmap(va, size))?;
        setup("hipMemAddressFree", self.hip().hipMemAddressFree(va, size))?;
        self.release(h)
    }

    /// Writes `len` bytes of the pattern `seed` at `va`.
    pub fn write(&self, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let data = pattern::fill(seed, len);
        setup("hipMemcpy(host to device)", self.hip().hipMemcpy(va, data.as_ptr().cast(), len, hipMemcpyHostToDevice))
    }

    /// Checks that `len` bytes at `va` are the pattern `seed`.
    pub fn verify(&self, step: &str, va: Va, len: usize, seed: u8) -> Result<(), Failure> {
        let mut data = vec![0u8; len];
        setup(
            "hipMemcpy(device to host)",
            self.hip().hipMemcpy(data.as_mut_ptr().cast(), va, len, hipMemcpyDeviceToHost),
        )?;
        self.expect_pattern(step, seed, &data)
    }

    // ---- judging --------------------------------------------------------

    /// Whether a step that the rule records as a vendor crash under the
    /// backend's profile must be left out: on a real library it would take
    /// the suite down; the emulator answers the vendor's nearest error.
    /// Records a note when it is left out.
    pub fn skip_vendor_crash(&mut self, step: &str) -> bool {
        let crash = self.rule().crashes_in(self.profile());
        match crash {
            Some(what) if self.env().backend != BackendKind::Emulator => {
                self.note(format!("{step} left out: the vendor crashes there ({what})"));
                true
            }
            _ => false,
        }
    }

    /// Whether the backend plays the 7.x profile.
    pub fn is_v7(&self) -> bool {
        self.is_profile(rules::PROFILE_7)
    }
}
