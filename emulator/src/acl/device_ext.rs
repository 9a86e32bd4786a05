//! Device capabilities and UUID, the task scheduler
//! choice, compute groups (an emulated device has none) and exception-info
//! callbacks (an emulated device raises no device exception, so none is
//! ever called and no `aclrtExceptionInfo` exists).
//!
//! Sources: hicann/runtime@681ef76, cited per function; see docs/acl-runtime.md.
#![allow(non_snake_case)]

use std::collections::HashSet;
use std::ffi::c_void;
use std::sync::Mutex;

use vmmkit_sys::acl::*;

use super::call::{non_null, Fail, emu, run};
use crate::ffi::Out;
use super::device::{device_id, server_id};
use super::state::lock;

/// `aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value)`:
/// AI cores 24, vector cores 48, L2 192 MiB (as aclrtGetDeviceInfo). A
/// device id out of range and an undefined kind are 100000: this front-end
/// function checks both itself (acl.cpp:1355-1389).
pub extern "C" fn aclGetDeviceCapability(deviceId: u32, deviceInfo: aclDeviceInfo, value: Out<'_, i64>) -> aclError {
    run("aclGetDeviceCapability", || {
        non_null(value, "value")?;
        let n = emu()?.device_count();
        if deviceId >= n {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("deviceId {deviceId} is not below {n}")));
        }
        let v = match deviceInfo {
            ACL_DEVICE_INFO_AI_CORE_NUM => 24,
            ACL_DEVICE_INFO_VECTOR_CORE_NUM => 48,
            ACL_DEVICE_INFO_L2_SIZE => 192 << 20,
            other => return Err(Fail::plain(AclError::INVALID_PARAM, format!("deviceInfo {other} is not defined"))),
        };
        value.write(v)?;
        Ok(())
    })
}

/// `aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)`:
/// `ACL_DEV_FEATURE_NOT_SUPPORT` for both features (task update on the
/// device's scheduler CPU, memory-queue events across devices: device-side
/// features the emulator has not); an undefined feature is 107000.
pub extern "C" fn aclrtGetDeviceCapability(
    deviceId: i32,
    devFeatureType: aclrtDevFeatureType,
    value: Out<'_, i32>,
) -> aclError {
    run("aclrtGetDeviceCapability", || {
        non_null(value, "value")?;
        device_id(deviceId)?;
        if ![ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV]
            .contains(&devFeatureType)
        {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("feature {devFeatureType} is not defined")));
        }
        value.write(ACL_DEV_FEATURE_NOT_SUPPORT)?;
        Ok(())
    })
}

/// `aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid)`: `VMMKIT`,
/// two zero bytes, the emulated server id and the physical device id
/// (little-endian; [ACL-GEN-011](vmmkit_sys::acl::rules::GEN_011): the same whatever the process's visible list):
/// stable for a device of one emulated machine, different across them.
pub extern "C" fn aclrtDeviceGetUuid(deviceId: i32, uuid: Out<'_, aclrtUuid>) -> aclError {
    run("aclrtDeviceGetUuid", || {
        non_null(uuid, "uuid")?;
        let d = device_id(deviceId)?;
        let d = emu()?.visible().physical(d).unwrap_or(d);
        let mut bytes = [0u8; 16];
        bytes[..6].copy_from_slice(b"VMMKIT");
        bytes[8..12].copy_from_slice(&server_id().to_le_bytes());
        bytes[12..].copy_from_slice(&d.to_le_bytes());
        uuid.write(aclrtUuid { bytes: bytes.map(|b| b as std::ffi::c_char) })?;
        Ok(())
    })
}

/// `aclError aclrtSetTsDevice(aclrtTsId tsId)`: AICORE or AIVECTOR, 100000
/// otherwise (device.cpp:186-200); the emulator schedules both alike.
pub extern "C" fn aclrtSetTsDevice(tsId: aclrtTsId) -> aclError {
    run("aclrtSetTsDevice", || {
        if tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("tsId {tsId} is not AICORE or AIVECTOR")));
        }
        emu()?;
        Ok(())
    })
}

// ---- Compute groups: an emulated device has none ----

/// `aclError aclrtGetGroupCount(uint32_t *count)`: 0 (group.cpp:77-86).
pub extern "C" fn aclrtGetGroupCount(count: Out<'_, u32>) -> aclError {
    run("aclrtGetGroupCount", || {
        non_null(count, "count")?;
        super::call::current_device()?;
        count.write(0)?;
        Ok(())
    })
}

