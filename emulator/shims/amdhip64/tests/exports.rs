//! What `libamdhip64.so` exports: exactly the HIP functions of
//! `vmmkit_sys::hip_functions!` plus the shim marker, each in the ELF version
//! node of the real library (hip.md §1.2), the vendor soname, no Rust symbol
//! leaking, and `dlvsym` finding every function under its node (which a
//! cdylib linked as rustc alone links it would not give: build.rs), and the
//! link `libamdhip64.so.6` beside it, all as the plain `cargo build` leaves them.
//! The exports that are not emulated (`DEVICE_CODE`, `NOT_YET`) are checked
//! the same way.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::CString;
use std::path::Path;

use vmmkit_sys::hip::HipApi;

/// The node of each function in the real library: hip.md §1.2, from the 5.6
/// and 6.3 version scripts of ROCm/clr (`hipamd/src/hip_hcc.map.in`).
const NODES: &[(&str, &[&str])] = &[
    (
        "hip_4.2",
        &[
            "hipInit",
            "hipGetDeviceCount",
            "hipSetDevice",
            "hipGetDevice",
            "hipDeviceGet",
            "hipDeviceGetAttribute",
            "hipDeviceSynchronize",
            "hipGetDeviceProperties",
            "hipRuntimeGetVersion",
            "hipDriverGetVersion",
            "hipMalloc",
            "hipFree",
            "hipMemcpy",
            "hipMemcpyHtoD",
            "hipMemcpyDtoH",
            "hipMemset",
            "hipMemsetD8",
            "hipHostMalloc",
            "hipHostFree",
            "hipPointerGetAttributes",
            "hipMemGetAddressRange",
            "hipIpcGetMemHandle",
            "hipIpcOpenMemHandle",
            "hipIpcCloseMemHandle",
            "hipDeviceCanAccessPeer",
            "hipDeviceEnablePeerAccess",
            "hipDeviceDisablePeerAccess",
            "hipGetLastError",
            "hipPeekAtLastError",
            "hipGetErrorName",
            "hipGetErrorString",
        ],
    ),
    (
        "hip_5.1",
        &[
            "hipMemGetAllocationGranularity",
            "hipMemCreate",
            "hipMemRelease",
            "hipMemAddressReserve",
            "hipMemAddressFree",
            "hipMemMap",
            "hipMemMapArrayAsync",
            "hipMemUnmap",
            "hipMemSetAccess",
            "hipMemGetAccess",
            "hipMemExportToShareableHandle",
            "hipMemImportFromShareableHandle",
            "hipMemRetainAllocationHandle",
            "hipMemGetAllocationPropertiesFromHandle",
            "hipDeviceGetDefaultMemPool",
            "hipDeviceSetMemPool",
            "hipDeviceGetMemPool",
            "hipMallocAsync",
            "hipFreeAsync",
            "hipMemPoolTrimTo",
            "hipMemPoolSetAttribute",
            "hipMemPoolGetAttribute",
            "hipMemPoolSetAccess",
            "hipMemPoolGetAccess",
            "hipMemPoolCreate",
            "hipMemPoolDestroy",
            "hipMallocFromPoolAsync",
            "hipMemPoolExportToShareableHandle",
            "hipMemPoolImportFromShareableHandle",
            "hipMemPoolExportPointer",
            "hipMemPoolImportPointer",
        ],
    ),
    ("hip_6.0", &["hipGetDevicePropertiesR0600", "hipExtGetLastError"]),
    ("hip_6.3", &["hipExtHostAlloc"]),
    // Streams, events, IPC events and stream-ordered copies (clr hip_hcc.map.in).
    (
        "hip_4.2",
        &[
            "hipStreamCreate",
            "hipStreamCreateWithFlags",
            "hipStreamCreateWithPriority",
            "hipDeviceGetStreamPriorityRange",
            "hipStreamDestroy",
            "hipStreamSynchronize",
            "hipStreamQuery",
            "hipStreamWaitEvent",
            "hipStreamGetFlags",
            "hipStreamGetPriority",
            "hipStreamAddCallback",
            "hipEventCreate",
            "hipEventCreateWithFlags",
            "hipEventRecord",
            "hipEventQuery",
            "hipEventSynchronize",
            "hipEventElapsedTime",
            "hipEventDestroy",
            "hipIpcGetEventHandle",
            "hipIpcOpenEventHandle",
            "hipMemcpyAsync",
            "hipMemcpyHtoDAsync",
            "hipMemcpyDtoHAsync",
            "hipMemcpyDtoDAsync",
            "hipMemcpyDtoD",
            "hipMemcpyPeer",
            "hipMemcpyPeerAsync",
            "hipMemsetAsync",
            "hipMemsetD8Async",
            "hipMemsetD16",
            "hipMemsetD16Async",
            "hipMemsetD32",
            "hipMemsetD32Async",
        ],
    ),
    ("hip_5.3", &["hipLaunchHostFunc"]),
    // Memory (nm -D of Debian's libamdhip64.so.7, 7.2.4).
    (
        "hip_4.2",
        &[
            "hipExtMallocWithFlags",
            "hipMallocHost",
            "hipMemAllocHost",
            "hipHostAlloc",
            "hipFreeHost",
            "hipMemGetInfo",
            "hipMemPtrGetInfo",
            "hipMemcpyWithStream",
            "hipHostRegister",
            "hipHostUnregister",
            "hipHostGetDevicePointer",
            "hipHostGetFlags",
            "hipPointerSetAttribute",
            "hipMallocManaged",
            "hipMemAdvise",
            "hipMemPrefetchAsync",
            "hipMemRangeGetAttribute",
            "hipMemRangeGetAttributes",
            "hipStreamAttachMemAsync",
            "hipMallocPitch",
            "hipMemAllocPitch",
            "hipMalloc3D",
            "hipMemcpy2D",
            "hipMemcpy2DAsync",
            "hipMemcpyParam2D",
            "hipMemcpyParam2DAsync",
            "hipMemcpy3D",
            "hipMemcpy3DAsync",
            "hipDrvMemcpy3D",
            "hipDrvMemcpy3DAsync",
            "hipMemset2D",
            "hipMemset2DAsync",
            "hipMemset3D",
            "hipMemset3DAsync",
        ],
    ),
    ("hip_5.0", &["hipPointerGetAttribute", "hipDrvPointerGetAttributes"]),
    (
        "hip_5.2",
        &[
            "hipMemcpy_spt",
            "hipMemset_spt",
            "hipMemcpy2D_spt",
            "hipMemset2D_spt",
            "hipMemcpy3D_spt",
            "hipMemset3D_spt",
            "hipMemcpyAsync_spt",
        ],
    ),
    (
        "hip_5.3",
        &[
            "hipMemsetAsync_spt",
            "hipMemcpy2DAsync_spt",
            "hipMemset2DAsync_spt",
            "hipMemcpy3DAsync_spt",
            "hipMemset3DAsync_spt",
        ],
    ),
    ("hip_6.1", &["hipGetProcAddress"]),
    // Arrays, in linear memory.
    (
        "hip_4.2",
        &[
            "hipArrayCreate",
            "hipArray3DCreate",
            "hipMallocArray",
            "hipMalloc3DArray",
            "hipFreeArray",
            "hipMemcpyHtoA",
            "hipMemcpyAtoH",
            "hipMemcpyToArray",
            "hipMemcpyFromArray",
            "hipMemcpy2DToArray",
            "hipMemcpy2DFromArray",
            "hipMemcpy2DFromArrayAsync",
        ],
    ),
    ("hip_4.3", &["hipArrayDestroy", "hipMemcpy2DToArrayAsync"]),
    ("hip_5.2", &["hipMemcpy2DToArray_spt", "hipMemcpy2DFromArray_spt"]),
    ("hip_5.3", &["hipMemcpy2DToArrayAsync_spt", "hipMemcpy2DFromArrayAsync_spt", "hipMemcpyFromArray_spt"]),
    ("hip_5.6", &["hipArrayGetInfo", "hipArrayGetDescriptor", "hipArray3DGetDescriptor"]),
    (
        "hip_6.2",
        &[
            "hipMemcpy2DArrayToArray",
            "hipMemcpyAtoA",
            "hipMemcpyAtoD",
            "hipMemcpyAtoHAsync",
            "hipMemcpyDtoA",
            "hipMemcpyHtoAAsync",
        ],
    ),
    ("VMMKIT_0.1", &[vmmkit_sys::SHIM_MARKER]),
    // Exported by the real library beside the header's API (docs/hip.md "The export list").
    (
        "hip_4.2",
        &[
            "hipCreateChannelDesc",
            "hipGetDevicePropertiesR0000",
            "hipChooseDeviceR0000",
            "__hipRegisterManagedVar",
            "__hipRegisterSurface",
            "__hipRegisterTexture",
            "__gnu_h2f_ieee",
            "__gnu_f2h_ieee",
            "hipExtModuleLaunchKernel",
            "hipHccModuleLaunchKernel",
            "_Z24hipExtModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_j",
            "_Z24hipHccModuleLaunchKernelP18ihipModuleSymbol_tjjjjjjmP12ihipStream_tPPvS4_P11ihipEvent_tS6_",
            "hipGetCmdName",
        ],
    ),
    ("hip_4.3", &["hipGLGetDevices", "hipGraphicsGLRegisterBuffer"]),
    (
        "hip_4.5",
        &[
            "hipGraphicsGLRegisterImage",
            "amd_dbgapi_get_build_name",
            "amd_dbgapi_get_git_hash",
            "amd_dbgapi_get_build_id",
        ],
    ),
    ("hip_5.3", &["hipRegisterTracerCallback"]),
    // hiprtc, in Debian's 6.x library (`amdhip64::hiprtc`).
    (
        "hip_4.2",
        &[
            "hiprtcAddNameExpression",
            "hiprtcCompileProgram",
            "hiprtcCreateProgram",
            "hiprtcDestroyProgram",
            "hiprtcGetCode",
            "hiprtcGetCodeSize",
            "hiprtcGetErrorString",
            "hiprtcGetLoweredName",
            "hiprtcGetProgramLog",
            "hiprtcGetProgramLogSize",
            "hiprtcLinkAddData",
            "hiprtcLinkAddFile",
            "hiprtcLinkComplete",
            "hiprtcLinkCreate",
            "hiprtcLinkDestroy",
            "hiprtcVersion",
        ],
    ),
    ("hip_5.3", &["hiprtcGetBitcode", "hiprtcGetBitcodeSize"]),
];

