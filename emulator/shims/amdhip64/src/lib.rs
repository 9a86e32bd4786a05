//! Drop-in `libamdhip64.so`: the HIP C ABI of reference hip.md §2, backed by
//! the vmmkit emulator (profile 6.x).
//!
//! Every function of [`vmmkit_sys::hip_functions!`] (required and optional)
//! is exported under its C name with its C signature, and forwards once into
//! the emulator's HIP dialect through its instrumentation layer
//! (`vmmkit_emulator::hip::entry`), which owns every check, its order and
//! its code. No rule lives here. The only addition is the FFI backstop of
//! STYLE.md §8: each body runs in `catch_unwind`, and a panic there becomes
//! 999 `hipErrorUnknown` (or a fixed message for the functions that return
//! a string) instead of unwinding into C.
//!
//! The library also exports `const char *vmmkit_shim_info(void)`, the marker
//! by which `vmmkit-sys`'s loader recognises (and, in its default search,
//! skips) vmmkit's own drop-in libraries. All of it is
//! [`vmmkit_emulator::export_shim!`], shared with `libascendcl.so`.
//!
//! This crate is a cdylib: the plain `cargo build` leaves
//! `target/<profile>/libamdhip64.so` with soname `libamdhip64.so.6` and the
//! vendor's ELF symbol versions (`libamdhip64.map`: `hip_4.2` … `hip_7.2`,
//! each function in the node of the real library), plus the link
//! `libamdhip64.so.6`. `build.rs` says how, and why rustc alone cannot
//! (hip.md §1.3).

#![deny(unsafe_code)]

vmmkit_emulator::export_shim! {
    functions: vmmkit_sys::hip_functions,
    types: vmmkit_sys::hip,
    dialect: vmmkit_emulator::hip::entry,
    vendor: "HIP",
    table: "HipApi",
    panic_code: HipError::UNKNOWN.0,
    panic_message: c"vmmkit libamdhip64: internal error in the emulator (a panic); please report it",
    info: "vmmkit emulator libamdhip64, HIP 6.x profile",
}

