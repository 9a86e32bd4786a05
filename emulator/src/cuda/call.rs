//! The CUDA side of the call path of [`crate::dialect`]: its `Fail` and
//! `run`. Its codes and core-error table are in `codes.rs`. The driver API
//! has no "last error" of its own (that is the runtime's), so nothing else
//! is kept.

use vmmkit_sys::cuda::{CUresult, CuResult};
use vmmkit_sys::vendor::Cuda;

use crate::core::Emulator;
use crate::dialect;
pub(super) use crate::dialect::ensure;

dialect::aliases!(Cuda, CUresult);

/// The emulator. Every caller has passed [`super::context::initialised`]
/// (cuInit succeeded, so the emulator started) or is cuInit itself, which
/// maps the failure on its own.
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    let e = crate::core::emulator().map_err(|e| Fail::plain(CuResult::NOT_INITIALIZED, e.to_string()))?;
    e.see_as(crate::visible::MaskVendor::Cuda);
    Ok(e)
}