/// Devices, contexts, streams, events, and the exports that are not
/// emulated (`DEVICE_CODE`, `NOT_YET`), each in its node of Debian's
/// libamdhip64.so.7 (7.2.4, `nm -D`), which agrees with clr's `hip_hcc.map.in`.
const ISSUE_18: &[(&str, &[&str])] = &[
    (
        "hip_4.2",
        &[
            "__hipRegisterFatBinary",
            "__hipRegisterFunction",
            "__hipRegisterVar",
            "__hipUnregisterFatBinary",
            "hipDeviceReset",
            "hipDeviceGetPCIBusId",
            "hipDeviceGetByPCIBusId",
            "hipDeviceGetName",
            "hipDeviceTotalMem",
            "hipDeviceComputeCapability",
            "hipDeviceGetP2PAttribute",
            "hipExtGetLinkTypeAndHopCount",
            "hipSetDeviceFlags",
            "hipGetDeviceFlags",
            "hipDeviceGetLimit",
            "hipDeviceSetCacheConfig",
            "hipDeviceGetCacheConfig",
            "hipDeviceSetSharedMemConfig",
            "hipDeviceGetSharedMemConfig",
            "hipChooseDevice",
            "hipDeviceGetTexture1DLinearMaxWidth",
            "hipCtxCreate",
            "hipCtxDestroy",
            "hipCtxPushCurrent",
            "hipCtxPopCurrent",
            "hipCtxSetCurrent",
            "hipCtxGetCurrent",
            "hipCtxGetDevice",
            "hipCtxGetApiVersion",
            "hipCtxGetCacheConfig",
            "hipCtxSetCacheConfig",
            "hipCtxSetSharedMemConfig",
            "hipCtxGetSharedMemConfig",
            "hipCtxSynchronize",
            "hipCtxGetFlags",
            "hipCtxEnablePeerAccess",
            "hipCtxDisablePeerAccess",
            "hipDevicePrimaryCtxGetState",
            "hipDevicePrimaryCtxRelease",
            "hipDevicePrimaryCtxRetain",
            "hipDevicePrimaryCtxReset",
            "hipDevicePrimaryCtxSetFlags",
            "hipStreamGetDevice",
            "hipGetStreamDeviceId",
            "hipExtStreamCreateWithCUMask",
            "hipExtStreamGetCUMask",
            "hipProfilerStart",
            "hipProfilerStop",
            "__hipGetPCH",
            "__hipPopCallConfiguration",
            "__hipPushCallConfiguration",
            "hipBindTexture",
            "hipBindTexture2D",
            "hipBindTextureToArray",
            "hipBindTextureToMipmappedArray",
            "hipConfigureCall",
            "hipCreateSurfaceObject",
            "hipCreateTextureObject",
            "hipDestroySurfaceObject",
            "hipDestroyTextureObject",
            "hipExtLaunchKernel",
            "hipExtLaunchMultiKernelMultiDevice",
            "hipFreeMipmappedArray",
            "hipFuncGetAttribute",
            "hipFuncGetAttributes",
            "hipFuncSetAttribute",
            "hipFuncSetCacheConfig",
            "hipFuncSetSharedMemConfig",
            "hipGetChannelDesc",
            "hipGetMipmappedArrayLevel",
            "hipGetTextureAlignmentOffset",
            "hipGetTextureObjectResourceDesc",
            "hipGetTextureObjectResourceViewDesc",
            "hipGetTextureObjectTextureDesc",
            "hipGetTextureReference",
            "hipKernelNameRef",
            "hipKernelNameRefByPtr",
            "hipLaunchByPtr",
            "hipLaunchCooperativeKernel",
            "hipLaunchCooperativeKernelMultiDevice",
            "hipLaunchKernel",
            "hipMallocMipmappedArray",
            "hipMipmappedArrayCreate",
            "hipMipmappedArrayDestroy",
            "hipMipmappedArrayGetLevel",
            "hipModuleGetFunction",
            "hipModuleGetTexRef",
            "hipModuleLaunchKernel",
            "hipModuleLoad",
            "hipModuleLoadData",
            "hipModuleLoadDataEx",
            "hipModuleOccupancyMaxActiveBlocksPerMultiprocessor",
            "hipModuleOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            "hipModuleOccupancyMaxPotentialBlockSize",
            "hipModuleOccupancyMaxPotentialBlockSizeWithFlags",
            "hipModuleUnload",
            "hipOccupancyMaxActiveBlocksPerMultiprocessor",
            "hipOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
            "hipOccupancyMaxPotentialBlockSize",
            "hipSetupArgument",
            "hipTexObjectCreate",
            "hipTexObjectDestroy",
            "hipTexObjectGetResourceDesc",
            "hipTexObjectGetResourceViewDesc",
            "hipTexObjectGetTextureDesc",
            "hipTexRefGetAddress",
            "hipTexRefGetAddressMode",
            "hipTexRefGetArray",
            "hipTexRefGetBorderColor",
            "hipTexRefGetFilterMode",
            "hipTexRefGetFlags",
            "hipTexRefGetFormat",
            "hipTexRefGetMaxAnisotropy",
            "hipTexRefGetMipMappedArray",
            "hipTexRefGetMipmapFilterMode",
            "hipTexRefGetMipmapLevelBias",
            "hipTexRefGetMipmapLevelClamp",
            "hipTexRefSetAddress",
            "hipTexRefSetAddress2D",
            "hipTexRefSetAddressMode",
            "hipTexRefSetArray",
            "hipTexRefSetBorderColor",
            "hipTexRefSetFilterMode",
            "hipTexRefSetFlags",
            "hipTexRefSetFormat",
            "hipTexRefSetMaxAnisotropy",
            "hipTexRefSetMipmapFilterMode",
            "hipTexRefSetMipmapLevelBias",
            "hipTexRefSetMipmapLevelClamp",
            "hipTexRefSetMipmappedArray",
            "hipUnbindTexture",
            "hipApiName",
        ],
    ),
    (
        "hip_4.3",
        &[
            "hipGraphicsMapResources",
            "hipGraphicsResourceGetMappedPointer",
            "hipGraphicsUnmapResources",
            "hipGraphicsUnregisterResource",
            "hipDestroyExternalMemory",
            "hipDestroyExternalSemaphore",
            "hipDrvMemcpy2DUnaligned",
            "hipExternalMemoryGetMappedBuffer",
            "hipGraphAddKernelNode",
            "hipGraphAddMemcpyNode",
            "hipGraphAddMemcpyNode1D",
            "hipGraphAddMemsetNode",
            "hipGraphCreate",
            "hipGraphDestroy",
            "hipGraphExecDestroy",
            "hipGraphInstantiate",
            "hipGraphLaunch",
            "hipImportExternalMemory",
            "hipImportExternalSemaphore",
            "hipSignalExternalSemaphoresAsync",
            "hipStreamBeginCapture",
            "hipStreamEndCapture",
            "hipStreamIsCapturing",
            "hipWaitExternalSemaphoresAsync",
        ],
    ),
    (
        "hip_4.4",
        &[
            "hipStreamWaitValue32",
            "hipStreamWaitValue64",
            "hipStreamWriteValue32",
            "hipStreamWriteValue64",
            "hipGraphAddDependencies",
            "hipGraphAddEmptyNode",
            "hipGraphExecKernelNodeSetParams",
            "hipGraphGetNodes",
            "hipGraphGetRootNodes",
            "hipGraphKernelNodeGetParams",
            "hipGraphKernelNodeSetParams",
            "hipGraphMemcpyNodeGetParams",
            "hipGraphMemcpyNodeSetParams",
            "hipGraphMemsetNodeGetParams",
            "hipGraphMemsetNodeSetParams",
        ],
    ),
    (
        "hip_4.5",
        &[
            "hipGraphicsSubResourceGetMappedArray",
            "hipDeviceGetGraphMemAttribute",
            "hipDeviceGraphMemTrim",
            "hipDeviceSetGraphMemAttribute",
            "hipGraphAddChildGraphNode",
            "hipGraphAddEventRecordNode",
            "hipGraphAddEventWaitNode",
            "hipGraphAddHostNode",
            "hipGraphAddMemcpyNodeFromSymbol",
            "hipGraphAddMemcpyNodeToSymbol",
            "hipGraphChildGraphNodeGetGraph",
            "hipGraphClone",
            "hipGraphDestroyNode",
            "hipGraphEventRecordNodeGetEvent",
            "hipGraphEventRecordNodeSetEvent",
            "hipGraphEventWaitNodeGetEvent",
            "hipGraphEventWaitNodeSetEvent",
            "hipGraphExecChildGraphNodeSetParams",
            "hipGraphExecEventRecordNodeSetEvent",
            "hipGraphExecEventWaitNodeSetEvent",
            "hipGraphExecHostNodeSetParams",
            "hipGraphExecMemcpyNodeSetParams",
            "hipGraphExecMemcpyNodeSetParams1D",
            "hipGraphExecMemcpyNodeSetParamsFromSymbol",
            "hipGraphExecMemcpyNodeSetParamsToSymbol",
            "hipGraphExecMemsetNodeSetParams",
            "hipGraphExecUpdate",
            "hipGraphGetEdges",
            "hipGraphHostNodeGetParams",
            "hipGraphHostNodeSetParams",
            "hipGraphInstantiateWithFlags",
            "hipGraphMemcpyNodeSetParams1D",
            "hipGraphMemcpyNodeSetParamsFromSymbol",
            "hipGraphMemcpyNodeSetParamsToSymbol",
            "hipGraphNodeFindInClone",
            "hipGraphNodeGetDependencies",
            "hipGraphNodeGetDependentNodes",
            "hipGraphNodeGetType",
            "hipGraphRemoveDependencies",
            "hipStreamGetCaptureInfo",
            "hipStreamGetCaptureInfo_v2",
            "hipStreamUpdateCaptureDependencies",
        ],
    ),
    (
        "hip_5.0",
        &["hipGraphKernelNodeGetAttribute", "hipGraphKernelNodeSetAttribute", "hipThreadExchangeStreamCaptureMode"],
    ),
    ("hip_5.1", &["hipDeviceGetUuid"]),
    (
        "hip_5.2",
        &[
            "hipStreamSynchronize_spt",
            "hipStreamQuery_spt",
            "hipStreamWaitEvent_spt",
            "hipStreamGetFlags_spt",
            "hipStreamGetPriority_spt",
            "hipEventRecord_spt",
            "hipLaunchCooperativeKernel_spt",
            "hipLaunchKernel_spt",
        ],
    ),
    (
        "hip_5.3",
        &[
            "hipDeviceSetLimit",
            "hipDrvGetErrorName",
            "hipDrvGetErrorString",
            "hipStreamAddCallback_spt",
            "hipLaunchHostFunc_spt",
            "hipGraphAddExternalSemaphoresSignalNode",
            "hipGraphAddExternalSemaphoresWaitNode",
            "hipGraphDebugDotPrint",
            "hipGraphExecExternalSemaphoresSignalNodeSetParams",
            "hipGraphExecExternalSemaphoresWaitNodeSetParams",
            "hipGraphExternalSemaphoresSignalNodeGetParams",
            "hipGraphExternalSemaphoresSignalNodeSetParams",
            "hipGraphExternalSemaphoresWaitNodeGetParams",
            "hipGraphExternalSemaphoresWaitNodeSetParams",
            "hipGraphKernelNodeCopyAttributes",
            "hipGraphLaunch_spt",
            "hipGraphNodeGetEnabled",
            "hipGraphNodeSetEnabled",
            "hipGraphReleaseUserObject",
            "hipGraphRetainUserObject",
            "hipGraphUpload",
            "hipStreamBeginCapture_spt",
            "hipStreamEndCapture_spt",
            "hipStreamGetCaptureInfo_spt",
            "hipStreamGetCaptureInfo_v2_spt",
            "hipStreamIsCapturing_spt",
            "hipUserObjectCreate",
            "hipUserObjectRelease",
            "hipUserObjectRetain",
        ],
    ),
    (
        "hip_5.5",
        &[
            "hipModuleLaunchCooperativeKernel",
            "hipModuleLaunchCooperativeKernelMultiDevice",
            "hipGraphAddMemAllocNode",
            "hipGraphAddMemFreeNode",
            "hipGraphAddNode",
            "hipGraphMemAllocNodeGetParams",
            "hipGraphMemFreeNodeGetParams",
        ],
    ),
    ("hip_5.6", &["hipDrvGraphAddMemcpyNode", "hipDrvGraphAddMemsetNode"]),
    ("hip_6.0", &["hipChooseDeviceR0600", "hipDrvGraphMemcpyNodeGetParams", "hipDrvGraphMemcpyNodeSetParams"]),
    ("hip_6.1", &["hipGraphInstantiateWithParams", "hipStreamBeginCaptureToGraph"]),
    (
        "hip_6.2",
        &[
            "hipSetValidDevices",
            "hipGetFuncBySymbol",
            "hipDrvGraphAddMemFreeNode",
            "hipDrvGraphExecMemcpyNodeSetParams",
            "hipDrvGraphExecMemsetNodeSetParams",
            "hipGraphExecGetFlags",
            "hipGraphExecNodeSetParams",
            "hipGraphNodeSetParams",
        ],
    ),
    (
        "hip_6.4",
        &[
            "hipStreamBatchMemOp",
            "hipEventRecordWithFlags",
            "hipLinkAddData",
            "hipLinkAddFile",
            "hipLinkComplete",
            "hipLinkCreate",
            "hipLinkDestroy",
            "hipGraphAddBatchMemOpNode",
            "hipGraphBatchMemOpNodeGetParams",
            "hipGraphBatchMemOpNodeSetParams",
            "hipGraphExecBatchMemOpNodeSetParams",
        ],
    ),
    ("hip_6.5", &["hipDrvLaunchKernelEx", "hipLaunchKernelExC", "hipMemGetHandleForAddressRange"]),
    (
        "hip_7.1",
        &[
            "hipStreamGetId",
            "hipStreamGetAttribute",
            "hipStreamSetAttribute",
            "hipModuleGetFunctionCount",
            "hipModuleLoadFatBinary",
            "hipGetDriverEntryPoint",
            "hipGetDriverEntryPoint_spt",
        ],
    ),
    (
        "hip_7.2",
        &[
            "hipStreamCopyAttributes",
            "hipKernelGetLibrary",
            "hipKernelGetName",
            "hipLibraryEnumerateKernels",
            "hipLibraryGetKernel",
            "hipLibraryGetKernelCount",
            "hipLibraryLoadData",
            "hipLibraryLoadFromFile",
            "hipLibraryUnload",
            "hipOccupancyAvailableDynamicSMemPerBlock",
        ],
    ),
    // The memory functions added with the merge: the symbol functions
    // (device code) and the 7.1 memory functions.
    (
        "hip_4.2",
        &[
            "hipGetSymbolAddress",
            "hipGetSymbolSize",
            "hipMemcpyToSymbol",
            "hipMemcpyToSymbolAsync",
            "hipMemcpyFromSymbol",
            "hipMemcpyFromSymbolAsync",
            "hipModuleGetGlobal",
        ],
    ),
    ("hip_5.2", &["hipMemcpyToSymbol_spt", "hipMemcpyFromSymbol_spt"]),
    ("hip_5.3", &["hipMemcpyToSymbolAsync_spt", "hipMemcpyFromSymbolAsync_spt"]),
    (
        "hip_7.1",
        &[
            "hipMemsetD2D8",
            "hipMemsetD2D8Async",
            "hipMemsetD2D16",
            "hipMemsetD2D16Async",
            "hipMemsetD2D32",
            "hipMemsetD2D32Async",
            "hipMemcpy3DPeer",
            "hipMemcpy3DPeerAsync",
            "hipMemAdvise_v2",
            "hipMemPrefetchAsync_v2",
            "hipMemcpyBatchAsync",
            "hipMemcpy3DBatchAsync",
        ],
    ),
];

