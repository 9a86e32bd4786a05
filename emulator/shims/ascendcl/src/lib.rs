//! Drop-in `libascendcl.so`: the ACL C ABI of reference acl.md §1.2, backed by
//! the vmmkit emulator.
//!
//! Every function of [`vmmkit_sys::acl_functions!`] (required and optional) is
//! exported under its C name with its C signature, and forwards once into
//! the emulator's ACL dialect through its instrumentation layer
//! (`vmmkit_emulator::acl::entry`, so fault injection, logs and the leak
//! report work through this library too), which owns every check, its order
//! and its code. No rule lives here. The only addition is the FFI backstop of
//! STYLE.md §8: each body runs in `catch_unwind`, and a panic there becomes
//! 507899 `ACL_ERROR_RT_DRV_INTERNAL_ERROR` (or a fixed message for the two
//! functions that return a string) instead of unwinding into C.
//!
//! The library also exports `const char *vmmkit_shim_info(void)`, the marker
//! by which `vmmkit-sys`'s loader recognises (and, in its default search,
//! skips) vmmkit's own drop-in libraries. All of it is
//! [`vmmkit_emulator::export_shim!`], shared with `libamdhip64.so`.
//!
//! The other functions of CANN's runtime headers (`docs/api/acl.tsv`) are
//! exported too, by [`vmmkit_emulator::export_unsupported!`], so that
//! programs link and start: [`DEVICE_CODE`] (kernels, binaries, operators,
//! AICPU, dumps, graph labels and conditional tasks: not supported by design)
//! and [`NOT_YET`] (host memory could emulate them). Each fails with 207000
//! `ACL_ERROR_RT_FEATURE_NOT_SUPPORT` and a message naming it; those that
//! return a pointer or an integer return 0. `docs/api-coverage.md` lists
//! every function with what this library does with it (`tests/coverage.rs`).
//! Their C declarations are in `include/acl/acl_rt_unsupported.h`, which
//! `scripts/acl-unsupported-header.py` rewrites from these lists and CANN's
//! headers when a function moves out of them.
//!
//! A C program built against the headers in `include/` (`#include
//! <acl/acl.h>`) links with `-lascendcl` and runs on the emulator with
//! `LD_LIBRARY_PATH` pointing at the directory of this library; see the
//! README section "Running a CANN program on the emulator".

#![deny(unsafe_code)]

vmmkit_emulator::export_shim! {
    functions: vmmkit_sys::acl_functions,
    types: vmmkit_sys::acl,
    dialect: vmmkit_emulator::acl::entry,
    vendor: "ACL",
    table: "AclApi",
    panic_code: AclError::RT_DRV_INTERNAL_ERROR.0,
    panic_message: c"vmmkit libascendcl: internal error in the emulator (a panic); please report it",
    info: "vmmkit emulator libascendcl",
}

