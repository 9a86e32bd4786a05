//! HIP at the `result` level: only what backend selection needs for now (the
//! HIP dialect of the safe API comes with the HIP issue).

use vmmkit_sys::hip::{HipApi, HipError};

use crate::error::Error;

fn check(call: &'static str, rc: i32) -> Result<(), Error> {
    let code = HipError(rc);
    if code.is_success() { Ok(()) } else { Err(Error::new(call, code, None)) }
}

/// `hipInit(flags)`.
pub fn init(api: &HipApi, flags: u32) -> Result<(), Error> {
    // SAFETY: a value argument.
    check("hipInit", unsafe { (api.hipInit)(flags) })
}

/// `hipGetDeviceCount(&count)`: fails with 100 (`hipErrorNoDevice`) when there is none.
pub fn get_device_count(api: &HipApi) -> Result<i32, Error> {
    let mut n = 0;
    // SAFETY: `n` is a writable int.
    check("hipGetDeviceCount", unsafe { (api.hipGetDeviceCount)(&mut n) })?;
    Ok(n)
}
