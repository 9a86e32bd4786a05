//! `Ctx`: what an example-vendor check gets (feature `example-vendor`):
//! `impl Suite for vendor::Example` and the setup helpers, whose failures
//! read "setup: <call> returned <code>".
#![forbid(unsafe_code)]

use std::ffi::c_void;
use std::path::Path;

use vmmkit_sys::example::*;
use vmmkit_sys::vendor;

use super::table::Example;
use crate::backend::{self, BackendKind};
use crate::ctx::Suite;
use crate::outcome::Failure;

/// `Ok` for success, else a setup failure for `call`.
pub fn setup(call: &str, r: exResult) -> Result<(), Failure> {
    crate::ctx::setup::<ExResult>(call, r)
}

/// The context of one example-vendor check.
pub type Ctx = crate::ctx::Ctx<vendor::Example>;

impl Suite for vendor::Example {
    type Table = Example;

    fn table(backend: BackendKind, library: Option<&Path>) -> Result<Example, String> {
        backend::example_table(backend, library).map(Example::new)
    }

    /// A real library would answer `exInit(0)`.
    fn probe_real_device(cx: &Ctx) -> Result<(), Failure> {
        let r = ExResult(cx.example().exInit(0));
        if r.is_success() { Ok(()) } else { Err(Failure::NotSupported(format!("exInit(0) gave {r}"))) }
    }

    /// The example has one device.
    fn devices(_cx: &Ctx) -> Result<u32, Failure> {
        Ok(1)
    }

    fn missing_optional(_table: &Example) -> Vec<&'static str> {
        Vec::new()
    }
}

impl Ctx {
    /// The table.
    pub fn example(&self) -> Example {
        self.table()
    }

    /// `exInit(0)`.
    pub fn init(&self) -> Result<(), Failure> {
        setup("exInit(0)", self.example().exInit(0))
    }

    /// `exMemAlloc(size)`.
    pub fn alloc(&self, size: usize) -> Result<*mut c_void, Failure> {
        let mut p = std::ptr::null_mut();
        setup(&format!("exMemAlloc({size:#x})"), self.example().exMemAlloc(&mut p, size))?;
        Ok(p)
    }

    /// `exMemFree(p)`.
    pub fn free(&self, p: *mut c_void) -> Result<(), Failure> {
        setup("exMemFree", self.example().exMemFree(p))
    }
}