/// Every node with its functions: [`NODES`] and [`ISSUE_18`].
fn all_nodes() -> impl Iterator<Item = (&'static str, &'static str)> {
    NODES.iter().chain(ISSUE_18).flat_map(|(node, fs)| fs.iter().map(move |f| (*node, *f)))
}

/// The whole chain of a 7.2 library (hip.md §1.2), every node defined.
const CHAIN: &[&str] = &[
    "hip_4.2", "hip_4.3", "hip_4.4", "hip_4.5", "hip_5.0", "hip_5.1", "hip_5.2", "hip_5.3", "hip_5.5", "hip_5.6",
    "hip_6.0", "hip_6.1", "hip_6.2", "hip_6.3", "hip_6.4", "hip_6.5", "hip_7.1", "hip_7.2",
];

/// `objdump -T`: name → (version node, is a function), defined symbols only.
fn versioned_functions() -> BTreeMap<String, (String, bool)> {
    let lib = common::library();
    let out = common::binutils("objdump", &["-T".as_ref(), lib.as_os_str()]);
    out.lines()
        .filter(|l| l.contains(" g ") && !l.contains("*UND*"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let name = f.last()?.to_string();
            let node = f.get(f.len().checked_sub(2)?)?.trim_start_matches('(').trim_end_matches(')').to_string();
            let function = f.contains(&"DF");
            Some((name, (node, function)))
        })
        .filter(|(name, (node, _))| name != node) // the node definitions themselves
        .collect()
}

