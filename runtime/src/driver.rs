//! The one internal vocabulary the owners call, as two traits that each
//! vendor implements once, in its own module ([`crate::acl`],
//! [`crate::hip`], [`crate::cuda`]):
//!
//! - [`Facts`], over vmmkit-sys's [`vmmkit_sys::vendor::Vendor`] marker
//!   (`vmmkit_sys::vendor::Acl`, …): what the runtime knows of a vendor
//!   without a table (its not-supported code, how it shares VMM memory, the
//!   emulator's table of its dialect);
//! - [`Driver`], over the vendor's table (`AclApi`, …): each operation of
//!   the owners once, calling the vendor's `result` functions. An
//!   operation a vendor lacks keeps the provided method, which returns
//!   [`Error::unsupported`] with the vendor's not-supported code without
//!   calling the library.
//!
//! The owners hold a `Box<dyn Driver>`; nothing here or above matches on
//! vendors. The closed set of vendors ([`Vendor`], [`crate::Backend`], the
//! tests' `per_backend!`) is generated from one list, `vendors!` in the
//! crate root.
//!
//! Handles, addresses and contexts travel as integers (`u64`, `usize`): an
//! ACL or HIP handle is a pointer value, a CUDA one a `u64`; none is ever
//! dereferenced by this crate, only passed back to the library.

use std::any::Any;
use std::ffi::c_void;
use std::fmt;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use vmmkit_sys::LoadError;

use crate::error::{Code, Error};
use crate::types::{Access, Dir, Granularity, Location, PhysicalProps, Sharing};

/// What the runtime knows of a vendor without its table: associated items
/// over vmmkit-sys's description of the vendor (its `DIALECT`, `Api`,
/// `Code`, `load`).
pub(crate) trait Facts: vmmkit_sys::vendor::Vendor<Api: Driver> {
    /// The code for an operation the vendor does not have.
    const NOT_SUPPORTED: Self::Code;
    /// How memory is shared between processes with the vendor's VMM API.
    const VMM_SHARING: &'static [Sharing];
    /// The in-process emulator's table of this dialect.
    fn emulator() -> Self::Api;
}

/// A view of a value as [`Any`], for the raw tables
/// ([`crate::Runtime::acl_api`], …).
pub(crate) trait AsAny {
    fn as_any(&self) -> &dyn Any;
}

