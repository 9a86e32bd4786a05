//! ACL-PEER: `aclrtDeviceCanAccessPeer`, `aclrtDeviceEnablePeerAccess`,
//! `aclrtDeviceDisablePeerAccess`.

use std::ptr;

use vmmkit_sys::acl::AclError;

use crate::acl::{Ctx, setup};
use crate::outcome::Failure;

/// [ACL-PEER-001](vmmkit_sys::acl::rules::PEER_001): device and peer equal.
pub fn can_access_same(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let mut can = -1;
    cx.expect_code("aclrtDeviceCanAccessPeer(0, 0)", cx.acl().aclrtDeviceCanAccessPeer(&mut can, 0, 0))
}

/// [ACL-PEER-002](vmmkit_sys::acl::rules::PEER_002): ids 64, a NULL output, and a peer below 64 that is no device.
pub fn can_access_bad_id(cx: &mut Ctx) -> Result<(), Failure> {
    let n = cx.device_count()? as i32;
    cx.device(0)?;
    let acl = cx.acl();
    let mut can = -1;
    cx.expect_code("aclrtDeviceCanAccessPeer(0, 64)", acl.aclrtDeviceCanAccessPeer(&mut can, 0, 64))?;
    cx.expect_code("aclrtDeviceCanAccessPeer(64, 0)", acl.aclrtDeviceCanAccessPeer(&mut can, 64, 0))?;
    cx.expect_code("aclrtDeviceCanAccessPeer(out NULL)", acl.aclrtDeviceCanAccessPeer(ptr::null_mut(), 0, 1))?;
    if n < 64 {
        cx.expect_code(
            &format!("aclrtDeviceCanAccessPeer(0, {n}) with {n} devices"),
            acl.aclrtDeviceCanAccessPeer(&mut can, 0, n),
        )?;
    }
    Ok(())
}

/// [ACL-PEER-003](vmmkit_sys::acl::rules::PEER_003): flags 1.
pub fn enable_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("aclrtDeviceEnablePeerAccess(1, flags 1)", cx.acl().aclrtDeviceEnablePeerAccess(1, 1))
}

/// [ACL-PEER-004](vmmkit_sys::acl::rules::PEER_004): enable and disable with no current device.
pub fn needs_device(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let acl = cx.acl();
    cx.expect_code("aclrtDeviceEnablePeerAccess(1, 0) with no current device", acl.aclrtDeviceEnablePeerAccess(1, 0))?;
    cx.expect_code("aclrtDeviceDisablePeerAccess(1) with no current device", acl.aclrtDeviceDisablePeerAccess(1))
}

/// [ACL-PEER-005](vmmkit_sys::acl::rules::PEER_005): peer equal to the current device.
pub fn enable_self(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("aclrtDeviceEnablePeerAccess(0) on device 0", cx.acl().aclrtDeviceEnablePeerAccess(0, 0))
}

/// [ACL-PEER-006](vmmkit_sys::acl::rules::PEER_006): on devices that cannot reach each other, enabling fails.
pub fn no_p2p(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut can = -1;
    setup("aclrtDeviceCanAccessPeer(0, 1)", acl.aclrtDeviceCanAccessPeer(&mut can, 0, 1))?;
    if can == 1 {
        return Err(Failure::NotSupported(
            "devices 0 and 1 can access each other (aclrtDeviceCanAccessPeer gives 1); the rule needs a chip without \
             P2P"
            .into(),
        ));
    }
    cx.expect_code("aclrtDeviceEnablePeerAccess(1) without P2P", acl.aclrtDeviceEnablePeerAccess(1, 0))
}

/// [ACL-PEER-007](vmmkit_sys::acl::rules::PEER_007): enabling access to device 1 twice.
pub fn enable_twice(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let first = acl.aclrtDeviceEnablePeerAccess(1, 0);
    if first == AclError::RT_FEATURE_NOT_SUPPORT {
        return Err(Failure::NotSupported("devices 0 and 1 have no P2P (the first enable returned 207000)".into()));
    }
    setup("aclrtDeviceEnablePeerAccess(1)", first)?;
    cx.expect_code("aclrtDeviceEnablePeerAccess(1) again", acl.aclrtDeviceEnablePeerAccess(1, 0))
}