fn every_function_in_its_vendor_node() {
    let got = versioned_functions();
    let want: BTreeMap<String, String> = all_nodes().map(|(node, f)| (f.to_string(), node.to_string())).collect();
    for (name, node) in &want {
        match got.get(name) {
            Some((n, true)) => assert_eq!(n, node, "{name} should be in {node}, is in {n}"),
            Some((n, false)) => panic!("{name}@{n} is not a function"),
            None => panic!("{name} is not exported"),
        }
    }
    let extra: Vec<_> = got.keys().filter(|k| !want.contains_key(*k)).collect();
    assert!(extra.is_empty(), "unexpected exports: {extra:?}");
    println!(
        "{} functions, each in its node: {:?}",
        got.len(),
        NODES.iter().chain(ISSUE_18).map(|(n, f)| (n, f.len())).collect::<Vec<_>>()
    );
}

/// The node tables above are the list of `vmmkit_sys::hip_functions!` and
/// the two lists of unsupported exports: nothing missing, nothing extra, no
/// name twice.
fn node_table_is_the_function_list() {
    let names: Vec<&str> = all_nodes().map(|(_, f)| f).filter(|f| *f != vmmkit_sys::SHIM_MARKER).collect();
    let table: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(table.len(), names.len(), "a name is listed twice");
    let unsupported: Vec<&str> = amdhip64::DEVICE_CODE
        .iter()
        .chain(amdhip64::NOT_YET)
        .chain(amdhip64::hiprtc::RUNTIME_COMPILER)
        .copied()
        .collect();
    let list: BTreeSet<&str> = HipApi::REQUIRED.iter().chain(HipApi::OPTIONAL).chain(&unsupported).copied().collect();
    assert_eq!(
        list.len(),
        HipApi::REQUIRED.len() + HipApi::OPTIONAL.len() + unsupported.len(),
        "emulated and unsupported overlap"
    );
    assert_eq!(table, list);
}

