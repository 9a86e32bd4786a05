//! The safe Rust API of vmmkit: RAII owners for physical memory,
//! reservations, mappings and shared memory over any vendor table, the
//! emulator's or a real library's, with errors that carry the vendor's code
//! and the rule that failed.
//!
//! | level | where | what |
//! |---|---|---|
//! | sys | `vmmkit_sys::{acl, hip, cuda}` | C types, codes, the `AclApi`, `HipApi`, `CudaApi` tables of function pointers |
//! | result | [`acl`], [`hip`], [`cuda`] | one thin function per C call, returning `Result<_, Error>`; `unsafe` where a raw handle or address goes in |
//! | safe | the crate root | [`Runtime`], [`Device`], [`PhysicalMemory`], [`Reservation`], [`Mapping`], [`Exported`], [`Imported`] (and, IPC-only, [`DeviceBuffer`], [`IpcMemory`]): owners whose `Drop` releases, written once over every vendor |
//!
//! Which table: [`Backend::auto`] takes a real library that loads and has a
//! device (Ascend, HIP, CUDA, in that order), else the emulator's ACL
//! dialect; `VMMKIT_BACKEND=emulator|emulator-acl|emulator-hip|emulator-cuda|ascend|hip|cuda`
//! forces one. Every owner is written once against an internal trait
//! that each vendor implements once, so one vocabulary (granularity, reserve, map,
//! access, copies, export, import, [`Location`], [`Access`]) drives them all;
//! [`Runtime::vendor`] says which C API is underneath.
//!
//! | | ACL | HIP | CUDA |
//! |---|---|---|---|
//! | granularity | 2 MiB | the driver's | the driver's |
//! | VMM sharing ([`Sharing`]) | 64-bit key: [`Sharing::Trustlist`] with [`Exported::set_pids`], or [`Sharing::AnyProcess`] | POSIX fd: [`Sharing::PosixFd`], sent with [`fd::send`] (`SCM_RIGHTS`) | as HIP |
//! | legacy IPC ([`Device::malloc`], [`DeviceBuffer::ipc_handle`], [`Device::open_ipc`]) | not supported | `hipIpc*MemHandle` | `cuIpc*MemHandle` |
//! | [`Device::mem_info`] | `aclrtGetMemInfo` | not supported | not supported |
//! | rule ids in errors | emulator and drop-in (`aclGetRecentErrMsg`) | in-process emulator | in-process emulator |
//!
//! What belongs to one vendor is named so and documented as ACL-only,
//! fd-only or IPC-only ([`Exported::key`], [`Exported::fd`],
//! [`PhysicalProps::acl_mem_attr`], …); asked of another vendor it returns
//! an [`Error`] with the vendor's not-supported code and
//! [`Error::is_unsupported`], never a panic.
//!
//! # Dropping
//!
//! Every owner gives its resource back on drop, and never panics there; an
//! error met in `Drop` is logged (`tracing`) and kept for
//! [`Runtime::take_drop_errors`]. For the code, call `free` (or `unmap`)
//! instead. A [`Mapping`] holds its memory and its reservation, so the
//! driver sees unmap before free and release whatever order the owners are
//! dropped in; a [`Device`] is reset, and the library finalised, after
//! the last owner made from them. A device reset releases everything of
//! this process on that device, including what was made through the raw
//! table: keep a [`Device`] open while raw handles are in use.
//!
//! # Example
//!
//! On the emulator's ACL dialect, with no device (each program gets its own
//! emulated machine: a root installed with `vmmkit_emulator::install`, or
//! else `VMMKIT_ROOT`, read at the first call):
//!
//! ```
//! use vmmkit_runtime::{Access, Backend, Granularity, Location, Runtime, Sharing};
//! use vmmkit_sys::acl::AclError;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let root = tempfile::tempdir()?;
//! # vmmkit_emulator::install(vmmkit_emulator::Config::new(root.path()))?;
//! // 1. Open a backend and a device.
//! let rt = Runtime::new(Backend::Emulator)?;
//! let dev = rt.device(0)?;
//!
//! // 2. Sizes and addresses of maps are multiples of the granularity (2 MiB on ACL).
//! let g = dev.granularity(Granularity::Minimum)?;
//! assert_eq!(g, 2 << 20);
//!
//! // 3. Physical memory, device addresses, and a mapping of one into the other.
//! let mem = dev.alloc_physical(g)?;
//! let va = dev.reserve(2 * g)?;
//! let map = va.map(0, &mem)?;
//! map.set_access(Location::Device(0), Access::ReadWrite)?;
//!
//! // 4. Copies go through the driver: host to device, device to host.
//! map.write(0, b"hello, device")?;
//! let mut back = [0u8; 13];
//! map.read(0, &mut back)?;
//! assert_eq!(&back, b"hello, device");
//!
//! // 5. Share it: another process (here: another device) imports it.
//! let shared = mem.export(Sharing::Trustlist)?;
//! let other = rt.device(1)?.import(shared.shareable(), shared.size())?;
//! let va1 = rt.device(1)?.reserve(g)?;
//! let map1 = va1.map(0, &other)?;
//! map1.read(0, &mut back)?;
//! assert_eq!(&back, b"hello, device");
//!
//! // 6. Errors carry the vendor code and, on the emulator, the rule.
//! let err = va.map(0, &mem).unwrap_err(); // that range is mapped already
//! assert_eq!(err.code, AclError::RT_DRV_INTERNAL_ERROR);
//! assert_eq!(err.rule_id(), Some("ACL-MAP-009"));
//! println!("{err}");
//!
//! // 7. Owners release on drop, in any order: here the memory goes first,
//! //    and is really freed after its mapping.
//! drop(mem);
//! drop((map, map1, shared, other));
//! assert!(rt.take_drop_errors().is_empty());
//! # Ok(()) }
//! ```
//!
//! The same body over every emulated dialect; sharing is the vendor's own
//! (a key on ACL, a POSIX fd on HIP and CUDA):
//!
//! ```
//! use vmmkit_runtime::{Access, Backend, Granularity, Location, Runtime};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let root = tempfile::tempdir()?;
//! # vmmkit_emulator::install(vmmkit_emulator::Config::new(root.path()))?;
//! for backend in Backend::EMULATED {
//!     let rt = Runtime::new(backend)?;
//!     let (d0, d1) = (rt.device(0)?, rt.device(1)?);
//!     let g = d0.granularity(Granularity::Minimum)?;
//!     let mem = d0.alloc_physical(g)?;
//!     let va = d0.reserve(g)?;
//!     let map = va.map(0, &mem)?;
//!     map.set_access(Location::Device(0), Access::ReadWrite)?;
//!     map.write(0, b"one vocabulary")?;
//!
//!     let shared = mem.export(rt.vendor().vmm_sharing()[0])?;
//!     let other = d1.import(shared.shareable(), shared.size())?;
//!     let va1 = d1.reserve(g)?;
//!     let map1 = va1.map(0, &other)?;
//!     map1.set_access(Location::Device(1), Access::ReadWrite)?;
//!     let mut back = [0u8; 14];
//!     map1.read(0, &mut back)?;
//!     assert_eq!(&back, b"one vocabulary", "over {}", rt.backend());
//! }
//! # Ok(()) }
//! ```

