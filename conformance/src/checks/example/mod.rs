//! The example vendor's checks (feature `example-vendor`), one module per
//! family of its rules (`docs/adding-a-vendor.md`, "The example vendor").
#![forbid(unsafe_code)]

pub mod fork;
pub mod mem;