// The exports that are not emulated. Device code: Module
// Management, kernel launch incl. the `__hip*` triple-chevron support,
// Occupancy, Texture / Surface, Graphics interop, Execution Control and the
// kernel-name queries. Not yet: the Graph Management functions beyond
// capture, create, the copy, fill, host, event, empty and memory node adds,
// instantiate, launch and destroy (emulated), External Resource
// Interoperability, graph batch-memop nodes, hipApiName, and three that host
// memory could do (hipMemGetHandleForAddressRange,
// hipGetDriverEntryPoint[_spt]). Of the memory families: the symbol copies
// and queries (device code: a symbol is a variable of a loaded code object)
// and the 7.1 batch copies (not yet).
vmmkit_emulator::export_unsupported! {
    dialect: vmmkit_sys::vendor::Hip,
    code: vmmkit_sys::hip::HipError::NOT_SUPPORTED,
    device_code {
        __hipGetPCH, __hipPopCallConfiguration, __hipPushCallConfiguration,
        _Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j,
        _Z24hipHccModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_,
        hipExtModuleLaunchKernel, hipHccModuleLaunchKernel, hipGLGetDevices, hipGraphicsGLRegisterBuffer,
        hipGraphicsGLRegisterImage, hipBindTexture, hipBindTexture2D,
        hipBindTextureToArray, hipBindTextureToMipmappedArray, hipConfigureCall, hipCreateSurfaceObject,
        hipCreateTextureObject, hipDestroySurfaceObject, hipDestroyTextureObject, hipDrvLaunchKernelEx,
        hipExtLaunchKernel, hipExtLaunchMultiKernelMultiDevice, hipFuncGetAttribute,
        hipFuncGetAttributes, hipFuncSetAttribute, hipFuncSetCacheConfig, hipFuncSetSharedMemConfig,
        hipGetChannelDesc, hipGetFuncBySymbol, hipGetTextureAlignmentOffset,
        hipGetTextureObjectResourceDesc, hipGetTextureObjectResourceViewDesc, hipGetTextureObjectTextureDesc,
        hipGetSymbolAddress, hipGetSymbolSize, hipGetTextureReference, hipGraphicsMapResources, hipGraphicsResourceGetMappedPointer,
        hipGraphicsSubResourceGetMappedArray, hipGraphicsUnmapResources, hipGraphicsUnregisterResource,
        hipKernelGetLibrary, hipKernelGetName, hipKernelNameRef -> null, hipKernelNameRefByPtr -> null,
        hipLaunchByPtr, hipLaunchCooperativeKernel, hipLaunchCooperativeKernelMultiDevice,
        hipLaunchCooperativeKernel_spt, hipLaunchKernel, hipLaunchKernelExC, hipLaunchKernel_spt,
        hipLibraryEnumerateKernels, hipLibraryGetKernel, hipLibraryGetKernelCount, hipLibraryLoadData,
        hipLibraryLoadFromFile, hipLibraryUnload, hipLinkAddData, hipLinkAddFile, hipLinkComplete,
        hipLinkCreate, hipLinkDestroy, hipMemcpyFromSymbol, hipMemcpyFromSymbolAsync, hipMemcpyFromSymbolAsync_spt,
        hipMemcpyFromSymbol_spt, hipMemcpyToSymbol, hipMemcpyToSymbolAsync, hipMemcpyToSymbolAsync_spt,
        hipMemcpyToSymbol_spt, hipModuleGetFunction, hipModuleGetFunctionCount, hipModuleGetGlobal,
        hipModuleGetTexRef, hipModuleLaunchCooperativeKernel, hipModuleLaunchCooperativeKernelMultiDevice,
        hipModuleLaunchKernel, hipModuleLoad, hipModuleLoadData, hipModuleLoadDataEx, hipModuleLoadFatBinary,
        hipModuleOccupancyMaxActiveBlocksPerMultiprocessor,
        hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, hipModuleOccupancyMaxPotentialBlockSize,
        hipModuleOccupancyMaxPotentialBlockSizeWithFlags, hipModuleUnload,
        hipOccupancyAvailableDynamicSMemPerBlock, hipOccupancyMaxActiveBlocksPerMultiprocessor,
        hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, hipOccupancyMaxPotentialBlockSize,
        hipSetupArgument, hipTexObjectCreate, hipTexObjectDestroy, hipTexObjectGetResourceDesc,
        hipTexObjectGetResourceViewDesc, hipTexObjectGetTextureDesc, hipTexRefGetAddress,
        hipTexRefGetAddressMode, hipTexRefGetArray, hipTexRefGetBorderColor, hipTexRefGetFilterMode,
        hipTexRefGetFlags, hipTexRefGetFormat, hipTexRefGetMaxAnisotropy, hipTexRefGetMipMappedArray,
        hipTexRefGetMipmapFilterMode, hipTexRefGetMipmapLevelBias, hipTexRefGetMipmapLevelClamp,
        hipTexRefSetAddress, hipTexRefSetAddress2D, hipTexRefSetAddressMode, hipTexRefSetArray,
        hipTexRefSetBorderColor, hipTexRefSetFilterMode, hipTexRefSetFlags, hipTexRefSetFormat,
        hipTexRefSetMaxAnisotropy, hipTexRefSetMipmapFilterMode, hipTexRefSetMipmapLevelBias,
        hipTexRefSetMipmapLevelClamp, hipTexRefSetMipmappedArray, hipUnbindTexture,
    }
    not_yet {
        hipApiName -> null, hipGetCmdName -> null, hipDestroyExternalMemory, hipDestroyExternalSemaphore,
        hipDeviceGetGraphMemAttribute, hipDeviceGraphMemTrim, hipDeviceSetGraphMemAttribute,
        hipDrvGraphAddMemFreeNode, hipDrvGraphAddMemcpyNode, hipDrvGraphAddMemsetNode,
        hipDrvGraphExecMemcpyNodeSetParams, hipDrvGraphExecMemsetNodeSetParams,
        hipDrvGraphMemcpyNodeGetParams, hipDrvGraphMemcpyNodeSetParams,
        hipExternalMemoryGetMappedBuffer, hipGetDriverEntryPoint, hipGetDriverEntryPoint_spt,
        hipGraphAddBatchMemOpNode, hipGraphAddChildGraphNode, hipGraphAddDependencies, hipGraphAddExternalSemaphoresSignalNode,
        hipGraphAddExternalSemaphoresWaitNode, hipGraphAddKernelNode,
        hipGraphAddMemcpyNode, hipGraphAddMemcpyNodeFromSymbol, hipGraphAddMemcpyNodeToSymbol, hipGraphAddNode, hipGraphBatchMemOpNodeGetParams, hipGraphBatchMemOpNodeSetParams,
        hipGraphChildGraphNodeGetGraph, hipGraphClone, hipGraphDebugDotPrint, hipGraphDestroyNode, hipGraphEventRecordNodeGetEvent, hipGraphEventRecordNodeSetEvent,
        hipGraphEventWaitNodeGetEvent, hipGraphEventWaitNodeSetEvent, hipGraphExecBatchMemOpNodeSetParams,
        hipGraphExecChildGraphNodeSetParams, hipGraphExecEventRecordNodeSetEvent,
        hipGraphExecEventWaitNodeSetEvent, hipGraphExecExternalSemaphoresSignalNodeSetParams,
        hipGraphExecExternalSemaphoresWaitNodeSetParams, hipGraphExecGetFlags, hipGraphExecHostNodeSetParams,
        hipGraphExecKernelNodeSetParams, hipGraphExecMemcpyNodeSetParams, hipGraphExecMemcpyNodeSetParams1D,
        hipGraphExecMemcpyNodeSetParamsFromSymbol, hipGraphExecMemcpyNodeSetParamsToSymbol,
        hipGraphExecMemsetNodeSetParams, hipGraphExecNodeSetParams, hipGraphExecUpdate,
        hipGraphExternalSemaphoresSignalNodeGetParams, hipGraphExternalSemaphoresSignalNodeSetParams,
        hipGraphExternalSemaphoresWaitNodeGetParams, hipGraphExternalSemaphoresWaitNodeSetParams,
        hipGraphGetEdges, hipGraphHostNodeGetParams,
        hipGraphHostNodeSetParams, hipGraphInstantiateWithParams, hipGraphKernelNodeCopyAttributes, hipGraphKernelNodeGetAttribute,
        hipGraphKernelNodeGetParams, hipGraphKernelNodeSetAttribute, hipGraphKernelNodeSetParams,
        hipGraphMemAllocNodeGetParams, hipGraphMemFreeNodeGetParams,
        hipGraphMemcpyNodeGetParams, hipGraphMemcpyNodeSetParams, hipGraphMemcpyNodeSetParams1D,
        hipGraphMemcpyNodeSetParamsFromSymbol, hipGraphMemcpyNodeSetParamsToSymbol,
        hipGraphMemsetNodeGetParams, hipGraphMemsetNodeSetParams, hipGraphNodeFindInClone,
        hipGraphNodeGetDependencies, hipGraphNodeGetDependentNodes, hipGraphNodeGetEnabled,
        hipGraphNodeGetType, hipGraphNodeSetEnabled, hipGraphNodeSetParams, hipGraphReleaseUserObject,
        hipGraphRemoveDependencies, hipGraphRetainUserObject, hipGraphUpload, hipImportExternalMemory,
        hipImportExternalSemaphore, hipMemGetHandleForAddressRange, hipMemcpy3DBatchAsync, hipMemcpyBatchAsync, hipSignalExternalSemaphoresAsync,
        hipStreamBeginCaptureToGraph, hipStreamUpdateCaptureDependencies,
        hipUserObjectCreate, hipUserObjectRelease, hipUserObjectRetain, hipWaitExternalSemaphoresAsync,
    }
}

// C symbols of the hiprtc library that clr 6.x carries.
#[allow(unsafe_code)]
pub mod hiprtc;
