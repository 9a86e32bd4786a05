//! `Ctx`: what a CUDA check gets. The table, the rule being checked, setup
//! helpers whose failures read "setup: `<call>` returned `<code>`", and the
//! judging helpers that compare a code with the catalog's.
//!
//! The driver needs `cuInit(0)` first and, for every memory, VMM and IPC
//! call, a current context on the calling thread (cuda.md §1.3): setup
//! retains device 0's primary context and makes it current on the thread
//! that runs the check ([`Ctx::context`]).
#![forbid(unsafe_code)]

use std::ptr;

use vmmkit_sys::cuda::*;
use vmmkit_sys::vendor;

use super::peer::{Launcher, Peer};
use super::table::Cuda;
use crate::ctx::{Suite, nonzero};
use crate::outcome::Failure;
use crate::pattern;

/// A PINNED allocation on device `device` with the handle types `types`, zeroed first.
pub fn prop(device: i32, types: CUmemAllocationHandleType) -> CUmemAllocationProp {
    CUmemAllocationProp {
        type_: CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: types,
        location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        ..Default::default()
    }
}

/// [`prop`] for a POSIX-fd shareable allocation on device 0.
pub fn posix_prop() -> CUmemAllocationProp {
    prop(0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
}

/// An access descriptor granting `flags` to device `device`.
pub fn desc(device: i32, flags: CUmemAccess_flags) -> CUmemAccessDesc {
    CUmemAccessDesc { location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device }, flags }
}

/// `Ok` for success, else a setup failure for `call`.
pub fn setup(call: &str, r: CUresult) -> Result<(), Failure> {
    crate::ctx::setup::<CuResult>(call, r)
}

/// The context of one CUDA check.
pub type Ctx = crate::ctx::Ctx<vendor::Cuda>;

impl Suite for vendor::Cuda {
    type Table = Cuda;

    /// `cuInit(0)` answering 100 (no GPU) or 34 (the toolkit's stub
    /// library), or no device counted (cuda.md §1.1).
    fn probe(cuda: &Cuda) -> Result<(), String> {
        let r = CuResult(cuda.cuInit(0));
        if r == CuResult::NO_DEVICE {
            return Err(format!("no device: cuInit(0) gave {r}"));
        }
        if r == CuResult::STUB_LIBRARY {
            return Err(format!("the library is the CUDA toolkit's stub: cuInit(0) gave {r}"));
        }
        if !r.is_success() {
            return Err(format!("cuInit(0) gave {r}"));
        }
        let mut n = 0;
        let r = CuResult(cuda.cuDeviceGetCount(&mut n));
        if !r.is_success() || n <= 0 {
            return Err(format!("no device: cuDeviceGetCount gave {r}, {n} devices"));
        }
        Ok(())
    }

    fn devices(cx: &Ctx) -> Result<u32, Failure> {
        Ok(u32::try_from(cx.device_count()?).unwrap_or(0))
    }
}

impl Ctx {
    /// The table.
    pub fn cuda(&self) -> Cuda {
        self.table()
    }

    /// A peer process with device `device`'s primary context current.
    ///
    /// # Errors
    /// The peer's start failures.
    pub fn peer(&self, name: &str, device: i32) -> Result<Peer, Failure> {
        let env = self.env();
        let launcher = Launcher::new(self.exe().to_path_buf(), env.backend, env.library.clone());
        Peer::start(&launcher, name, device)
    }

    // ---- setup ----------------------------------------------------------

    /// `cuInit(0)`.
    pub fn init(&self) -> Result<(), Failure> {
        setup("cuInit(0)", self.cuda().cuInit(0))
    }

    /// `cuDeviceGetCount`, after `cuInit`.
    pub fn device_count(&self) -> Result<i32, Failure> {
        self.init()?;
        let mut n = 0;
        setup("cuDeviceGetCount", self.cuda().cuDeviceGetCount(&mut n))?;
        Ok(n)
    }

    /// `cuInit(0)`, then device `ordinal`'s primary context retained and
    /// made current on the calling thread (cuda.md §1.3 step 5).
    pub fn context(&self, ordinal: i32) -> Result<CUcontext, Failure> {
        self.init()?;
        let mut dev = 0;
        setup(&format!("cuDeviceGet({ordinal})"), self.cuda().cuDeviceGet(&mut dev, ordinal))?;
        let mut ctx = ptr::null_mut();
        setup(&format!("cuDevicePrimaryCtxRetain({dev})"), self.cuda().cuDevicePrimaryCtxRetain(&mut ctx, dev))?;
        setup("cuCtxSetCurrent", self.cuda().cuCtxSetCurrent(ctx))?;
        Ok(ctx)
    }

    /// `cuDeviceGetAttribute(attr)` of device 0.
    pub fn attribute(&self, attr: CUdevice_attribute) -> Result<i32, Failure> {
        self.init()?;
        let mut v = 0;
        setup(&format!("cuDeviceGetAttribute({attr})"), self.cuda().cuDeviceGetAttribute(&mut v, attr, 0))?;
        Ok(v)
    }

