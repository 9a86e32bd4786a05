//! `exInit` (feature `example-vendor`).
#![allow(non_snake_case)]

use vmmkit_sys::example::*;

use super::call::{Fail, run};

/// `exResult exInit(unsigned int flags)`: flags must be 0 (1); starts the
/// emulator (no emulator: 3, with the reason). May be called again.
pub extern "C" fn exInit(flags: u32) -> exResult {
    run("exInit", || {
        if flags != 0 {
            return Err(Fail::plain(ExResult::INVALID_VALUE, format!("flags must be 0, got {flags}")));
        }
        let e = crate::core::emulator().map_err(|e| Fail::plain(ExResult::NOT_INITIALIZED, e.to_string()))?;
        super::state::state(e).set_initialised();
        Ok(())
    })
}
