//! ACL-VAL: stream-ordered value writes and waits.

use std::ffi::c_void;

use super::stream::{device_buffer, stream};
use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

/// The 8-byte word at `dev`, read back.
fn word(cx: &Ctx, dev: *mut c_void) -> Result<u64, Failure> {
    let b = cx.read(dev, 8)?;
    Ok(u64::from_le_bytes(b[..8].try_into().unwrap_or([0; 8])))
}

/// [ACL-VAL-001](vmmkit_sys::acl::rules::VAL_001): aclrtValueWrite with flag 1 and aclrtValueWait with flag 4
/// are refused and enqueue nothing: the word keeps the value of the valid
/// write before them.
pub fn bad_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let dev = device_buffer(cx, 64)?;
    let acl = cx.acl();
    cx.expect_ok("aclrtValueWrite(7, flag 0)", acl.aclrtValueWrite(dev, 7, 0, s)?)?;
    cx.expect_code("aclrtValueWrite(9, flag 1)", acl.aclrtValueWrite(dev, 9, 1, s)?)?;
    // Compared with 0, a wait that slipped through would not hold the stream.
    cx.expect_code("aclrtValueWait(0, flag 4)", acl.aclrtValueWait(dev, 0, 4, s)?)?;
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    let got = word(cx, dev)?;
    cx.ensure("the word after a refused write of 9", got == 7, 7, got)?;
    setup("aclrtFree", acl.aclrtFree(dev))?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}

/// [ACL-VAL-002](vmmkit_sys::acl::rules::VAL_002): a host address is refused by aclrtValueWrite and
/// aclrtValueWait; the host word is not written.
pub fn host_address(cx: &mut Ctx) -> Result<(), Failure> {
    let s = stream(cx)?;
    let acl = cx.acl();
    let mut host = vec![0u64; 1];
    let h = host.as_mut_ptr().cast::<c_void>();
    cx.expect_code("aclrtValueWrite(host address)", acl.aclrtValueWrite(h, 5, 0, s)?)?;
    cx.expect_code("aclrtValueWait(host address)", acl.aclrtValueWait(h, 0, 0, s)?)?;
    // The host word must outlive anything that slipped through.
    setup("aclrtSynchronizeStream", acl.aclrtSynchronizeStream(s))?;
    cx.ensure("the host word after the refused write", host[0] == 0, 0, host[0])?;
    cx.expect_ok("aclrtDestroyStream", acl.aclrtDestroyStream(s))
}
