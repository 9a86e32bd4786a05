//! `ExampleApi`: the example vendor's three functions (`docs/adding-a-vendor.md`,
//! "The example vendor"; feature `example-vendor`), as C function pointers.
#![allow(non_snake_case)]

use std::ffi::c_void;
use std::path::Path;

use super::types::*;
use crate::loader::{LibrarySpec, LoadError, Loaded};

/// Where a real `libexample.so` would be looked for (there is none: the
/// example exists only in the emulator): `VMMKIT_EXAMPLE_LIBRARY`, then the
/// soname.
pub const LIBRARY: LibrarySpec = LibrarySpec {
    vendor: "EX",
    path_env: "VMMKIT_EXAMPLE_LIBRARY",
    home_env: None,
    names: &["libexample.so"],
    default_dirs: &[],
    refused: &[],
};

/// Every example-vendor function, once, with its C signature, passed to
/// `$cb` after `$pre` (as `cuda_functions!`). The expansion site must have
/// `vmmkit_sys::example::*` and `std::ffi::c_void` in scope.
#[macro_export]
macro_rules! example_functions {
    ($cb:path { $($pre:tt)* }) => {
        $cb! {
            $($pre)*
            required {
                /// `flags` must be 0; nothing else works before it.
                exInit: fn(flags: u32) -> exResult;
                /// `size` a multiple of `EX_MEM_GRANULE` (EX-MEM-001); `ptr` not NULL (EX-MEM-002).
                exMemAlloc: fn(ptr: *mut *mut c_void, size: usize) -> exResult;
                /// `ptr` one that exMemAlloc returned (EX-MEM-003).
                exMemFree: fn(ptr: *mut c_void) -> exResult;
            }
            optional {}
        }
    };
}

crate::example_functions!(crate::api_table {
    /// The example vendor's functions, with their C signatures.
    pub struct ExampleApi;
});

impl ExampleApi {
    /// Loads `libexample.so` as [`LIBRARY`] describes, `explicit` first.
    ///
    /// # Errors
    /// A [`LoadError`] naming every path tried, or every missing symbol.
    #[allow(unsafe_code)] // the table from the loaded library
    pub fn load(explicit: Option<&Path>) -> Result<Loaded<Self>, LoadError> {
        crate::loader::load(&LIBRARY, explicit, |lib| {
            // SAFETY: a library found under the example's soname exports its
            // C ABI; it is leaked, so it outlives the table.
            unsafe { Self::from_library(lib) }
        })
    }
}
