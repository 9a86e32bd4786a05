//! The vmmkit emulator.

#![deny(unsafe_code)]

// `unsafe` is allowed only where the emulator meets C or the kernel: the
// C caller's pointers (`ffi`, taken on trust once per argument by the
// instrumented entry points), the dialect modules
// that run work on device memory or call the program's functions (each
// says why at its declaration in its dialect), the exported symbols, the
// system calls and mappings (`os`), and the core's modules that touch
// memory through its mappings (see `core/mod.rs`). Each allow says why.
// Every block has a `// SAFETY:` line.
pub mod acl;
mod config;
pub mod core;
pub mod cuda;
pub mod dialect;
#[cfg(feature = "example-vendor")]
pub mod example;
pub mod faults;
#[allow(unsafe_code, reason = "the C caller's pointers, dereferenced under its contract")]
pub mod ffi;
pub mod fork;
#[allow(unsafe_code, reason = "dependency arrays passed in from C; graph host nodes call the program's functions")]
mod graph_values;
pub mod hip;
#[allow(unsafe_code, reason = "the exported entry points wrap the C caller's arguments (ffi::FromC)")]
pub mod instrument;
pub mod journal;
pub mod leaks;
pub mod mutation;
#[allow(unsafe_code, reason = "system calls, mappings and the fork and exit handlers")]
mod os;
pub mod panic;
pub mod registry;
#[allow(unsafe_code, reason = "the drop-in libraries' exported symbols")]
pub mod shim;
pub mod violations;
pub mod visible;

pub use config::{
    AscendSoc, Config, ConfigError, HipVersion, MAX_DEVICES, Schedule, default_root, parse_bytes, profiles_in_force,
};
pub use core::{InstallError, install};
