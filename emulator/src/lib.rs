//! The vmmkit emulator.

mod config;

pub use config::{Config, ConfigError, MAX_DEVICES, default_root, parse_bytes};
