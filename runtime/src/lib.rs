//! The safe Rust API of vmmkit: RAII owners for physical memory,
//! reservations, mappings and shared memory over any vendor table, the
//! emulator's or a real library's, with errors that carry the vendor's code
//! and the rule that failed.
//!
//! | level | where | what |
//! |---|---|---|
//! | sys | `vmmkit_sys::acl` | C types, codes, the `AclApi` table of function pointers |
//! | result | [`acl`] (and the selection-only [`hip`], [`cuda`]) | one thin function per C call, returning `Result<_, Error>`; `unsafe` where a raw handle or address goes in |
//! | safe | the crate root | [`Runtime`], [`Device`], [`PhysicalMemory`], [`Reservation`], [`Mapping`], [`Exported`], [`Imported`]: owners whose `Drop` releases |
//!
//! Which table: [`Backend::auto`] takes a real library that loads and has a
//! device, else the emulator; `VMMKIT_BACKEND=emulator|ascend|hip|cuda`
//! forces one. For now the safe API is driven by ACL tables (the emulator's,
//! or `libascendcl.so`, real or vmmkit's drop-in), so [`Runtime::auto`]
//! chooses among those ([`Backend::DRIVEN`]); its vocabulary
//! (granularity, reserve, map, export, import, [`Location`], [`Access`]) is
//! what ACL, HIP and CUDA share, so their tables can plug in later. What is
//! ACL's own stays marked so: [`Sharing::Trustlist`] and
//! [`Exported::set_pids`], [`PhysicalProps::acl_mem_attr`].
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
//! On the emulator, with no device (each program gets its own emulated
//! machine: a root installed with `vmmkit_emulator::install`, or else
//! `VMMKIT_ROOT`, read at the first call):
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

pub mod acl;
mod backend;
pub mod cuda;
mod device;
mod error;
mod export;
pub mod hip;
mod import;
mod mapping;
mod physical;
mod reservation;
mod runtime;

pub use backend::{Backend, Found, Probe, ProbeError, SelectError, Selection};
pub use device::{Device, Granularity, MemInfo};
pub use error::{Code, Error};
pub use export::{Exported, Sharing};
pub use import::Imported;
pub use mapping::{Access, Mapping};
pub use physical::{Location, PhysicalMemory, PhysicalProps};
pub use reservation::Reservation;
pub use runtime::{OpenError, Runtime};

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
    send_sync::<Error>();
};
