//! The vmmkit emulator.

#![deny(unsafe_code)]

// `unsafe` is allowed only where the emulator meets C or the kernel: the
// dialects' C entry points (pointers from the caller, under the vendor's
// contract), the plumbing they share and the instrumentation that wraps
// them, the exported symbols, the system calls and mappings (`os`), the
// fork handlers, and the core's modules that touch memory through its
// mappings (see `core/mod.rs`). Every block has a `// SAFETY:` line.
#[allow(unsafe_code)]
pub mod acl;
mod config;
pub mod core;
#[allow(unsafe_code)]
pub mod cuda;
#[allow(unsafe_code)]
pub mod dialect;
#[cfg(feature = "example-vendor")]
#[allow(unsafe_code)]
pub mod example;
pub mod faults;
pub mod fork;
#[allow(unsafe_code)] // dependency arrays passed in from C
mod graph_values;
#[allow(unsafe_code)]
pub mod hip;
#[allow(unsafe_code)]
pub mod instrument;
pub mod journal;
pub mod leaks;
pub mod mutation;
#[allow(unsafe_code)]
mod os;
pub mod panic;
pub mod registry;
#[allow(unsafe_code)]
pub mod shim;
pub mod violations;
pub mod visible;

pub use config::{
    AscendSoc, Config, ConfigError, HipVersion, MAX_DEVICES, Schedule, default_root, parse_bytes, profiles_in_force,
};
pub use core::{InstallError, install};