fn version_chain() {
    let lib = common::library();
    let versions = common::binutils("readelf", &["-V".as_ref(), lib.as_os_str()]);
    let defined: Vec<&str> = versions
        .lines()
        .filter_map(|l| l.split("Name: ").nth(1))
        .map(|n| n.split_whitespace().next().unwrap_or(""))
        .collect();
    for node in CHAIN {
        assert!(defined.contains(node), "version node {node} is not defined: {defined:?}");
    }
    // Each node after the first has its predecessor as parent.
    for pair in CHAIN.windows(2) {
        let line = format!("Parent 1: {}", pair[0]);
        assert!(versions.contains(&line), "{} should inherit {}:\n{versions}", pair[1], pair[0]);
    }
    // readelf --dyn-syms agrees with objdump -T on the versions.
    let syms = common::binutils("readelf", &["--dyn-syms".as_ref(), "-W".as_ref(), lib.as_os_str()]);
    for f in ["hipMalloc@@hip_4.2", "hipMemCreate@@hip_5.1", "hipGetDevicePropertiesR0600@@hip_6.0"] {
        assert!(syms.contains(f), "readelf --dyn-syms lacks {f}");
    }
}

/// The soname, and the link of that name that build.rs leaves beside the
/// library in `<target>/<profile>/deps/` and `<target>/<profile>/`, so that
/// programs linked with `-lamdhip64` (which then need `libamdhip64.so.6`)
/// find it there.
fn soname_and_its_link() {
    let lib = common::library();
    let dynamic = common::binutils("readelf", &["-d".as_ref(), lib.as_os_str()]);
    assert!(
        dynamic.lines().any(|l| l.contains("(SONAME)") && l.contains("[libamdhip64.so.6]")),
        "soname should be libamdhip64.so.6 (the 6.x profile, hip.md §1.1):\n{dynamic}"
    );
    assert!(dynamic.contains("BIND_NOW"), "the library should be linked with -z now:\n{dynamic}");
    for dir in [common::profile_dir().join("deps"), common::profile_dir()] {
        let so6 = dir.join("libamdhip64.so.6");
        let target = std::fs::read_link(&so6).unwrap_or_else(|e| panic!("{} is not a link: {e}", so6.display()));
        assert_eq!(target, Path::new("libamdhip64.so"), "{}", so6.display());
    }
    let so6 = common::library_dir().join("libamdhip64.so.6");
    assert_eq!(
        so6.canonicalize().expect("libamdhip64.so.6 resolves"),
        lib.canonicalize().expect("libamdhip64.so resolves"),
        "libamdhip64.so.6 should be the library Cargo built"
    );
}

