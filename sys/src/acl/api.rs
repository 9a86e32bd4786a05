//! `AclApi`: the ACL entry points of reference acl.md §1.2, as C function pointers.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::path::Path;

use super::types::*;
use crate::loader::{LibrarySpec, LoadError, Loaded};

/// Where `libascendcl.so` is looked for: `VMMKIT_ACL_LIBRARY` (a file), then
/// `$ASCEND_HOME_PATH/{lib64,runtime/lib64}`, then the loader's search path,
/// then the CANN toolkit's default prefix.
pub const LIBRARY: LibrarySpec = LibrarySpec {
    vendor: "ACL",
    path_env: "VMMKIT_ACL_LIBRARY",
    home_env: Some(("ASCEND_HOME_PATH", &["lib64", "runtime/lib64"])),
    names: &["libascendcl.so"],
    default_dirs: &["/usr/local/Ascend/ascend-toolkit/latest/lib64"],
    refused: &[],
};

/// Every ACL function of reference acl.md §1.2, once, with its C signature and
/// parameter names, passed to `$cb` after `$pre`. [`AclApi`] is one
/// expansion; the emulator's drop-in `libascendcl.so` is another. The
/// expansion site must have `vmmkit_sys::acl::*` and `std::ffi::{c_char,
/// c_void}` in scope.
#[macro_export]
macro_rules! acl_functions {
    ($cb:path { $($pre:tt)* }) => {
        $cb! {
            $($pre)*
            required {
                aclInit: fn(configPath: *const c_char) -> aclError;
                aclFinalize: fn() -> aclError;
                aclrtSetDevice: fn(deviceId: i32) -> aclError;
                aclrtResetDevice: fn(deviceId: i32) -> aclError;
                aclrtResetDeviceForce: fn(deviceId: i32) -> aclError;
                aclrtGetDevice: fn(deviceId: *mut i32) -> aclError;
                aclrtGetDeviceCount: fn(count: *mut u32) -> aclError;
                aclrtCreateContext: fn(context: *mut aclrtContext, deviceId: i32) -> aclError;
                aclrtSetCurrentContext: fn(context: aclrtContext) -> aclError;
                aclrtGetCurrentContext: fn(context: *mut aclrtContext) -> aclError;
                aclrtCreateStream: fn(stream: *mut aclrtStream) -> aclError;
                aclrtDestroyStream: fn(stream: aclrtStream) -> aclError;
                aclrtDestroyStreamForce: fn(stream: aclrtStream) -> aclError;
                aclrtSynchronizeStream: fn(stream: aclrtStream) -> aclError;
                aclrtSynchronizeDevice: fn() -> aclError;
                aclrtGetSocName: fn() -> *const c_char;
                aclGetRecentErrMsg: fn() -> *const c_char;

                aclrtMallocHost: fn(hostPtr: *mut *mut c_void, size: usize) -> aclError;
                aclrtFreeHost: fn(hostPtr: *mut c_void) -> aclError;
                aclrtMemcpy: fn(dst: *mut c_void, destMax: usize, src: *const c_void, count: usize, kind: aclrtMemcpyKind) -> aclError;
                aclrtMemcpyAsync: fn(dst: *mut c_void, destMax: usize, src: *const c_void, count: usize, kind: aclrtMemcpyKind, stream: aclrtStream) -> aclError;
                aclrtMemset: fn(devPtr: *mut c_void, maxCount: usize, value: i32, count: usize) -> aclError;
                aclrtMalloc: fn(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> aclError;
                aclrtFree: fn(devPtr: *mut c_void) -> aclError;
                aclrtGetMemInfo: fn(attr: aclrtMemAttr, free: *mut usize, total: *mut usize) -> aclError;
                aclrtPointerGetAttributes: fn(ptr: *const c_void, attributes: *mut aclrtPtrAttributes) -> aclError;

                aclrtMemGetAllocationGranularity: fn(prop: *mut aclrtPhysicalMemProp, option: aclrtMemGranularityOptions, granularity: *mut usize) -> aclError;
                aclrtMallocPhysical: fn(handle: *mut aclrtDrvMemHandle, size: usize, prop: *const aclrtPhysicalMemProp, flags: u64) -> aclError;
                aclrtFreePhysical: fn(handle: aclrtDrvMemHandle) -> aclError;
                aclrtReserveMemAddress: fn(virPtr: *mut *mut c_void, size: usize, alignment: usize, expectPtr: *mut c_void, flags: u64) -> aclError;
                aclrtReleaseMemAddress: fn(virPtr: *mut c_void) -> aclError;
                aclrtMapMem: fn(virPtr: *mut c_void, size: usize, offset: usize, handle: aclrtDrvMemHandle, flags: u64) -> aclError;
                aclrtUnmapMem: fn(virPtr: *mut c_void) -> aclError;
                aclrtMemSetAccess: fn(virPtr: *mut c_void, size: usize, desc: *mut aclrtMemAccessDesc, count: usize) -> aclError;
                aclrtMemGetAccess: fn(virPtr: *mut c_void, location: *mut aclrtMemLocation, flag: *mut u64) -> aclError;
                aclrtMemRetainAllocationHandle: fn(virPtr: *mut c_void, handle: *mut aclrtDrvMemHandle) -> aclError;
                aclrtMemGetAllocationPropertiesFromHandle: fn(handle: aclrtDrvMemHandle, prop: *mut aclrtPhysicalMemProp) -> aclError;

                aclrtMemExportToShareableHandle: fn(handle: aclrtDrvMemHandle, handleType: aclrtMemHandleType, flags: u64, shareableHandle: *mut u64) -> aclError;
                aclrtMemSetPidToShareableHandle: fn(shareableHandle: u64, pid: *mut i32, pidNum: usize) -> aclError;
                aclrtMemImportFromShareableHandle: fn(shareableHandle: u64, deviceId: i32, handle: *mut aclrtDrvMemHandle) -> aclError;
                aclrtDeviceGetBareTgid: fn(pid: *mut i32) -> aclError;

                aclrtDeviceCanAccessPeer: fn(canAccessPeer: *mut i32, deviceId: i32, peerDeviceId: i32) -> aclError;
                aclrtDeviceEnablePeerAccess: fn(peerDeviceId: i32, flags: u32) -> aclError;
                aclrtDeviceDisablePeerAccess: fn(peerDeviceId: i32) -> aclError;

                aclrtIpcMemGetExportKey: fn(devPtr: *mut c_void, size: usize, key: *mut c_char, len: usize, flags: u64) -> aclError;
                aclrtIpcMemSetImportPid: fn(key: *const c_char, pid: *mut i32, num: usize) -> aclError;
                aclrtIpcMemImportByKey: fn(devPtr: *mut *mut c_void, key: *const c_char, flags: u64) -> aclError;
                aclrtIpcMemClose: fn(key: *const c_char) -> aclError;
        }
            optional {
                /// Not in every CANN release; `vmmkit doctor` uses it for the version line.
                aclrtGetVersion: fn(majorVersion: *mut i32, minorVersion: *mut i32, patchVersion: *mut i32) -> aclError;
                aclrtGetLogicDevIdByUserDevId: fn(userDevid: i32, logicDevId: *mut i32) -> aclError;
                aclrtGetPhyDevIdByLogicDevId: fn(logicDevId: i32, phyDevId: *mut i32) -> aclError;
                aclrtReserveMemAddressNoUCMemory: fn(virPtr: *mut *mut c_void, size: usize, alignment: usize, expectPtr: *mut c_void, flags: u64) -> aclError;
                aclrtMemMapNoAccess: fn(virPtr: *mut c_void, size: usize, offset: usize, handle: aclrtDrvMemHandle, flags: u64) -> aclError;
                aclrtMemGetAddressRange: fn(ptr: *mut c_void, pbase: *mut *mut c_void, psize: *mut usize) -> aclError;
                aclrtMemExportToShareableHandleV2: fn(handle: aclrtDrvMemHandle, flags: u64, shareType: aclrtMemSharedHandleType, shareableHandle: *mut c_void) -> aclError;
                aclrtMemSetPidToShareableHandleV2: fn(shareableHandle: *mut c_void, shareType: aclrtMemSharedHandleType, pid: *mut i32, pidNum: usize) -> aclError;
                aclrtMemImportFromShareableHandleV2: fn(shareableHandle: *mut c_void, shareType: aclrtMemSharedHandleType, flags: u64, handle: *mut aclrtDrvMemHandle) -> aclError;
                aclrtDevicePeerAccessStatus: fn(deviceId: i32, peerDeviceId: i32, status: *mut i32) -> aclError;

                // ---- Streams and events ----
                aclrtSynchronizeStreamWithTimeout: fn(stream: aclrtStream, timeout: i32) -> aclError;
                aclrtStreamQuery: fn(stream: aclrtStream, status: *mut aclrtStreamStatus) -> aclError;
                aclrtSynchronizeDeviceWithTimeout: fn(timeout: i32) -> aclError;
                aclrtStreamWaitEvent: fn(stream: aclrtStream, event: aclrtEvent) -> aclError;
                aclrtCreateEvent: fn(event: *mut aclrtEvent) -> aclError;
                aclrtCreateEventWithFlag: fn(event: *mut aclrtEvent, flag: u32) -> aclError;
                aclrtCreateEventExWithFlag: fn(event: *mut aclrtEvent, flag: u32) -> aclError;
                aclrtDestroyEvent: fn(event: aclrtEvent) -> aclError;
                aclrtRecordEvent: fn(event: aclrtEvent, stream: aclrtStream) -> aclError;
                aclrtResetEvent: fn(event: aclrtEvent, stream: aclrtStream) -> aclError;
                aclrtQueryEvent: fn(event: aclrtEvent, status: *mut aclrtEventStatus) -> aclError;
                aclrtQueryEventStatus: fn(event: aclrtEvent, status: *mut aclrtEventRecordedStatus) -> aclError;
                aclrtQueryEventWaitStatus: fn(event: aclrtEvent, status: *mut aclrtEventWaitStatus) -> aclError;
                aclrtSynchronizeEvent: fn(event: aclrtEvent) -> aclError;
                aclrtSynchronizeEventWithTimeout: fn(event: aclrtEvent, timeout: i32) -> aclError;
                aclrtEventElapsedTime: fn(ms: *mut f32, startEvent: aclrtEvent, endEvent: aclrtEvent) -> aclError;
                aclrtMemsetAsync: fn(devPtr: *mut c_void, maxCount: usize, value: i32, count: usize, stream: aclrtStream) -> aclError;
                aclrtMemcpy2d: fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: aclrtMemcpyKind) -> aclError;
                aclrtMemcpy2dAsync: fn(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: aclrtMemcpyKind, stream: aclrtStream) -> aclError;

                // ---- Shared events and notifies (ipc) ----
                aclrtCreateNotify: fn(notify: *mut aclrtNotify, flag: u64) -> aclError;
                aclrtDestroyNotify: fn(notify: aclrtNotify) -> aclError;
                aclrtRecordNotify: fn(notify: aclrtNotify, stream: aclrtStream) -> aclError;
                aclrtWaitAndResetNotify: fn(notify: aclrtNotify, stream: aclrtStream, timeout: u32) -> aclError;
                aclrtGetNotifyId: fn(notify: aclrtNotify, notifyId: *mut u32) -> aclError;
                aclrtNotifyGetExportKey: fn(notify: aclrtNotify, key: *mut c_char, len: usize, flags: u64) -> aclError;
                aclrtNotifyImportByKey: fn(notify: *mut aclrtNotify, key: *const c_char, flags: u64) -> aclError;
                aclrtNotifySetImportPid: fn(notify: aclrtNotify, pid: *mut i32, num: usize) -> aclError;
                aclrtNotifySetImportPidInterServer: fn(notify: aclrtNotify, serverPids: *mut aclrtServerPid, num: usize) -> aclError;
                aclrtIpcGetEventHandle: fn(event: aclrtEvent, handle: *mut aclrtIpcEventHandle) -> aclError;
                aclrtIpcOpenEventHandle: fn(handle: aclrtIpcEventHandle, event: *mut aclrtEvent) -> aclError;

                // Devices, contexts, streams, events
                aclrtGetRunMode: fn(runMode: *mut aclrtRunMode) -> aclError;
                aclrtGetDeviceInfo: fn(deviceId: u32, attr: aclrtDevAttr, value: *mut i64) -> aclError;
                aclrtGetLogicDevIdByPhyDevId: fn(phyDevId: i32, logicDevId: *mut i32) -> aclError;
                aclrtGetPhyDevIdByUserDevId: fn(userDevId: i32, phyDevId: *mut i32) -> aclError;
                aclrtGetUserDevIdByLogicDevId: fn(logicDevId: i32, userDevid: *mut i32) -> aclError;
                aclrtGetUserDevIdByPhyDevId: fn(phyDevId: i32, userDevId: *mut i32) -> aclError;
                aclrtDeviceGetStreamPriorityRange: fn(leastPriority: *mut i32, greatestPriority: *mut i32) -> aclError;
                aclrtDeviceGetLimit: fn(limit: aclrtDeviceLimit, value: *mut usize) -> aclError;
                aclrtDeviceSetLimit: fn(limit: aclrtDeviceLimit, value: usize) -> aclError;
                aclrtGetDeviceResLimit: fn(deviceId: i32, type_: aclrtDevResLimitType, value: *mut u32) -> aclError;
                aclrtSetDeviceResLimit: fn(deviceId: i32, type_: aclrtDevResLimitType, value: u32) -> aclError;
                aclrtResetDeviceResLimit: fn(deviceId: i32) -> aclError;
                aclrtQueryDeviceStatus: fn(deviceId: i32, deviceStatus: *mut aclrtDeviceStatus) -> aclError;
                aclrtSetDeviceSatMode: fn(mode: aclrtFloatOverflowMode) -> aclError;
                aclrtGetDeviceSatMode: fn(mode: *mut aclrtFloatOverflowMode) -> aclError;
                aclrtDestroyContext: fn(context: aclrtContext) -> aclError;
                aclrtGetPrimaryCtxState: fn(deviceId: i32, flags: *mut u32, active: *mut i32) -> aclError;
                aclrtCtxGetSysParamOpt: fn(opt: aclSysParamOpt, value: *mut i64) -> aclError;
                aclrtCtxSetSysParamOpt: fn(opt: aclSysParamOpt, value: i64) -> aclError;
                aclrtGetSysParamOpt: fn(opt: aclSysParamOpt, value: *mut i64) -> aclError;
                aclrtSetSysParamOpt: fn(opt: aclSysParamOpt, value: i64) -> aclError;
                aclrtCreateStreamWithConfig: fn(stream: *mut aclrtStream, priority: u32, flag: u32) -> aclError;
                aclrtCtxGetCurrentDefaultStream: fn(stream: *mut aclrtStream) -> aclError;
                aclrtStreamGetPriority: fn(stream: aclrtStream, priority: *mut u32) -> aclError;
                aclrtStreamGetFlags: fn(stream: aclrtStream, flags: *mut u32) -> aclError;
                aclrtStreamGetId: fn(stream: aclrtStream, streamId: *mut i32) -> aclError;
                aclrtStreamAbort: fn(stream: aclrtStream) -> aclError;
                aclrtSetStreamFailureMode: fn(stream: aclrtStream, mode: u64) -> aclError;
                aclrtGetStreamOverflowSwitch: fn(stream: aclrtStream, flag: *mut u32) -> aclError;
                aclrtSetStreamOverflowSwitch: fn(stream: aclrtStream, flag: u32) -> aclError;
                aclrtGetStreamAvailableNum: fn(streamCount: *mut u32) -> aclError;
                aclrtGetStreamResLimit: fn(stream: aclrtStream, type_: aclrtDevResLimitType, value: *mut u32) -> aclError;
                aclrtSetStreamResLimit: fn(stream: aclrtStream, type_: aclrtDevResLimitType, value: u32) -> aclError;
                aclrtResetStreamResLimit: fn(stream: aclrtStream) -> aclError;
                aclrtGetEventId: fn(event: aclrtEvent, eventId: *mut u32) -> aclError;
                aclrtGetEventAvailNum: fn(eventCount: *mut u32) -> aclError;
                aclrtValueWrite: fn(devAddr: *mut c_void, value: u64, flag: u32, stream: aclrtStream) -> aclError;
                aclrtValueWait: fn(devAddr: *mut c_void, value: u64, flag: u32, stream: aclrtStream) -> aclError;
                aclrtRecordEventWithFlag: fn(event: aclrtEvent, stream: aclrtStream, flag: u32) -> aclError;
                aclrtStreamWaitEventWithFlag: fn(stream: aclrtStream, event: aclrtEvent, timeout: u32, flag: u32) -> aclError;
                aclrtStreamWaitEventWithTimeout: fn(stream: aclrtStream, event: aclrtEvent, timeout: i32) -> aclError;
                aclrtEventGetTimestamp: fn(event: aclrtEvent, timestamp: *mut u64) -> aclError;
                aclrtDeviceTaskAbort: fn(deviceId: i32, timeout: u32) -> aclError;
                aclrtDeviceGetPCIBusId: fn(deviceId: i32, pciBusId: *mut c_char, len: i32) -> aclError;
                aclrtDeviceGetByPCIBusId: fn(pciBusId: *const c_char, deviceId: *mut i32) -> aclError;
                aclrtGetDevicesTopo: fn(deviceId: u32, otherDeviceId: u32, value: *mut u64) -> aclError;
                aclrtGetOverflowStatus: fn(outputAddr: *mut c_void, outputSize: usize, stream: aclrtStream) -> aclError;
                aclrtGetFloatOverflowStatus: fn(outputAddr: *mut c_void, outputSize: u64, stream: aclrtStream) -> aclError;
                aclrtNpuGetFloatOverFlowStatus: fn(outputAddr: *mut c_void, outputSize: u64, checkMode: u32, stream: aclrtStream) -> aclError;
                aclrtResetOverflowStatus: fn(stream: aclrtStream) -> aclError;
                aclrtResetFloatOverflowStatus: fn(stream: aclrtStream) -> aclError;
                aclrtNpuClearFloatOverFlowStatus: fn(checkMode: u32, stream: aclrtStream) -> aclError;
                aclrtUseStreamResInCurrentThread: fn(stream: aclrtStream) -> aclError;
                aclrtUnuseStreamResInCurrentThread: fn(stream: aclrtStream) -> aclError;
                aclrtGetResInCurrentThread: fn(type_: aclrtDevResLimitType, value: *mut u32) -> aclError;
                aclrtSubscribeReport: fn(threadId: u64, stream: aclrtStream) -> aclError;
                aclrtUnSubscribeReport: fn(threadId: u64, stream: aclrtStream) -> aclError;
                aclrtLaunchCallback: fn(fn_: aclrtCallback, userData: *mut c_void, blockType: aclrtCallbackBlockType, stream: aclrtStream) -> aclError;
                aclrtProcessReport: fn(timeout: i32) -> aclError;
                aclrtLaunchHostFunc: fn(stream: aclrtStream, fn_: aclrtHostFunc, args: *mut c_void) -> aclError;
                aclCreateDataBuffer: fn(data: *mut c_void, size: usize) -> *mut aclDataBuffer;
                aclDestroyDataBuffer: fn(dataBuffer: *const aclDataBuffer) -> aclError;
                aclUpdateDataBuffer: fn(dataBuffer: *mut aclDataBuffer, data: *mut c_void, size: usize) -> aclError;
                aclGetDataBufferAddr: fn(dataBuffer: *const aclDataBuffer) -> *mut c_void;
                aclGetDataBufferSize: fn(dataBuffer: *const aclDataBuffer) -> u32;
                aclGetDataBufferSizeV2: fn(dataBuffer: *const aclDataBuffer) -> usize;
                aclDataTypeSize: fn(dataType: aclDataType) -> usize;
                aclFloat16ToFloat: fn(value: aclFloat16) -> f32;
                aclFloatToFloat16: fn(value: f32) -> aclFloat16;
                aclrtGetLastError: fn(level: aclrtLastErrLevel) -> aclError;
                aclrtPeekAtLastError: fn(level: aclrtLastErrLevel) -> aclError;
                aclGetDeviceCapability: fn(deviceId: u32, deviceInfo: aclDeviceInfo, value: *mut i64) -> aclError;
                aclrtGetDeviceCapability: fn(deviceId: i32, devFeatureType: aclrtDevFeatureType, value: *mut i32) -> aclError;
                aclrtDeviceGetUuid: fn(deviceId: i32, uuid: *mut aclrtUuid) -> aclError;
                aclrtSetTsDevice: fn(tsId: aclrtTsId) -> aclError;
                aclrtGetGroupCount: fn(count: *mut u32) -> aclError;
                aclrtCreateGroupInfo: fn() -> *mut aclrtGroupInfo;
                aclrtDestroyGroupInfo: fn(groupInfo: *mut aclrtGroupInfo) -> aclError;
                aclrtGetAllGroupInfo: fn(groupInfo: *mut aclrtGroupInfo) -> aclError;
                aclrtGetGroupInfoDetail: fn(groupInfo: *const aclrtGroupInfo, groupIndex: i32, attr: aclrtGroupAttr, attrValue: *mut c_void, valueLen: usize, paramRetSize: *mut usize) -> aclError;
                aclrtSetGroup: fn(groupId: i32) -> aclError;
                aclrtSetExceptionInfoCallback: fn(callback: aclrtExceptionInfoCallback) -> aclError;
                aclrtExceptionInfoCallbackRegister: fn(callback: aclrtExceptionInfoCallback) -> aclError;
                aclrtExceptionInfoCallbackUnregister: fn(callback: aclrtExceptionInfoCallback) -> aclError;
                aclrtGetTaskIdFromExceptionInfo: fn(info: *const aclrtExceptionInfo) -> u32;
                aclrtGetStreamIdFromExceptionInfo: fn(info: *const aclrtExceptionInfo) -> u32;
                aclrtGetThreadIdFromExceptionInfo: fn(info: *const aclrtExceptionInfo) -> u32;
                aclrtGetDeviceIdFromExceptionInfo: fn(info: *const aclrtExceptionInfo) -> u32;
                aclrtGetErrorCodeFromExceptionInfo: fn(info: *const aclrtExceptionInfo) -> u32;
                aclrtGetArgsFromExceptionInfo: fn(info: *const aclrtExceptionInfo, devArgsPtr: *mut *mut c_void, devArgsLen: *mut u32) -> aclError;
                aclrtCreateStreamConfigHandle: fn() -> *mut aclrtStreamConfigHandle;
                aclrtDestroyStreamConfigHandle: fn(handle: *mut aclrtStreamConfigHandle) -> aclError;
                aclrtSetStreamConfigOpt: fn(handle: *mut aclrtStreamConfigHandle, attr: aclrtStreamConfigAttr, attrValue: *const c_void, valueSize: usize) -> aclError;
                aclrtCreateStreamV2: fn(stream: *mut aclrtStream, handle: *const aclrtStreamConfigHandle) -> aclError;
                aclrtSetStreamAttribute: fn(stream: aclrtStream, stmAttrType: aclrtStreamAttr, value: *mut aclrtStreamAttrValue) -> aclError;
                aclrtGetStreamAttribute: fn(stream: aclrtStream, stmAttrType: aclrtStreamAttr, value: *mut aclrtStreamAttrValue) -> aclError;
                aclrtGetDeviceUtilizationRate: fn(deviceId: i32, utilizationInfo: *mut aclrtUtilizationInfo) -> aclError;
                aclInitCallbackRegister: fn(type_: aclRegisterCallbackType, cbFunc: aclInitCallbackFunc, userData: *mut c_void) -> aclError;
                aclInitCallbackUnRegister: fn(type_: aclRegisterCallbackType, cbFunc: aclInitCallbackFunc) -> aclError;
                aclFinalizeCallbackRegister: fn(type_: aclRegisterCallbackType, cbFunc: aclFinalizeCallbackFunc, userData: *mut c_void) -> aclError;
                aclFinalizeCallbackUnRegister: fn(type_: aclRegisterCallbackType, cbFunc: aclFinalizeCallbackFunc) -> aclError;
                aclFinalizeReference: fn(refCount: *mut u64) -> aclError;
                aclrtDeviceGetHostAtomicCapabilities: fn(capabilities: *mut u32, operations: *const aclrtAtomicOperation, count: u32, deviceId: i32) -> aclError;
                aclrtDeviceGetP2PAtomicCapabilities: fn(capabilities: *mut u32, operations: *const aclrtAtomicOperation, count: u32, srcDeviceId: i32, dstDeviceId: i32) -> aclError;
                aclrtActiveStream: fn(activeStream: aclrtStream, stream: aclrtStream) -> aclError;
                aclrtSwitchStream: fn(leftValue: *mut c_void, cond: aclrtCondition, rightValue: *mut c_void, dataType: aclrtCompareDataType, trueStream: aclrtStream, falseStream: aclrtStream, stream: aclrtStream) -> aclError;
                aclrtStreamStop: fn(stream: aclrtStream) -> aclError;
                aclrtGetThreadLastTaskId: fn(taskId: *mut u32) -> aclError;
                aclrtNotifyBatchReset: fn(notifies: *mut aclrtNotify, num: usize) -> aclError;
                aclrtCtxGetFloatOverflowAddr: fn(overflowAddr: *mut *mut c_void) -> aclError;
                // ---- Model capture (acl_rt.h:4585-4670 of hicann/runtime@0b4af8a) ----
                aclmdlRICaptureBegin: fn(stream: aclrtStream, mode: aclmdlRICaptureMode) -> aclError;
                aclmdlRICaptureGetInfo: fn(stream: aclrtStream, status: *mut aclmdlRICaptureStatus, modelRI: *mut aclmdlRI) -> aclError;
                aclmdlRICaptureEnd: fn(stream: aclrtStream, modelRI: *mut aclmdlRI) -> aclError;
                aclmdlRICaptureThreadExchangeMode: fn(mode: *mut aclmdlRICaptureMode) -> aclError;
                aclmdlRIExecuteAsync: fn(modelRI: aclmdlRI, stream: aclrtStream) -> aclError;
                aclmdlRIExecute: fn(modelRI: aclmdlRI, timeout: i32) -> aclError;
                aclmdlRIDestroy: fn(modelRI: aclmdlRI) -> aclError;
                // ---- Memory (acl_rt.h, acl_rt_allocator.h of hicann/runtime@681ef76) ----
                aclrtMallocAlign32: fn(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> aclError;
                aclrtMallocCached: fn(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy) -> aclError;
                aclrtMallocWithCfg: fn(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy, cfg: *mut aclrtMallocConfig) -> aclError;
                aclrtMallocForTaskScheduler: fn(devPtr: *mut *mut c_void, size: usize, policy: aclrtMemMallocPolicy, cfg: *mut aclrtMallocConfig) -> aclError;
                aclrtMallocHostWithCfg: fn(ptr: *mut *mut c_void, size: u64, cfg: *mut aclrtMallocConfig) -> aclError;
                aclrtFreeWithDevSync: fn(devPtr: *mut c_void) -> aclError;
                aclrtFreeHostWithDevSync: fn(hostPtr: *mut c_void) -> aclError;
                aclrtHostRegister: fn(ptr: *mut c_void, size: u64, type_: aclrtHostRegisterType, devPtr: *mut *mut c_void) -> aclError;
                aclrtHostRegisterV2: fn(ptr: *mut c_void, size: u64, flag: u32) -> aclError;
                aclrtHostGetDevicePointer: fn(pHost: *mut c_void, pDevice: *mut *mut c_void, flag: u32) -> aclError;
                aclrtHostUnregister: fn(ptr: *mut c_void) -> aclError;
                aclrtHostMemMapCapabilities: fn(deviceId: u32, hacType: aclrtHacType, capabilities: *mut aclrtHostMemMapCapability) -> aclError;
                aclrtMemFlush: fn(devPtr: *mut c_void, size: usize) -> aclError;
                aclrtMemInvalidate: fn(devPtr: *mut c_void, size: usize) -> aclError;
                aclrtMemAllocManaged: fn(ptr: *mut *mut c_void, size: u64, flag: u32) -> aclError;
                aclrtMemManagedAdvise: fn(ptr: *const c_void, size: u64, advise: aclrtMemManagedAdviseType, location: aclrtMemManagedLocation) -> aclError;
                aclrtMemManagedGetAttr: fn(attribute: aclrtMemManagedRangeAttribute, ptr: *const c_void, size: usize, data: *mut c_void, dataSize: usize) -> aclError;
                aclrtMemManagedGetAttrs: fn(attributes: *mut aclrtMemManagedRangeAttribute, numAttributes: usize, ptr: *const c_void, size: usize, data: *mut *mut c_void, dataSizes: *mut usize) -> aclError;
                aclrtMemManagedPrefetchAsync: fn(ptr: *const c_void, size: usize, location: aclrtMemManagedLocation, flags: u32, stream: aclrtStream) -> aclError;
                aclrtMemManagedPrefetchBatchAsync: fn(ptrs: *mut *const c_void, sizes: *mut usize, count: usize, prefetchLocs: *mut aclrtMemManagedLocation, prefetchLocIdxs: *mut usize, numPrefetchLocs: usize, flags: u64, stream: aclrtStream) -> aclError;
                aclrtGetMemUsageInfo: fn(deviceId: i32, memUsageInfo: *mut aclrtMemUsageInfo, inputNum: usize, outputNum: *mut usize) -> aclError;
                aclrtCheckMemType: fn(addrList: *mut *mut c_void, size: u32, memType: u32, checkResult: *mut u32, reserve: u32) -> aclError;
                aclrtGetMemUceInfo: fn(deviceId: i32, memUceInfoArray: *mut aclrtMemUceInfo, arraySize: usize, retSize: *mut usize) -> aclError;
                aclrtMemUceRepair: fn(deviceId: i32, memUceInfoArray: *mut aclrtMemUceInfo, arraySize: usize) -> aclError;
                aclrtMemsetD32: fn(ptr: *mut c_void, memSize: usize, value: u32, N: usize) -> aclError;
                aclrtMemsetD32Async: fn(ptr: *mut c_void, memSize: usize, value: u32, N: usize, stream: aclrtStream) -> aclError;
                aclrtMemcpyAsyncWithCondition: fn(dst: *mut c_void, destMax: usize, src: *const c_void, count: usize, kind: aclrtMemcpyKind, stream: aclrtStream) -> aclError;
                aclrtMemcpyAsyncWithOffset: fn(dst: *mut *mut c_void, destMax: usize, dstDataOffset: usize, src: *mut *const c_void, count: usize, srcDataOffset: usize, kind: aclrtMemcpyKind, stream: aclrtStream) -> aclError;
                aclrtGetMemcpyDescSize: fn(kind: aclrtMemcpyKind, descSize: *mut usize) -> aclError;
                aclrtSetMemcpyDesc: fn(desc: *mut c_void, kind: aclrtMemcpyKind, srcAddr: *mut c_void, dstAddr: *mut c_void, count: usize, config: *mut c_void) -> aclError;
                aclrtMemcpyAsyncWithDesc: fn(desc: *mut c_void, kind: aclrtMemcpyKind, stream: aclrtStream) -> aclError;
                aclrtMemcpyBatch: fn(dsts: *mut *mut c_void, destMaxs: *mut usize, srcs: *mut *mut c_void, sizes: *mut usize, numBatches: usize, attrs: *mut aclrtMemcpyBatchAttr, attrsIndexes: *mut usize, numAttrs: usize, failIndex: *mut usize) -> aclError;
                aclrtMemcpyBatchV2: fn(dsts: *mut *mut c_void, destMaxs: *mut usize, srcs: *mut *mut c_void, sizes: *mut usize, numBatches: usize, attrs: *mut aclrtMemcpyBatchAttr, attrsIndexes: *mut usize, numAttrs: usize) -> aclError;
                aclrtMemcpyBatchAsync: fn(dsts: *mut *mut c_void, destMaxs: *mut usize, srcs: *mut *mut c_void, sizes: *mut usize, numBatches: usize, attrs: *mut aclrtMemcpyBatchAttr, attrsIndexes: *mut usize, numAttrs: usize, failIndex: *mut usize, stream: aclrtStream) -> aclError;
                aclrtMemcpyBatchAsyncV2: fn(dsts: *mut *mut c_void, destMaxs: *mut usize, srcs: *mut *mut c_void, sizes: *mut usize, numBatches: usize, attrs: *mut aclrtMemcpyBatchAttr, attrsIndexes: *mut usize, numAttrs: usize, stream: aclrtStream) -> aclError;
                aclrtCmoAsync: fn(src: *mut c_void, size: usize, cmoType: aclrtCmoType, stream: aclrtStream) -> aclError;
                aclrtCmoAsyncWithBarrier: fn(src: *mut c_void, size: usize, cmoType: aclrtCmoType, barrierId: u32, stream: aclrtStream) -> aclError;
                aclrtCmoWaitBarrier: fn(taskInfo: *mut aclrtBarrierTaskInfo, stream: aclrtStream, flag: u32) -> aclError;
                aclrtCmoGetDescSize: fn(size: *mut usize) -> aclError;
                aclrtCmoSetDesc: fn(cmoDesc: *mut c_void, src: *mut c_void, size: usize) -> aclError;
                aclrtCmoAsyncWithDesc: fn(cmoDesc: *mut c_void, cmoType: aclrtCmoType, stream: aclrtStream, reserve: *const c_void) -> aclError;
                aclrtDeviceL2CacheFlush: fn(rsv: *mut c_void) -> aclError;
                aclrtMemP2PMap: fn(devPtr: *mut c_void, size: usize, dstDevId: i32, flags: u64) -> aclError;
                aclrtMemMapSelectedLink: fn(virPtrDst: *mut c_void, size: usize, virPtrSrc: *mut c_void, linkIdx: u32) -> aclError;
                aclrtMemMapSetLink: fn(handle: aclrtDrvMemHandle, adviceLink: aclrtMemLinkType) -> aclError;
                aclrtIpcMemSetAttr: fn(key: *const c_char, type_: aclrtIpcMemAttrType, attr: u64) -> aclError;
                aclrtIpcMemImportPidInterServer: fn(key: *const c_char, serverPids: *mut aclrtServerPid, num: usize) -> aclError;
                aclrtAllocatorCreateDesc: fn() -> aclrtAllocatorDesc;
                aclrtAllocatorDestroyDesc: fn(allocatorDesc: aclrtAllocatorDesc) -> aclError;
                aclrtAllocatorSetObjToDesc: fn(allocatorDesc: aclrtAllocatorDesc, allocator: aclrtAllocator) -> aclError;
                aclrtAllocatorSetAllocFuncToDesc: fn(allocatorDesc: aclrtAllocatorDesc, func: aclrtAllocatorAllocFunc) -> aclError;
                aclrtAllocatorSetFreeFuncToDesc: fn(allocatorDesc: aclrtAllocatorDesc, func: aclrtAllocatorFreeFunc) -> aclError;
                aclrtAllocatorSetAllocAdviseFuncToDesc: fn(allocatorDesc: aclrtAllocatorDesc, func: aclrtAllocatorAllocAdviseFunc) -> aclError;
                aclrtAllocatorSetGetAddrFromBlockFuncToDesc: fn(allocatorDesc: aclrtAllocatorDesc, func: aclrtAllocatorGetAddrFromBlockFunc) -> aclError;
                aclrtAllocatorRegister: fn(stream: aclrtStream, allocatorDesc: aclrtAllocatorDesc) -> aclError;
                aclrtAllocatorGetByStream: fn(stream: aclrtStream, allocatorDesc: *mut aclrtAllocatorDesc, allocator: *mut aclrtAllocator, allocFunc: *mut aclrtAllocatorAllocFunc, freeFunc: *mut aclrtAllocatorFreeFunc, allocAdviseFunc: *mut aclrtAllocatorAllocAdviseFunc, getAddrFromBlockFunc: *mut aclrtAllocatorGetAddrFromBlockFunc) -> aclError;
                aclrtAllocatorUnregister: fn(stream: aclrtStream) -> aclError;
                aclrtAllocBuf: fn(buf: *mut aclrtMbuf, size: usize) -> aclError;
                aclrtFreeBuf: fn(buf: aclrtMbuf) -> aclError;
                aclrtGetBufData: fn(buf: aclrtMbuf, dataPtr: *mut *mut c_void, size: *mut usize) -> aclError;
                aclrtGetBufDataLen: fn(buf: aclrtMbuf, len: *mut usize) -> aclError;
                aclrtSetBufDataLen: fn(buf: aclrtMbuf, len: usize) -> aclError;
                aclrtGetBufUserData: fn(buf: aclrtMbuf, dataPtr: *mut c_void, size: usize, offset: usize) -> aclError;
                aclrtSetBufUserData: fn(buf: aclrtMbuf, dataPtr: *const c_void, size: usize, offset: usize) -> aclError;
                aclrtCopyBufRef: fn(buf: aclrtMbuf, newBuf: *mut aclrtMbuf) -> aclError;
                aclrtAppendBufChain: fn(headBuf: aclrtMbuf, buf: aclrtMbuf) -> aclError;
                aclrtGetBufChainNum: fn(headBuf: aclrtMbuf, num: *mut u32) -> aclError;
                aclrtGetBufFromChain: fn(headBuf: aclrtMbuf, index: u32, buf: *mut aclrtMbuf) -> aclError;
        }
        }
    };
}

crate::acl_functions!(crate::api_table {
    /// The ACL functions vmmkit uses, with their exact C signatures.
    ///
    /// Fill it from a real library with [`AclApi::load`], or take the
    /// emulator's (`vmmkit_emulator::acl::api()`).
    pub struct AclApi;
});

impl AclApi {
    /// Loads `libascendcl.so` as [`LIBRARY`] describes, `explicit` first.
    ///
    /// # Errors
    /// A [`LoadError`] naming every path tried, or every missing symbol.
    #[allow(unsafe_code)] // the table from the loaded library
    pub fn load(explicit: Option<&Path>) -> Result<Loaded<Self>, LoadError> {
        crate::loader::load(&LIBRARY, explicit, |lib| {
            // SAFETY: a library found under the ACL names exports the ACL C ABI;
            // it is leaked, so it outlives the table.
            unsafe { Self::from_library(lib) }
        })
    }
}