/// `aclrtGroupInfo *aclrtCreateGroupInfo(void)`: NULL, as CANN answers when
/// the group count is 0 (group.cpp:88-105).
pub extern "C" fn aclrtCreateGroupInfo() -> *mut aclrtGroupInfo {
    crate::core::thread::set_message("aclrtCreateGroupInfo: the device has no compute group (count 0): NULL");
    std::ptr::null_mut()
}

/// `aclError aclrtDestroyGroupInfo(aclrtGroupInfo *groupInfo)`: none can
/// exist, so any pointer is 100000 (NULL as in group.cpp:107-116).
pub extern "C" fn aclrtDestroyGroupInfo(groupInfo: *mut aclrtGroupInfo) -> aclError {
    run("aclrtDestroyGroupInfo", || no_group_info(groupInfo))
}

/// 100000: `info` is NULL, or not a group info (none is ever made).
fn no_group_info(info: *const aclrtGroupInfo) -> Result<(), Fail> {
    non_null(info, "groupInfo")?;
    Err(Fail::plain(AclError::INVALID_PARAM, format!("{info:p} is not a group info: the device has no group")))
}

/// `aclError aclrtGetAllGroupInfo(aclrtGroupInfo *groupInfo)`: as aclrtDestroyGroupInfo.
pub extern "C" fn aclrtGetAllGroupInfo(groupInfo: *mut aclrtGroupInfo) -> aclError {
    run("aclrtGetAllGroupInfo", || no_group_info(groupInfo))
}

/// `aclError aclrtGetGroupInfoDetail(const aclrtGroupInfo *groupInfo, int32_t groupIndex, aclrtGroupAttr attr,
/// void *attrValue, size_t valueLen, size_t *paramRetSize)`: as aclrtDestroyGroupInfo.
pub extern "C" fn aclrtGetGroupInfoDetail(
    groupInfo: *const aclrtGroupInfo,
    groupIndex: i32,
    attr: aclrtGroupAttr,
    attrValue: *mut c_void,
    valueLen: usize,
    paramRetSize: *mut usize,
) -> aclError {
    let _ = (groupIndex, attr, attrValue, valueLen, paramRetSize); // no group to describe
    run("aclrtGetGroupInfoDetail", || no_group_info(groupInfo))
}

/// `aclError aclrtSetGroup(int32_t groupId)`: 107014
/// `ACL_ERROR_RT_GROUP_NOT_CREATE`: no group exists (vmmkit's reading of the
/// runtime's answer on a device without groups).
pub extern "C" fn aclrtSetGroup(groupId: i32) -> aclError {
    run("aclrtSetGroup", || {
        super::call::current_device()?;
        Err(Fail::plain(AclError::RT_GROUP_NOT_CREATE, format!("group {groupId}: the device has no compute group")))
    })
}

// ---- Exception information: never raised on the emulator ----

/// The exception callbacks registered (aclrtExceptionInfoCallbackRegister
/// and aclrtSetExceptionInfoCallback's), by address. Kept, never called.
/// Process-global, not in the ACL state of the emulator: a program may
/// register them before aclInit, and registering needs no root.
static EXCEPTION_CALLBACKS: Mutex<Option<HashSet<usize>>> = Mutex::new(None);

/// `aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)`:
/// the module's callback (NULL removes it) (callback.cpp:45-51).
pub extern "C" fn aclrtSetExceptionInfoCallback(callback: aclrtExceptionInfoCallback) -> aclError {
    run("aclrtSetExceptionInfoCallback", || {
        let mut set = lock(&EXCEPTION_CALLBACKS);
        let set = set.get_or_insert_with(HashSet::new);
        if let Some(cb) = callback {
            set.insert(cb as usize);
        }
        Ok(())
    })
}

/// `aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)`:
/// NULL is 107000 (callback.cpp:53-60).
pub extern "C" fn aclrtExceptionInfoCallbackRegister(callback: aclrtExceptionInfoCallback) -> aclError {
    run("aclrtExceptionInfoCallbackRegister", || {
        let Some(cb) = callback else {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, "callback is NULL".into()));
        };
        lock(&EXCEPTION_CALLBACKS).get_or_insert_with(HashSet::new).insert(cb as usize);
        Ok(())
    })
}

/// `aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)`:
/// NULL is 107000 (callback.cpp:62-68).
pub extern "C" fn aclrtExceptionInfoCallbackUnregister(callback: aclrtExceptionInfoCallback) -> aclError {
    run("aclrtExceptionInfoCallbackUnregister", || {
        let Some(cb) = callback else {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, "callback is NULL".into()));
        };
        if let Some(set) = lock(&EXCEPTION_CALLBACKS).as_mut() {
            set.remove(&(cb as usize));
        }
        Ok(())
    })
}

