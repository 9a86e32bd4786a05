//! The example dialect's side of the call path of [`crate::dialect`]
//! (feature `example-vendor`): its `Fail`, `run` and `emu`.

use vmmkit_sys::example::{ExResult, exResult};
use vmmkit_sys::vendor::Example;

use crate::core::Emulator;
use crate::dialect;
pub(super) use crate::dialect::ensure;

dialect::aliases!(Example, exResult);

/// The emulator, once `exInit(0)` succeeded in this process (3 before).
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    match crate::core::running() {
        Some(e) if super::state::state(e).initialised() => Ok(e),
        _ => Err(Fail::plain(ExResult::NOT_INITIALIZED, "exInit(0) has not succeeded in this process".into())),
    }
}