impl<T: Any> AsAny for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// The runtime's operations over one vendor's table, implemented once per
/// vendor (for `AclApi`, `HipApi`, `CudaApi`).
///
/// The `unsafe` methods pass handles and addresses to the library, which a
/// real driver dereferences: each says what the caller promises.
pub(crate) trait Driver: AsAny + Send + Sync + fmt::Debug + 'static {
    /// Which vendor the table speaks.
    fn vendor(&self) -> Vendor;

    /// The error for `call` that this vendor cannot do.
    fn unsupported(&self, call: &'static str, why: &'static str) -> Error {
        Error::unsupported(call, self.vendor().not_supported(), why)
    }

    /// Initialises the library for this process; the guard gives back the
    /// vendor's share of the initialisation (ACL's `aclFinalize`) after its
    /// last user.
    fn init(&self) -> Result<InitGuard, Error>;

    /// The library's explanation of a failed [`Driver::init`], if it has
    /// one (ACL's `aclGetRecentErrMsg`).
    fn init_message(&self, _failure: &Error) -> Option<String> {
        None
    }

    /// Whether every VMM call needs a current context on the calling thread
    /// ([CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)); otherwise calls take the device from their
    /// arguments, and only copies and imports bind.
    fn needs_context(&self) -> bool {
        false
    }

    /// Whether `e` is how a call that needs some current context (any one)
    /// fails on a thread without one, changing nothing ([ACL-IMP-008](vmmkit_sys::acl::rules::IMP_008),
    /// [CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)).
    fn lacks_context(&self, _e: &Error) -> bool {
        false
    }

    fn device_count(&self) -> Result<u32, Error>;

    /// Opens device `id`: its context (ACL's default, CUDA's primary; HIP has
    /// none, 0), to be given back with [`Driver::close_device`].
    fn open_device(&self, id: i32) -> Result<usize, Error>;

    /// Gives back what [`Driver::open_device`] took.
    fn close_device(&self, id: i32) -> Result<(), Error>;

    /// Makes device `id` (context `ctx`) current on the calling thread.
    ///
    /// # Safety
    /// `ctx` must be what [`Driver::open_device`] returned for `id`, not closed yet.
    unsafe fn bind(&self, id: i32, ctx: usize) -> Result<(), Error>;

    fn granularity(&self, props: &PhysicalProps, which: Granularity) -> Result<usize, Error>;

    /// Free and total bytes of the current device.
    fn mem_info(&self) -> Result<(usize, usize), Error> {
        Err(self.unsupported("Device::mem_info", "this vendor's table has no memory-info call"))
    }

    fn alloc(&self, size: usize, props: &PhysicalProps) -> Result<u64, Error>;

    /// # Safety
    /// `handle` holds one reference of this process, given back here.
    unsafe fn free(&self, handle: u64) -> Result<(), Error>;

    fn reserve(&self, size: usize) -> Result<u64, Error>;

    /// # Safety
    /// `va..va+size` is a reservation of ours, with no mapping in use.
    unsafe fn release(&self, va: u64, size: usize) -> Result<(), Error>;

    /// # Safety
    /// `handle` is live; the library checks the range.
    unsafe fn map(&self, va: u64, size: usize, handle: u64) -> Result<(), Error>;

    /// # Safety
    /// `va..va+size` is our mapping, not used during or after the call.
    unsafe fn unmap(&self, va: u64, size: usize) -> Result<(), Error>;

    /// # Safety
    /// `va..va+size` is our live mapping.
    unsafe fn set_access(&self, va: u64, size: usize, loc: Location, access: Access) -> Result<(), Error>;

    /// # Safety
    /// `va` is a device address of ours.
    unsafe fn get_access(&self, va: u64, loc: Location) -> Result<u64, Error>;

    /// A synchronous copy of `len` bytes; host sides are pointers, device sides addresses.
    ///
    /// # Safety
    /// Host ranges valid for the reads and writes, device ranges mapped by us.
    unsafe fn copy(&self, dst: u64, src: u64, len: usize, dir: Dir) -> Result<(), Error>;

    /// Export to a 64-bit shareable key (ACL).
    ///
    /// # Safety
    /// `handle` is live.
    unsafe fn export_key(&self, _handle: u64, _sharing: Sharing) -> Result<u64, Error> {
        Err(self.unsupported("PhysicalMemory::export", "this vendor shares VMM memory by POSIX fd, not by key"))
    }

    /// Export to a POSIX fd (HIP, CUDA).
    ///
    /// # Safety
    /// `handle` is live.
    unsafe fn export_fd(&self, _handle: u64) -> Result<OwnedFd, Error> {
        Err(self.unsupported("PhysicalMemory::export", "this vendor shares VMM memory by 64-bit key, not by fd"))
    }

    /// Adds pids to a key's trustlist (ACL).
    fn set_pids(&self, _key: u64, _pids: &[i32]) -> Result<(), Error> {
        Err(self.unsupported("Exported::set_pids", "this vendor has no trustlist; an fd is shared by passing it"))
    }

    /// Import by key onto `device` (needs some current context).
    fn import_key(&self, _key: u64, _device: i32) -> Result<u64, Error> {
        Err(self.unsupported("Device::import", "this vendor imports VMM memory from a POSIX fd"))
    }

    /// Import from a POSIX fd onto the current device.
    fn import_fd(&self, _fd: BorrowedFd<'_>) -> Result<u64, Error> {
        Err(self.unsupported("Device::import_fd", "this vendor imports VMM memory by 64-bit key"))
    }

    /// The pid other processes put in a trustlist for this one.
    fn host_pid(&self) -> Result<i32, Error> {
        Ok(std::process::id() as i32)
    }

    /// Linear device memory on the current device, for legacy IPC.
    fn malloc(&self, _size: usize) -> Result<u64, Error> {
        Err(self.unsupported("Device::malloc", "this vendor has no legacy IPC buffers"))
    }

    /// # Safety
    /// `p` came from [`Driver::malloc`], is not freed and not in use.
    unsafe fn free_linear(&self, _p: u64) -> Result<(), Error> {
        Err(self.unsupported("DeviceBuffer::free", "this vendor has no legacy IPC buffers"))
    }

    /// # Safety
    /// `p` is a device address of ours.
    unsafe fn ipc_get(&self, _p: u64) -> Result<[u8; 64], Error> {
        Err(self.unsupported("DeviceBuffer::ipc_handle", "this vendor has no legacy IPC handles"))
    }

    /// Opens a legacy IPC handle on the current device.
    fn ipc_open(&self, _handle: &[u8; 64]) -> Result<u64, Error> {
        Err(self.unsupported("Device::open_ipc", "this vendor has no legacy IPC handles"))
    }

    /// # Safety
    /// `p` came from [`Driver::ipc_open`], is not closed and not in use.
    unsafe fn ipc_close(&self, _p: u64) -> Result<(), Error> {
        Err(self.unsupported("IpcMemory::close", "this vendor has no legacy IPC handles"))
    }
}