fn no_rust_symbols_leak() {
    let lib = common::library();
    let out = common::binutils("nm", &["-D".as_ref(), "--defined-only".as_ref(), lib.as_os_str()]);
    let mangled: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .filter(|n| n.starts_with("_ZN") || n.starts_with("_R") || n.starts_with("__rust") || n.starts_with("rust_"))
        .collect();
    assert!(mangled.is_empty(), "Rust symbols exported: {mangled:?}");
}

/// `dlvsym` finds every function under its node (without build.rs they
/// would be unversioned and `dlvsym` would return NULL, hip.md §1.3), and the loader
/// of vmmkit-sys loads the library as a full table and sees the marker.
fn dlvsym_and_the_loader() {
    let lib = common::library();
    let loaded = HipApi::load(Some(&lib)).expect("load libamdhip64.so by path");
    assert!(loaded.is_vmmkit_shim, "the loader should see the {} marker", vmmkit_sys::SHIM_MARKER);
    assert!(loaded.api.missing_optional().is_empty(), "optional missing: {:?}", loaded.api.missing_optional());
    let mut v = 0;
    // SAFETY: a valid out-pointer; the version query needs no emulator root.
    assert_eq!(unsafe { (loaded.api.hipRuntimeGetVersion)(&mut v) }, 0);
    assert_eq!(vmmkit_sys::hip::hip_version_parts(v).0, 6);
    let path = CString::new(lib.to_str().expect("UTF-8 path")).expect("no NUL");
    // SAFETY: dlopen of our own library by path; RTLD_NOLOAD|RTLD_LAZY finds the copy loaded above.
    let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    assert!(!h.is_null(), "the library is loaded");
    for (node, f) in all_nodes() {
        let version = CString::new(node).expect("no NUL");
        {
            let name = CString::new(f).expect("no NUL");
            // SAFETY: a lookup by name and version in a loaded library.
            let p = unsafe { libc::dlvsym(h, name.as_ptr(), version.as_ptr()) };
            assert!(!p.is_null(), "dlvsym({f}, {node}) is NULL");
        }
    }
    // SAFETY: drops the reference RTLD_NOLOAD took.
    unsafe { libc::dlclose(h) };
}