    /// Device 0's context, and the MINIMUM granularity of [`posix_prop`].
    pub fn granule(&self) -> Result<usize, Failure> {
        self.context(0)?;
        let mut g = 0usize;
        let r = self.cuda().cuMemGetAllocationGranularity(&mut g, &posix_prop(), CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        nonzero::<CuResult>("cuMemGetAllocationGranularity(MINIMUM)", r, g)
    }

    /// `cuMemAlloc_v2(size)`.
    pub fn alloc(&self, size: usize) -> Result<CUdeviceptr, Failure> {
        let mut p = 0;
        setup(&format!("cuMemAlloc({size})"), self.cuda().cuMemAlloc(&mut p, size))?;
        Ok(p)
    }

    /// `cuMemFree_v2(p)`.
    pub fn free(&self, p: CUdeviceptr) -> Result<(), Failure> {
        setup("cuMemFree", self.cuda().cuMemFree(p))
    }

    /// `cuMemCreate(size)` with `p`.
    pub fn create(&self, size: usize, p: &CUmemAllocationProp) -> Result<CUmemGenericAllocationHandle, Failure> {
        let mut h = 0;
        setup(&format!("cuMemCreate({size})"), self.cuda().cuMemCreate(&mut h, size, p, 0))?;
        Ok(h)
    }

    /// `cuMemRelease(h)`.
    pub fn release(&self, h: CUmemGenericAllocationHandle) -> Result<(), Failure> {
        setup("cuMemRelease", self.cuda().cuMemRelease(h))
    }

    /// `cuMemAddressReserve(size)`, anywhere, alignment 0.
    pub fn reserve(&self, size: usize) -> Result<CUdeviceptr, Failure> {
        let mut va = 0;
        setup(&format!("cuMemAddressReserve({size})"), self.cuda().cuMemAddressReserve(&mut va, size, 0, 0, 0))?;
        Ok(va)
    }

    /// `cuMemMap(va, size, 0, h, 0)`.
    pub fn map(&self, va: CUdeviceptr, size: usize, h: CUmemGenericAllocationHandle) -> Result<(), Failure> {
        setup(&format!("cuMemMap({size})"), self.cuda().cuMemMap(va, size, 0, h, 0))
    }

    /// `cuMemSetAccess` of `flags` for device 0 over `va..va+size`.
    pub fn access(&self, va: CUdeviceptr, size: usize, flags: CUmemAccess_flags) -> Result<(), Failure> {
        setup(&format!("cuMemSetAccess(flags {flags})"), self.cuda().cuMemSetAccess(va, size, &desc(0, flags), 1))
    }

    /// Granule-sized POSIX-fd memory, reserved, mapped and read-write for
    /// device 0: (va, handle, size).
    pub fn mapped(&self, granules: usize) -> Result<(CUdeviceptr, CUmemGenericAllocationHandle, usize), Failure> {
        let size = granules * self.granule()?;
        let h = self.create(size, &posix_prop())?;
        let va = self.reserve(size)?;
        self.map(va, size, h)?;
        self.access(va, size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE)?;
        Ok((va, h, size))
    }

    /// Unmaps and frees the reservation of `va..va+size`.
    pub fn unmap_free(&self, va: CUdeviceptr, size: usize) -> Result<(), Failure> {
        setup("cuMemUnmap", self.cuda().cuMemUnmap(va, size))?;
        setup("cuMemAddressFree", self.cuda().cuMemAddressFree(va, size))
    }

    /// `cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR)`: the fd, owned.
    pub fn export_fd(&self, h: CUmemGenericAllocationHandle) -> Result<std::os::fd::OwnedFd, Failure> {
        let mut fd = -1i32;
        setup(
            "cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR)",
            self.cuda().cuMemExportToShareableHandle(
                (&raw mut fd).cast(),
                h,
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                0,
            ),
        )?;
        Cuda::own_exported_fd(fd)
            .ok_or_else(|| Failure::Setup(format!("setup: cuMemExportToShareableHandle wrote fd {fd}")))
    }

    /// Writes `len` bytes of the pattern `seed` at `va` (`cuMemcpyHtoD_v2`).
    pub fn write(&self, va: CUdeviceptr, len: usize, seed: u8) -> Result<(), Failure> {
        let data = pattern::fill(seed, len);
        setup("cuMemcpyHtoD", self.cuda().cuMemcpyHtoD(va, data.as_ptr().cast(), len))
    }

    /// Checks that `len` bytes at `va` are the pattern `seed` (`cuMemcpyDtoH_v2`).
    pub fn verify(&self, step: &str, va: CUdeviceptr, len: usize, seed: u8) -> Result<(), Failure> {
        let mut data = vec![0u8; len];
        setup("cuMemcpyDtoH", self.cuda().cuMemcpyDtoH(data.as_mut_ptr().cast(), va, len))?;
        self.expect_pattern(step, seed, &data)
    }

    // ---- judging --------------------------------------------------------
}
