//! The example vendor's C types and constants (`docs/adding-a-vendor.md`,
//! "The example vendor"; feature `example-vendor`).
#![allow(non_camel_case_types)]

/// `exResult`: what every function returns (a 4-byte `int`).
pub type exResult = i32;

/// `EX_MEM_GRANULE`: every size `exMemAlloc` takes is a multiple of it (2 MiB).
pub const EX_MEM_GRANULE: usize = 2 << 20;

const _: () = assert!(size_of::<exResult>() == 4);
