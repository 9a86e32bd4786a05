//! `Device`: an opened device and its default context.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::buffer::{DeviceBuffer, IpcHandle, IpcMemory};
use crate::driver::Api;
use crate::error::Error;
use crate::export::Shareable;
use crate::import::Imported;
use crate::physical::{PhysicalMemory, PhysicalProps};
use crate::reservation::Reservation;
use crate::runtime::{Runtime, Shared};

/// Which granularity to ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Granularity {
    /// The smallest size and alignment the driver accepts.
    Minimum,
    /// The one it recommends for performance.
    Recommended,
}

/// Free and total device memory, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemInfo {
    /// Bytes free.
    pub free: usize,
    /// Bytes in all.
    pub total: usize,
}

/// An opened device.
///
/// ACL: opened with `aclrtSetDevice` and reset (`aclrtResetDevice`) when
/// the last clone and the last owner made from it are gone. The reset is
/// reference-counted by the runtime: the last one of the process releases
/// all of its memory on the device, raw handles included. CUDA: its
/// primary context, retained and released likewise. HIP: `hipSetDevice`,
/// nothing to give back.
///
/// Cloning is cheap. Calls that need a current context or device (copies,
/// imports) make this device current on the calling thread first, so a
/// device may be used from any thread. An ACL import, which names its
/// device and needs only some context (ACL-IMP-008), skips that when the
/// runtime's last bind on the thread was this device's, and leaves a
/// context the program set since then current, unless the thread has none.
#[derive(Debug, Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

#[derive(Debug)]
pub(crate) struct DeviceInner {
    pub(crate) rt: Arc<Shared>,
    id: u32,
    /// The context opening made (ACL's default, CUDA's primary; 0 on HIP),
    /// as an integer: only passed back to the library.
    ctx: usize,
    /// This opening's number, unique in the process (never 0): what
    /// [`BOUND`] remembers.
    serial: u64,
}

thread_local! {
    /// The device (its `serial`) whose context the runtime last made
    /// current on this thread; 0 for none (or after a bind that failed).
    /// A context the program sets itself afterwards is not seen here: see
    /// [`Device::with_some_context`].
    static BOUND: Cell<u64> = const { Cell::new(0) };
}

impl Drop for DeviceInner {
    fn drop(&mut self) {
        if let Err(e) = self.rt.api.close_device(self.id as i32) {
            self.rt.record(e);
        }
    }
}

impl Device {
    pub(crate) fn open(rt: &Runtime, id: u32) -> Result<Self, Error> {
        // An id beyond i32 is not a device; the driver says so with its code.
        let raw = i32::try_from(id).unwrap_or(i32::MAX);
        let ctx = rt.shared.api.open_device(raw)?;
        static SERIALS: AtomicU64 = AtomicU64::new(1);
        let serial = SERIALS.fetch_add(1, Ordering::Relaxed);
        Ok(Self { inner: Arc::new(DeviceInner { rt: rt.shared.clone(), id, ctx, serial }) })
    }

    pub(crate) fn api(&self) -> &Api {
        &self.inner.rt.api
    }

    /// The device id.
    pub fn id(&self) -> u32 {
        self.inner.id
    }

    /// The runtime it belongs to.
    pub fn runtime(&self) -> Runtime {
        Runtime { shared: self.inner.rt.clone() }
    }

    pub(crate) fn shared(&self) -> &Shared {
        &self.inner.rt
    }