/// The kept export list of the real libraries, `docs/api/hip-exports.tsv`
/// (written by `scripts/hip-exports.sh` from Debian's packages): (name, node).
fn real_export_list() -> BTreeSet<(String, String)> {
    let path = common::repo_root().join("docs/api/hip-exports.tsv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut f = l.split('\t');
            let (name, node) = (f.next().unwrap_or_default(), f.next().unwrap_or_default());
            assert!(!name.is_empty() && node.starts_with("hip_"), "{}: bad line {l:?}", path.display());
            (name.to_string(), node.to_string())
        })
        .collect()
}

/// Every function the real libamdhip64 (6.x and 7.x, as Debian packages
/// them) exports is exported by ours, in the same version node: emulated or
/// not supported.
fn every_export_of_the_real_library_is_here_in_its_node() {
    let got = versioned_functions();
    let list = real_export_list();
    assert!(list.len() > 500, "{} names in docs/api/hip-exports.tsv", list.len());
    for (name, node) in &list {
        match got.get(name) {
            Some((n, true)) => assert_eq!(n, node, "{name} should be in {node}, as in the real library; it is in {n}"),
            Some((n, false)) => panic!("{name}@{n} is not a function"),
            None => panic!("{name}@{node}, exported by the real library, is not exported by ours"),
        }
    }
}

