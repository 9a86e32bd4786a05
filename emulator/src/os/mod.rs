//! The operating-system layer: mappings, file objects, process identity.
//! The crate denies `unsafe` at its root and allows it here and in the few
//! other modules that meet C or the kernel (`lib.rs`, `core/mod.rs` list
//! them).

pub mod arena;
pub mod lock;
pub mod object;
pub mod peek;
pub mod proc;
pub mod shared;
pub mod vm;
