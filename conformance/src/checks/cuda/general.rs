//! CUDA-GEN: initialisation, the current context, error names (cuda.md §3.1).

use vmmkit_sys::cuda::*;

use crate::cuda::Ctx;
use crate::outcome::Failure;

/// CUDA-GEN-001: `cuInit` flags must be 0; `cuInit(0)` then works.
pub fn init_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let cuda = cx.cuda();
    cx.expect_code("cuInit(1)", cuda.cuInit(1))?;
    cx.expect_ok("cuInit(0) after", cuda.cuInit(0))
}

/// CUDA-GEN-002: after cuInit, with no context current on the thread, a
/// memory call is 201; with device 0's primary context current it works.
pub fn needs_context(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let cuda = cx.cuda();
    crate::cuda::setup("cuCtxSetCurrent(NULL)", cuda.cuCtxSetCurrent(std::ptr::null_mut()))?;
    let mut p = 0;
    cx.expect_code("cuMemAlloc(4096) without a context", cuda.cuMemAlloc(&mut p, 4096))?;
    cx.context(0)?;
    cx.expect_ok("cuMemAlloc(4096) with device 0's primary context", cuda.cuMemAlloc(&mut p, 4096))?;
    cx.free(p)
}

/// CUDA-GEN-003: cuGetErrorName and cuGetErrorString of an unknown code
/// are 1; of a known one, its name (`CUDA_ERROR_INVALID_VALUE`).
pub fn error_strings(cx: &mut Ctx) -> Result<(), Failure> {
    let cuda = cx.cuda();
    let (r, _) = cuda.error_name(4242);
    cx.expect_code("cuGetErrorName(4242)", r.0)?;
    let (r, _) = cuda.error_string(4242);
    cx.expect_code("cuGetErrorString(4242)", r.0)?;
    let (r, name) = cuda.error_name(CuResult::INVALID_VALUE.0);
    cx.expect_ok("cuGetErrorName(1)", r.0)?;
    let name = name.unwrap_or_default();
    cx.ensure("cuGetErrorName(1) text", name == "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_INVALID_VALUE", name)?;
    let (r, text) = cuda.error_string(CuResult::INVALID_VALUE.0);
    cx.expect_ok("cuGetErrorString(1)", r.0)?;
    cx.note(format!("cuGetErrorString(1) = {:?}", text.unwrap_or_default()));
    Ok(())
}
