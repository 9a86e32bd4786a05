//! `Device`: an opened device and its default context.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::driver::Driver;
use crate::error::Error;
use crate::runtime::{Runtime, Shared};
use crate::types::{Granularity, MemInfo, PhysicalProps};

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
/// device and needs only some context ([ACL-IMP-008](vmmkit_sys::acl::rules::IMP_008)), skips that when the
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

    pub(crate) fn api(&self) -> &dyn Driver {
        self.inner.rt.api.as_ref()
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

    /// A vendor whose every VMM call needs a current context (CUDA,
    /// [CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)), also on a thread that only drops an owner: makes this
    /// device's current there. ACL and HIP take the device from their
    /// arguments, and need nothing (their copies and imports bind by
    /// themselves).
    pub(crate) fn ready(&self) -> Result<(), Error> {
        if self.api().needs_context() { self.bind() } else { Ok(()) }
    }

    /// Runs `call`, a call on an object that names its device itself (a
    /// release of physical memory), after [`Device::ready`]: where every
    /// call needs a context (CUDA), with [`Device::with_some_context`]: any current context serves
    /// ([CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002) asks for one), so a thread this device is bound to
    /// makes no `cuCtxSetCurrent`.
    pub(crate) fn with_ready<T>(&self, call: impl Fn() -> Result<T, Error>) -> Result<T, Error> {
        if self.api().needs_context() { self.with_some_context(|e| self.api().lacks_context(e), call) } else { call() }
    }

    /// The granularity of physical memory on this device (ACL: 2 MiB for
    /// the default properties, [ACL-GRAN-009](vmmkit_sys::acl::rules::GRAN_009); HIP and CUDA: what the driver
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
}

impl Runtime {
    /// Opens device `id` (ACL: `aclrtSetDevice`, reset when the last owner
    /// made from it is dropped; CUDA: its primary context, retained and
    /// released likewise; HIP: `hipSetDevice`).
    ///
    /// # Errors
    /// The vendor's code, e.g. 107001 for a device that does not exist.
    pub fn device(&self, id: u32) -> Result<Device, Error> {
        Device::open(self, id)
    }
}
