//! The vmmkit emulator.

mod config;
mod os;
pub mod core;
pub mod mutation;
pub mod registry;

pub use config::{Config, ConfigError, MAX_DEVICES, default_root, parse_bytes};