// Exports that are not emulated: `DEVICE_CODE` and `NOT_YET` (read by the
// coverage test and docs/api-coverage.md).
vmmkit_emulator::export_unsupported! {
    dialect: vmmkit_sys::vendor::Acl,
    code: vmmkit_sys::acl::AclError::RT_FEATURE_NOT_SUPPORT,
    device_code {
        aclmdlFinalizeDump, aclmdlInitDump, aclmdlRIAddCondTask, aclmdlRICondHandleCreate,
        aclmdlRICondHandleGetCondPtr, aclmdlRIEndTask, aclmdlRIKernelTaskGetAttribute, aclmdlRITaskDisable,
        aclmdlRITaskGetParams, aclmdlRITaskGetSeqId, aclmdlRITaskGetType, aclmdlRITaskSetParams,
        aclmdlSetDump, aclrtBinaryGetDevAddress, aclrtBinaryGetFunction, aclrtBinaryGetFunctionByEntry,
        aclrtBinaryGetGlobal, aclrtBinaryLoad, aclrtBinaryLoadFromData, aclrtBinaryLoadFromFile,
        aclrtBinarySetExceptionCallback, aclrtBinaryUnLoad, aclrtCheckArchCompatibility,
        aclrtCreateBinary -> null, aclrtCreateLabel, aclrtCreateLabelList, aclrtDestroyBinary,
        aclrtDestroyLabel, aclrtDestroyLabelList, aclrtFunctionGetAvailDynUbufPerBlock,
        aclrtFunctionGetBinary, aclrtFunctionGetParamCount, aclrtFunctionGetParamInfo, aclrtGetFuncBySymbol,
        aclrtGetFuncHandleFromExceptionInfo, aclrtGetFunctionAddr, aclrtGetFunctionAttribute,
        aclrtGetFunctionName, aclrtGetFunctionSize, aclrtGetHardwareSyncAddr, aclrtGetOpExecuteTimeout,
        aclrtGetOpTimeOutInterval, aclrtGetSymbolAddress, aclrtGetSymbolSize, aclrtKernelArgsAppend,
        aclrtKernelArgsAppendPlaceHolder, aclrtKernelArgsFinalize, aclrtKernelArgsGetHandleMemSize,
        aclrtKernelArgsGetMemSize, aclrtKernelArgsGetPlaceHolderBuffer, aclrtKernelArgsInit,
        aclrtKernelArgsInitByUserMem, aclrtKernelArgsParaUpdate, aclrtLaunchKernel, aclrtLaunchKernelV2,
        aclrtLaunchKernelWithArgsArray, aclrtLaunchKernelWithConfig, aclrtLaunchKernelWithHostArgs,
        aclrtLaunchSIMTKernelWithArgsArray, aclrtLaunchSIMTKernelWithHostArgs, aclrtPersistentTaskClean,
        aclrtProfTrace, aclrtRandomNumAsync, aclrtReduceAsync, aclrtRegisterCpuFunc, aclrtSetLabel,
        aclrtSetOpExecuteTimeOut, aclrtSetOpExecuteTimeOutV2, aclrtSetOpExecuteTimeOutWithMs,
        aclrtSetOpWaitTimeout, aclrtSwitchLabelByIndex, aclrtTaskUpdateAsync,
        // Memory. A symbol is a variable of a loaded device binary
        // (aclrtGetSymbolAddress, kernel.cpp); the cached task info belongs
        // to the last kernel task (aclrtCacheLastTaskOpInfo, kernel.cpp:692-714).
        aclrtMemcpyFromSymbol, aclrtMemcpyFromSymbolAsync, aclrtMemcpyToSymbol, aclrtMemcpyToSymbolAsync,
        aclrtCacheLastTaskOpInfo, aclrtCacheLastTaskExtendInfo,
    }
    not_yet {
        aclAppLog,
        aclGetCannAttribute, aclGetCannAttributeList,
        aclmdlRIAbort,
        aclmdlRIBindStream, aclmdlRIBuildBegin, aclmdlRIBuildEnd,
        aclmdlRICaptureTaskGrpBegin, aclmdlRICaptureTaskGrpEnd,
        aclmdlRICaptureTaskUpdateBegin, aclmdlRICaptureTaskUpdateEnd,
        aclmdlRICaptureToModelRIBegin, aclmdlRIDebugJsonPrint, aclmdlRIDebugPrint,
        aclmdlRIDestroyRegisterCallback, aclmdlRIDestroyUnregisterCallback,
        aclmdlRIGetId, aclmdlRIGetName, aclmdlRIGetStreams, aclmdlRIGetTasksByStream,
        aclmdlRISetName, aclmdlRIUnbindStream, aclmdlRIUpdate, aclrtCntNotifyCreate,
        aclrtCntNotifyDestroy, aclrtCntNotifyGetId, aclrtCntNotifyRecord, aclrtCntNotifyReset,
        aclrtCntNotifyWaitWithTimeout,
        aclrtGetErrorVerbose,
        aclrtProcessHostFunc,
        aclrtRegDeviceStateCallback, aclrtRegStreamStateCallback, aclrtRepairError,
        aclrtSetDeviceTaskAbortCallback,
        aclrtSnapShotCallbackRegister, aclrtSnapShotCallbackUnregister,
        aclrtSnapShotProcessBackup, aclrtSnapShotProcessLock, aclrtSnapShotProcessRestore,
        aclrtSnapShotProcessUnlock,
        aclrtSubscribeHostFunc,
        aclrtUnSubscribeHostFunc,
        aclsysGetCANNVersion,
        aclsysGetVersionNum, aclsysGetVersionStr,
    }
}