/// The functions a real library exports, with their nodes (`readelf --dyn-syms`:
/// defined, global or weak).
fn exports_of(lib: &Path) -> BTreeSet<(String, String)> {
    common::binutils("readelf", &["--dyn-syms".as_ref(), "-W".as_ref(), lib.as_os_str()])
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let defined = f.len() >= 8 && f[3] == "FUNC" && matches!(f[4], "GLOBAL" | "WEAK") && f[6] != "UND";
            let (name, node) = f.get(7).filter(|_| defined)?.split_once('@')?;
            Some((name.to_string(), node.trim_start_matches('@').to_string()))
        })
        .collect()
}

/// The kept list is what the real libraries export: Debian's
/// `libamdhip64-6` and `libamdhip64-7`, fetched by `scripts/fetch-hip.sh
/// libraries` (no install). Skipped, with the reason, where the package
/// registry cannot be reached (`VMMKIT_REQUIRE_REAL_HIP=1` makes that a failure).
fn the_export_list_is_the_real_libraries() {
    let env = match vmmkit_testkit::hip::fetch(&common::repo_root(), "libraries") {
        Ok(env) => env,
        Err(why) => vmmkit_testkit::hip::ignore(&why),
    };
    let mut real = BTreeSet::new();
    for major in ["6", "7"] {
        let lib = env.get(&format!("HIP_LIB_{major}")).unwrap_or_else(|| panic!("no HIP_LIB_{major} in {env:?}"));
        let names = exports_of(Path::new(lib));
        assert!(names.len() > 400, "{lib}: {} exports", names.len());
        real.extend(names);
    }
    let kept = real_export_list();
    let missing: Vec<_> = real.difference(&kept).collect();
    let stale: Vec<_> = kept.difference(&real).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "docs/api/hip-exports.tsv is stale (scripts/hip-exports.sh): missing {missing:?}, not exported {stale:?}"
    );
}

vmmkit_testkit::harness!(
    every_function_in_its_vendor_node,
    node_table_is_the_function_list,
    version_chain,
    soname_and_its_link,
    no_rust_symbols_leak,
    dlvsym_and_the_loader,
    every_export_of_the_real_library_is_here_in_its_node,
    the_export_list_is_the_real_libraries,
);