/// What the exception-info getters answer for any `info`: CANN's
/// `ACL_ERROR_INVALID_EXCEPTION_INFO` (0xFFFFFFFF, callback.cpp:23, 76-104)
/// for NULL; the emulator makes no exception info, so any other pointer is
/// not one either.
const INVALID_EXCEPTION_INFO: u32 = 0xFFFF_FFFF;

fn no_exception_info(api: &str, info: *const aclrtExceptionInfo) -> u32 {
    crate::core::thread::set_message(&format!(
        "{api}: {info:p} is not an exception info (the emulator raises no device exception)"
    ));
    INVALID_EXCEPTION_INFO
}

/// One exception-info getter per name: `uint32_t NAME(const aclrtExceptionInfo *info)`.
macro_rules! exception_getters {
    ($($name:ident),* $(,)?) => {
        $(
            #[doc = concat!("`uint32_t ", stringify!($name), "(const aclrtExceptionInfo *info)`: 0xFFFFFFFF, no info exists.")]
            pub extern "C" fn $name(info: *const aclrtExceptionInfo) -> u32 {
                no_exception_info(stringify!($name), info)
            }
        )*
    };
}

exception_getters!(
    aclrtGetTaskIdFromExceptionInfo,
    aclrtGetStreamIdFromExceptionInfo,
    aclrtGetThreadIdFromExceptionInfo,
    aclrtGetDeviceIdFromExceptionInfo,
    aclrtGetErrorCodeFromExceptionInfo,
);

/// `aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr, uint32_t *devArgsLen)`:
/// `ACL_ERROR_INVALID_EXCEPTION_INFO` as an `aclError` (callback.cpp:106-110).
pub extern "C" fn aclrtGetArgsFromExceptionInfo(
    info: *const aclrtExceptionInfo,
    devArgsPtr: *mut *mut c_void,
    devArgsLen: *mut u32,
) -> aclError {
    let _ = (devArgsPtr, devArgsLen); // nothing to write: no info exists
    no_exception_info("aclrtGetArgsFromExceptionInfo", info) as aclError
}

/// `aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)`:
/// cube, vector and AICPU 0 (no kernel runs on an emulated device), memory
/// -1 (not supported, as CANN: device.cpp:26, 203-219); NULL, or a non-NULL
/// reserved `utilizationExtend`, is 100000.
pub extern "C" fn aclrtGetDeviceUtilizationRate(deviceId: i32, utilizationInfo: Out<'_, aclrtUtilizationInfo>) -> aclError {
    run("aclrtGetDeviceUtilizationRate", || {
        non_null(utilizationInfo, "utilizationInfo")?;
        let mut info = utilizationInfo.read()?;
        if !info.utilizationExtend.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "utilizationExtend is reserved and must be NULL".into()));
        }
        device_id(deviceId)?;
        (info.cubeUtilization, info.vectorUtilization, info.aicpuUtilization, info.memoryUtilization) = (0, 0, 0, -1);
        utilizationInfo.write(info)?;
        Ok(())
    })
}

/// Writes 0 (no capability) for each of `count` operations: atomics are
/// issued by device code, which the emulator does not run. NULL arrays with
/// a count are 107000 (the runtime's check); the device ids are checked.
fn no_atomics(capabilities: Out<'_, u32>, operations: *const aclrtAtomicOperation, count: u32, devices: &[i32]) -> Result<(), Fail> {
    if count > 0 && (capabilities.is_null() || operations.is_null()) {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, "capabilities or operations is NULL".into()));
    }
    for d in devices {
        device_id(*d)?;
    }
    // The caller's array holds `count` entries (the C contract).
    capabilities.write_slice(&vec![0; count as usize])?;
    Ok(())
}

/// `aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
/// const uint32_t count, int32_t deviceId)`: 0 for every operation (device.cpp:334-346).
pub extern "C" fn aclrtDeviceGetHostAtomicCapabilities(
    capabilities: Out<'_, u32>,
    operations: *const aclrtAtomicOperation,
    count: u32,
    deviceId: i32,
) -> aclError {
    run("aclrtDeviceGetHostAtomicCapabilities", || no_atomics(capabilities, operations, count, &[deviceId]))
}

/// `aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
/// const uint32_t count, int32_t srcDeviceId, int32_t dstDeviceId)`: 0 for every operation (device.cpp:348-363).
pub extern "C" fn aclrtDeviceGetP2PAtomicCapabilities(
    capabilities: Out<'_, u32>,
    operations: *const aclrtAtomicOperation,
    count: u32,
    srcDeviceId: i32,
    dstDeviceId: i32,
) -> aclError {
    run("aclrtDeviceGetP2PAtomicCapabilities", || {
        no_atomics(capabilities, operations, count, &[srcDeviceId, dstDeviceId])
    })
}