/// A handle or address kept as an integer, as the pointer the C API takes.
pub(crate) fn ptr(v: u64) -> *mut c_void {
    v as usize as *mut c_void
}

/// A runtime's share of its library's initialisation: what the vendor's
/// [`Driver::init`] keeps until the runtime goes (nothing for a library
/// without finalisation).
#[derive(Debug)]
pub(crate) struct InitGuard(
    #[allow(dead_code, reason = "held for its Drop")] Option<Box<dyn fmt::Debug + Send + Sync>>,
);

impl InitGuard {
    /// Nothing to give back (`hipInit`, `cuInit`).
    pub(crate) const NONE: Self = Self(None);

    /// Holds `share`, whose `Drop` gives it back, until the runtime is dropped.
    pub(crate) fn new(share: impl fmt::Debug + Send + Sync + 'static) -> Self {
        Self(Some(Box::new(share)))
    }
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; a poisoned one is still consistent.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// A vendor's table as the owners hold it, and the library it came from
/// (`None` for the in-process emulator).
pub(crate) type Table = (Box<dyn Driver>, Option<PathBuf>);

fn table<V: Facts>(emulated: bool, library: Option<&Path>) -> Result<Table, LoadError> {
    if emulated {
        return Ok((Box::new(V::emulator()), None));
    }
    let loaded = V::load(library)?;
    Ok((Box::new(loaded.api), Some(loaded.path.to_path_buf())))
}

/// Declares [`Vendor`] from the crate's list of vendors, its facts read
/// from each vendor's [`Facts`].
macro_rules! vendor_enum {
    ([] $($v:ident $lower:ident $soname:literal:
        $emu:ident [$($emu_name:literal),+], $lib:ident $lib_name:literal $(, drop_in $pkg:literal)?;)*) => {
        /// Which vendor's C API a table speaks.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Vendor {
            $(
                #[doc = concat!("The ", stringify!($v), " C API (`", $soname, "`).")]
                $v,
            )*
        }

        impl Vendor {
            /// Every vendor the runtime drives, in selection order.
            pub const ALL: &'static [Self] = &[$(Self::$v),*];

            /// The vendor's name: `ACL`, `HIP`, `CUDA`.
            pub fn name(self) -> &'static str {
                self.dialect().label()
            }

            /// The vendor's family in vmmkit-sys (rule ids, `--backend`).
            pub fn dialect(self) -> vmmkit_sys::rule::Dialect {
                use vmmkit_sys::vendor::Vendor as _;
                match self {
                    $(Self::$v => vmmkit_sys::vendor::$v::DIALECT,)*
                }
            }

            /// The vendor's code for an operation it does not support.
            pub fn not_supported(self) -> Code {
                match self {
                    $(Self::$v => <vmmkit_sys::vendor::$v as Facts>::NOT_SUPPORTED.into(),)*
                }
            }

            /// How memory is shared between processes with this vendor's VMM API.
            pub fn vmm_sharing(self) -> &'static [Sharing] {
                match self {
                    $(Self::$v => <vmmkit_sys::vendor::$v as Facts>::VMM_SHARING,)*
                }
            }

            /// This vendor's table: the in-process emulator's, or the library
            /// loaded from `library` (or found by vmmkit-sys's default search).
            pub(crate) fn table(self, emulated: bool, library: Option<&Path>) -> Result<Table, LoadError> {
                match self {
                    $(Self::$v => table::<vmmkit_sys::vendor::$v>(emulated, library),)*
                }
            }
        }
    };
}
vendors!(vendor_enum);

impl fmt::Display for Vendor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
