//! The CUDA side of the call path of [`crate::dialect`]: its code type,
//! what a panic returns and its table of core errors. The driver API has no
//! "last error" of its own (that is the runtime's), so nothing else is kept.

use vmmkit_sys::cuda::{CUresult, CuResult};
use vmmkit_sys::rule::Rule;
use vmmkit_sys::vendor::Cuda;

use super::codes::{Op, code_for};
use crate::core::{CoreError, Emulator};
use crate::dialect::{self, Dialect};
pub(super) use crate::dialect::{ensure, get, put};

/// A failed CUDA call.
pub(super) type Fail = dialect::Fail<Cuda>;

impl Dialect for Cuda {
    type Op = Op;
    const PANIC: CuResult = CuResult::UNKNOWN;

    fn code_for(op: Op, err: &CoreError) -> (CuResult, Option<&'static Rule>) {
        code_for(op, err)
    }
}

/// Runs the body of entry point `name`.
pub(super) fn run(name: &str, body: impl FnOnce() -> Result<(), Fail>) -> CUresult {
    dialect::run::<Cuda>(name, body)
}

/// The emulator. Every caller has passed [`super::context::initialised`]
/// (cuInit succeeded, so the emulator started) or is cuInit itself, which
/// maps the failure on its own.
pub(super) fn emu() -> Result<&'static Emulator, Fail> {
    crate::core::emulator().map_err(|e| Fail::plain(CuResult::NOT_INITIALIZED, e.to_string()))
}
