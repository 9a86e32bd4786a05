//! `Example`: the calls of an [`ExampleApi`] table (feature
//! `example-vendor`), one method per C function, each returning what the
//! function returns. The methods take raw pointers because the checks pass
//! NULL and foreign values on purpose; they are `pub(crate)`: the contract
//! is the suite's.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::example::*;

/// An example-vendor table, with a method per entry point.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    api: ExampleApi,
}

/// Defines the methods from the function list (it has no optional functions).
macro_rules! methods {
    (
        required { $( $(#[$rm:meta])* $r:ident : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional {}
    ) => {
        impl Example {
            $(
                #[doc = concat!("`", stringify!($r), "`.")]
                pub(crate) fn $r(&self, $($ra: $rt),*) -> $rr {
                    // SAFETY: the table holds the backend's implementation of
                    // this C function with this signature; the arguments
                    // follow the module's contract.
                    unsafe { (self.api.$r)($($ra),*) }
                }
            )*
        }
    };
}

vmmkit_sys::example_functions!(methods {});

impl Example {
    /// Wraps a table.
    pub fn new(api: ExampleApi) -> Self {
        Self { api }
    }
}

/// Keeps `c_void` in scope for the list's signatures.
const _: Option<*mut c_void> = None;