#![deny(unsafe_code)]

/// The vendors the runtime drives, one line each, in selection order:
/// everything that is a closed set of vendors ([`Vendor`], [`Backend`] and
/// its `VMMKIT_BACKEND` names, the tests' `per_backend!`) is generated from
/// this list. A line reads
///
/// `Variant module "soname": EmulatedBackend ["name", "alias"…], LibraryBackend "name"[, drop_in "package"];`
///
/// where `Variant` names the vendor's marker in `vmmkit_sys::vendor` too,
/// and `drop_in` the workspace's drop-in library of that soname, if any.
///
/// `vendors!(then)` calls `then! { [] line… }`; `vendors!(then, args…)`
/// calls `then! { [args…] line… }`.
#[doc(hidden)]
#[macro_export]
macro_rules! vendors {
    ($then:path $(, $($args:tt)*)?) => {
        $then! { [$($($args)*)?]
            Acl acl "libascendcl.so": Emulator ["emulator", "emulator-acl"], Ascend "ascend", drop_in "vmmkit-shim-ascendcl";
            Hip hip "libamdhip64.so": EmulatorHip ["emulator-hip"], Hip "hip", drop_in "vmmkit-shim-amdhip64";
            Cuda cuda "libcuda.so.1": EmulatorCuda ["emulator-cuda"], Cuda "cuda";
        }
    };
}

// `unsafe` is allowed where the runtime calls the vendor's C table (the
// per-vendor modules, with their result layers and drivers), and in the
// owners of what those calls hand out (buffer, device, export, mapping,
// physical memory, reservation), which call the driver's `unsafe`
// operations with the handles they own. Every other module is safe code.
#[allow(unsafe_code)]
pub mod acl;
mod backend;
#[allow(unsafe_code)]
mod buffer;
#[allow(unsafe_code)]
pub mod cuda;
#[allow(unsafe_code)]
mod device;
#[allow(unsafe_code)]
mod driver;
mod error;
#[allow(unsafe_code)]
mod export;
pub mod fd;
#[allow(unsafe_code)]
pub mod hip;
mod import;
#[allow(unsafe_code)]
mod mapping;
#[allow(unsafe_code)]
mod physical;
#[allow(unsafe_code)]
mod reservation;
#[allow(unsafe_code)]
mod result;
mod runtime;
mod select;
mod types;

pub use backend::{Backend, SelectError};
pub use buffer::{DeviceBuffer, IpcMemory};
pub use device::Device;
pub use driver::Vendor;
pub use error::{Code, Error};
pub use export::Exported;
pub use import::Imported;
pub use mapping::Mapping;
pub use physical::PhysicalMemory;
pub use reservation::Reservation;
pub use runtime::{OpenError, Runtime};
pub use select::{Found, Probe, ProbeError, Selection};
pub use types::{Access, Granularity, IpcHandle, Location, MemInfo, PhysicalProps, Shareable, Sharing};

// Every owner may move to and be shared with other threads; each type's
// documentation (or its inner record's `unsafe impl`) says why that is sound.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Runtime>();
    send_sync::<Device>();
    send_sync::<PhysicalMemory>();
    send_sync::<Reservation>();
    send_sync::<Mapping>();
    send_sync::<Exported>();
    send_sync::<Imported>();
    send_sync::<DeviceBuffer>();
    send_sync::<IpcMemory>();
    send_sync::<Error>();
};
