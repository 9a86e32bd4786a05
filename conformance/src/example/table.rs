//! `Example`: the calls of an [`ExampleApi`] table (feature
//! `example-vendor`), one method per C function (see [`crate::calls`]).
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::example::*;

vmmkit_sys::example_functions!(crate::calls::calls {
    /// An example-vendor table, with a method per entry point.
    Example(ExampleApi);
});
crate::calls::returns_as_is!(Example);

/// Keeps `c_void` in scope for the list's signatures.
const _: Option<*mut c_void> = None;
