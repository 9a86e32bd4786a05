//! The CUDA driver API at the `result` level: only what backend selection
//! needs for now (the CUDA dialect of the safe API comes with the CUDA issue).

use vmmkit_sys::cuda::{CuResult, CudaApi};

use crate::error::Error;

fn check(call: &'static str, rc: u32) -> Result<(), Error> {
    let code = CuResult(rc);
    if code.is_success() { Ok(()) } else { Err(Error::new(call, code, None)) }
}

/// `cuInit(flags)`: flags must be 0.
pub fn init(api: &CudaApi, flags: u32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check("cuInit", unsafe { (api.cuInit)(flags) })
}

/// `cuDeviceGetCount(&count)`.
pub fn device_get_count(api: &CudaApi) -> Result<i32, Error> {
    let mut n = 0;
    // SAFETY: `n` is a writable int.
    check("cuDeviceGetCount", unsafe { (api.cuDeviceGetCount)(&mut n) })?;
    Ok(n)
}
