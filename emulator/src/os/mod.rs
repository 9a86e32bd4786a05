//! The operating-system layer: the only module of the core with `unsafe`
//! code (mmap, file objects, process identity).

pub mod arena;
pub mod lock;
pub mod object;
pub mod peek;
pub mod proc;
pub mod shared;
pub mod vm;