    /// Makes this device current on the calling thread
    /// (`aclrtSetCurrentContext`, `hipSetDevice`, `cuCtxSetCurrent`), as its
    /// calls that need one do by themselves.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn bind(&self) -> Result<(), Error> {
        // SAFETY: `ctx` is this device's live context: it is given back only
        // when `DeviceInner` drops, and `self` keeps it.
        let bound = unsafe { self.api().bind(self.id() as i32, self.inner.ctx) };
        BOUND.set(if bound.is_ok() { self.inner.serial } else { 0 });
        bound
    }

    /// Runs `call`, which needs some current context but names its device
    /// itself (ACL's import), without a bind when the runtime's last bind
    /// on this thread was this device's; if the program changed the
    /// thread's context since and `call` fails with a code `no_context`
    /// accepts, binds and runs it once more. Otherwise binds first, as
    /// [`Device::bind`]. Either way `call` runs with a current context, and
    /// returns what it would after a bind: a failed call changes nothing.
    pub(crate) fn with_some_context<T>(
        &self,
        no_context: impl Fn(&Error) -> bool,
        call: impl Fn() -> Result<T, Error>,
    ) -> Result<T, Error> {
        if BOUND.get() == self.inner.serial {
            match call() {
                Err(e) if no_context(&e) => {}
                done => return done,
            }
        }
        self.bind()?;
        call()
    }

    /// CUDA needs a current context for every VMM call (CUDA-GEN-002), also
    /// on a thread that only drops an owner: makes this device's current
    /// there. ACL and HIP take the device from their arguments, and need
    /// nothing (their copies and imports bind by themselves).
    pub(crate) fn ready(&self) -> Result<(), Error> {
        if let Api::Cuda(_) = self.api() { self.bind() } else { Ok(()) }
    }

    /// Runs `call`, a call on an object that names its device itself (a
    /// release of physical memory), after [`Device::ready`] or, on CUDA,
    /// with [`Device::with_some_context`]: any current context serves
    /// (CUDA-GEN-002 asks for one), so a thread this device is bound to
    /// makes no `cuCtxSetCurrent`.
    pub(crate) fn with_ready<T>(&self, call: impl Fn() -> Result<T, Error>) -> Result<T, Error> {
        match self.api() {
            Api::Cuda(_) => self.with_some_context(|e| vmmkit_sys::cuda::rules::GEN_002.lists(e.code), call),
            _ => call(),
        }
    }

    /// The granularity of physical memory on this device (ACL: 2 MiB for
    /// the default properties, ACL-GRAN-009; HIP and CUDA: what the driver
    /// says). Sizes and addresses of maps must be multiples of it.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn granularity(&self, which: Granularity) -> Result<usize, Error> {
        self.granularity_for(&PhysicalProps::device(self.id()), which)
    }

    /// The granularity for other properties.
    ///
    /// # Errors
    /// The vendor's code.
    pub fn granularity_for(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error> {
        self.ready()?;
        self.api().granularity(props, which)
    }

    /// Free and total memory of this device (`aclrtGetMemInfo(ACL_HBM_MEM)`).
    /// ACL-only for now: the HIP and CUDA tables of vmmkit-sys have no
    /// memory-info call, so they answer [`Error::is_unsupported`].
    ///
    /// # Errors
    /// The vendor's code.
    pub fn mem_info(&self) -> Result<MemInfo, Error> {
        self.bind()?;
        let (free, total) = self.api().mem_info()?;
        Ok(MemInfo { free, total })
    }

    /// Allocates `size` bytes of physical memory on this device
    /// (`aclrtMallocPhysical`, HBM with huge pages; `hipMemCreate`,
    /// `cuMemCreate`, pinned, exportable as a POSIX fd). `size` must be a
    /// multiple of the granularity.
    ///
    /// # Errors
    /// The vendor's code: on ACL 507899 for a size that is not a multiple of 2 MiB
    /// (ACL-MP-013), 207001 when the device is full (ACL-MP-015).
    pub fn alloc_physical(&self, size: usize) -> Result<PhysicalMemory, Error> {
        self.alloc_physical_with(size, &PhysicalProps::device(self.id()))
    }

    /// Allocates physical memory with other properties (e.g. on the host).
    ///
    /// # Errors
    /// The vendor's code.
    pub fn alloc_physical_with(&self, size: usize, props: &PhysicalProps) -> Result<PhysicalMemory, Error> {
        PhysicalMemory::alloc(self, size, props)
    }

    /// Reserves `size` bytes of device addresses (`aclrtReserveMemAddress`,
    /// `hipMemAddressReserve`, `cuMemAddressReserve`); on ACL, requests
    /// below the granularity reserve one granule (ACL-RSV-007).
    ///
    /// # Errors
    /// The vendor's code, e.g. 207001 when the address window is exhausted.
    pub fn reserve(&self, size: usize) -> Result<Reservation, Error> {
        Reservation::new(self, size)
    }

    /// Imports the `size` bytes that a process exported as `shareable` onto
    /// this device: an ACL key (`aclrtMemImportFromShareableHandle`; a `u64`
    /// converts) or a HIP or CUDA POSIX fd (`hipMemImportFromShareableHandle`,
    /// `cuMemImportFromShareableHandle`; a `BorrowedFd` converts, and is
    /// only borrowed). No vendor tells an importer the size; the exporter
    /// sends it with the handle ([`crate::Exported::size`]).
    ///
    /// # Errors
    /// The vendor's code: on ACL 107017 for a handle that never existed or
    /// was released (ACL-IMP-007), 507899 when this process is not in the
    /// trustlist (ACL-IMP-011) or exported the memory from this device
    /// itself (ACL-IMP-009). A key on HIP or CUDA, or an fd on ACL, is
    /// [`Error::is_unsupported`].
    pub fn import<'a>(&self, shareable: impl Into<Shareable<'a>>, size: usize) -> Result<Imported, Error> {
        Imported::new(self, shareable.into(), size)
    }

    /// IPC-only (HIP, CUDA): `size` bytes of linear device memory
    /// (`hipMalloc`, `cuMemAlloc`), to share with a legacy IPC handle.
    ///
    /// # Errors
    /// The vendor's code; on ACL [`Error::is_unsupported`].
    pub fn malloc(&self, size: usize) -> Result<DeviceBuffer, Error> {
        DeviceBuffer::new(self, size)
    }

    /// IPC-only (HIP, CUDA): opens another process's buffer of `size`
    /// bytes from its legacy IPC handle (`hipIpcOpenMemHandle`,
    /// `cuIpcOpenMemHandle`).
    ///
    /// # Errors
    /// The vendor's code (e.g. a handle of this very process); on ACL
    /// [`Error::is_unsupported`].
    pub fn open_ipc(&self, handle: &IpcHandle, size: usize) -> Result<IpcMemory, Error> {
        IpcMemory::open(self, handle, size)
    }
}
