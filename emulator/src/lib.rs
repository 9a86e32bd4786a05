//! The vmmkit emulator.

pub mod acl;
mod config;
pub mod core;
pub mod cuda;
pub mod dialect;
pub mod faults;
pub mod fork;
pub mod hip;
pub mod instrument;
pub mod journal;
pub mod leaks;
pub mod mutation;
mod os;
pub mod panic;
pub mod registry;
pub mod shim;
pub mod violations;
pub mod visible;

pub use config::{
    AscendSoc, Config, ConfigError, HipVersion, MAX_DEVICES, Schedule, default_root, parse_bytes, profiles_in_force,
};
pub use core::{InstallError, install};
