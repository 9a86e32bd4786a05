//! `Ctx`: what an example-vendor check gets (feature `example-vendor`):
//! `impl Suite for vendor::Example` (only facts: how to probe a real
//! library, how many devices) and the setup helpers, whose failures
//! read "setup: <call> returned <code>".
#![forbid(unsafe_code)]

use std::ffi::c_void;

use vmmkit_sys::example::*;
use vmmkit_sys::vendor;

use super::table::Example;
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

    /// A real library would answer `exInit(0)`.
    fn probe(ex: &Example) -> Result<(), String> {
        let r = ExResult(ex.exInit(0));
        if r.is_success() { Ok(()) } else { Err(format!("exInit(0) gave {r}")) }
    }

    /// The example has one device.
    fn devices(_cx: &Ctx) -> Result<u32, Failure> {
        Ok(1)
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
