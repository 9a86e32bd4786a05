//! CUDA driver typedefs, constants and structures (reference cuda.md §1.3 and §2), x86-64 layout.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::{c_char, c_void};

/// `CUresult`: a 4-byte C enum, 0 on success. See [`crate::cuda::CuResult`].
pub type CUresult = u32;
/// `CUdevice`: a device ordinal (`int`).
pub type CUdevice = i32;
/// `CUdeviceptr`: a device address, 8 bytes.
pub type CUdeviceptr = u64;
/// `CUmemGenericAllocationHandle`: 8 bytes; its value means nothing in another process.
pub type CUmemGenericAllocationHandle = u64;
/// `CUcontext`: an opaque pointer.
pub type CUcontext = *mut c_void;

/// `CUdevice_attribute` (C enum, 4 bytes). Only the attributes cuda.md §1.3 lists.
pub type CUdevice_attribute = u32;
/// Must read `CU_COMPUTEMODE_DEFAULT` for IPC. cuda.md does not give the values of `CUcomputemode`.
pub const CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: CUdevice_attribute = 20;
pub const CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: CUdevice_attribute = 41;
pub const CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: CUdevice_attribute = 102;
pub const CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: CUdevice_attribute = 103;
pub const CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: CUdevice_attribute = 125;
pub const CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED: CUdevice_attribute = 128;

/// `CUmemAllocationHandleType` (bit flags).
pub type CUmemAllocationHandleType = u32;
pub const CU_MEM_HANDLE_TYPE_NONE: CUmemAllocationHandleType = 0;
pub const CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR: CUmemAllocationHandleType = 1;
pub const CU_MEM_HANDLE_TYPE_WIN32: CUmemAllocationHandleType = 2;
pub const CU_MEM_HANDLE_TYPE_WIN32_KMT: CUmemAllocationHandleType = 4;
pub const CU_MEM_HANDLE_TYPE_FABRIC: CUmemAllocationHandleType = 8;

/// `CUmemAllocationType`.
pub type CUmemAllocationType = u32;
pub const CU_MEM_ALLOCATION_TYPE_INVALID: CUmemAllocationType = 0;
pub const CU_MEM_ALLOCATION_TYPE_PINNED: CUmemAllocationType = 1;

/// `CUmemLocationType`.
pub type CUmemLocationType = u32;
pub const CU_MEM_LOCATION_TYPE_INVALID: CUmemLocationType = 0;
pub const CU_MEM_LOCATION_TYPE_DEVICE: CUmemLocationType = 1;
pub const CU_MEM_LOCATION_TYPE_HOST: CUmemLocationType = 2;
pub const CU_MEM_LOCATION_TYPE_HOST_NUMA: CUmemLocationType = 3;
pub const CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT: CUmemLocationType = 4;

/// `CUmemAccess_flags`.
pub type CUmemAccess_flags = u32;
pub const CU_MEM_ACCESS_FLAGS_PROT_NONE: CUmemAccess_flags = 0;
pub const CU_MEM_ACCESS_FLAGS_PROT_READ: CUmemAccess_flags = 1;
pub const CU_MEM_ACCESS_FLAGS_PROT_READWRITE: CUmemAccess_flags = 3;

/// `CUmemAllocationGranularity_flags`. `cuMemGetAllocationGranularity` takes it as an `int`.
pub type CUmemAllocationGranularity_flags = i32;
pub const CU_MEM_ALLOC_GRANULARITY_MINIMUM: CUmemAllocationGranularity_flags = 0;
pub const CU_MEM_ALLOC_GRANULARITY_RECOMMENDED: CUmemAllocationGranularity_flags = 1;

/// `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`, the flag of `cuIpcOpenMemHandle` (an `unsigned int`).
/// HIP's twin was 0 up to ROCm 5.7.
pub const CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS: u32 = 1;

/// `CU_IPC_HANDLE_SIZE`: the size of the IPC memory, event and fabric handles.
pub const CU_IPC_HANDLE_SIZE: usize = 64;

/// `CUipcMemHandle`: 64 opaque bytes, passed **by value** to `cuIpcOpenMemHandle_v2`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CUipcMemHandle {
    pub reserved: [c_char; CU_IPC_HANDLE_SIZE],
}

impl Default for CUipcMemHandle {
    fn default() -> Self {
        Self { reserved: [0; CU_IPC_HANDLE_SIZE] }
    }
}

/// `CUmemLocation`: 8 bytes. In CUDA 13.2 `id` sits in a one-member union; same layout.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CUmemLocation {
    pub type_: CUmemLocationType,
    pub id: i32,
}

/// `CUmemAccessDesc`: 12 bytes, align 4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CUmemAccessDesc {
    pub location: CUmemLocation,
    pub flags: CUmemAccess_flags,
}

/// The `allocFlags` member of [`CUmemAllocationProp`]: 8 bytes at offset 24.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CUmemAllocationProp_allocFlags {
    pub compressionType: u8,
    pub gpuDirectRDMACapable: u8,
    pub usage: u16,
    pub reserved: [u8; 4],
}

/// `CUmemAllocationProp`: 32 bytes, align 8; the same offsets as HIP 5.3+'s
/// `hipMemAllocationProp`. Start from [`Default`] (all zero), as the CUDA docs ask.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CUmemAllocationProp {
    pub type_: CUmemAllocationType,
    pub requestedHandleTypes: CUmemAllocationHandleType,
    pub location: CUmemLocation,
    /// NULL on Linux.
    pub win32HandleMetaData: *mut c_void,
    pub allocFlags: CUmemAllocationProp_allocFlags,
}

impl Default for CUmemAllocationProp {
    fn default() -> Self {
        Self {
            type_: CU_MEM_ALLOCATION_TYPE_INVALID,
            requestedHandleTypes: CU_MEM_HANDLE_TYPE_NONE,
            location: CUmemLocation::default(),
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: CUmemAllocationProp_allocFlags::default(),
        }
    }
}

// ---- Memory pools (cuda.h 12.x; the CUDA driver API's stream-ordered allocator) -----------

/// `CUmemoryPool`: an opaque pool pointer (`struct CUmemPoolHandle_st*`).
pub type CUmemoryPool = *mut c_void;
/// `CUstream`: an opaque stream pointer; NULL is the legacy default stream.
pub type CUstream = *mut c_void;
pub const CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: CUdevice_attribute = 115;
/// A mask of `CUmemAllocationHandleType`.
pub const CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: CUdevice_attribute = 119;

/// `CUmemPool_attribute`: the int attributes (1–3) and the `cuuint64_t` ones (4–8).
pub type CUmemPool_attribute = u32;
pub const CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES: CUmemPool_attribute = 1;
pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC: CUmemPool_attribute = 2;
pub const CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES: CUmemPool_attribute = 3;
pub const CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: CUmemPool_attribute = 4;
pub const CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: CUmemPool_attribute = 5;
pub const CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: CUmemPool_attribute = 6;
pub const CU_MEMPOOL_ATTR_USED_MEM_CURRENT: CUmemPool_attribute = 7;
pub const CU_MEMPOOL_ATTR_USED_MEM_HIGH: CUmemPool_attribute = 8;

/// `CUmemPoolProps` (`_v1`): 88 bytes, align 8; `maxSize` at 24 (12.2+), `usage` at 32
/// (12.x), then 54 reserved bytes that must be 0. Start from [`Default`] (all zero).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CUmemPoolProps {
    pub allocType: CUmemAllocationType,
    pub handleTypes: CUmemAllocationHandleType,
    pub location: CUmemLocation,
    /// NULL on Linux.
    pub win32SecurityAttributes: *mut c_void,
    pub maxSize: usize,
    pub usage: u16,
    pub reserved: [u8; 54],
}

impl Default for CUmemPoolProps {
    fn default() -> Self {
        Self {
            allocType: CU_MEM_ALLOCATION_TYPE_INVALID,
            handleTypes: CU_MEM_HANDLE_TYPE_NONE,
            location: CUmemLocation::default(),
            win32SecurityAttributes: std::ptr::null_mut(),
            maxSize: 0,
            usage: 0,
            reserved: [0; 54],
        }
    }
}

/// `CUmemPoolPtrExportData` (`_v1`): 64 opaque bytes.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CUmemPoolPtrExportData {
    pub reserved: [u8; 64],
}

impl Default for CUmemPoolPtrExportData {
    fn default() -> Self {
        Self { reserved: [0; 64] }
    }
}

// Layouts of reference cuda.md §1.3 and §2.2, checked at compile time.
const _: () = {
    use std::mem::{align_of, offset_of, size_of};
    assert!(size_of::<CUresult>() == 4 && size_of::<CUdevice>() == 4);
    assert!(size_of::<CUdeviceptr>() == 8 && size_of::<CUmemGenericAllocationHandle>() == 8);
    assert!(size_of::<CUcontext>() == 8);
    assert!(size_of::<CUipcMemHandle>() == 64 && align_of::<CUipcMemHandle>() == 1);
    assert!(size_of::<CUmemLocation>() == 8);
    assert!(offset_of!(CUmemLocation, type_) == 0 && offset_of!(CUmemLocation, id) == 4);
    assert!(size_of::<CUmemAccessDesc>() == 12 && align_of::<CUmemAccessDesc>() == 4);
    assert!(offset_of!(CUmemAccessDesc, location) == 0 && offset_of!(CUmemAccessDesc, flags) == 8);
    assert!(size_of::<CUmemAllocationProp>() == 32 && align_of::<CUmemAllocationProp>() == 8);
    assert!(offset_of!(CUmemAllocationProp, type_) == 0);
    assert!(offset_of!(CUmemAllocationProp, requestedHandleTypes) == 4);
    assert!(offset_of!(CUmemAllocationProp, location) == 8);
    assert!(offset_of!(CUmemAllocationProp, win32HandleMetaData) == 16);
    assert!(offset_of!(CUmemAllocationProp, allocFlags) == 24);
    assert!(offset_of!(CUmemAllocationProp, allocFlags.compressionType) == 24);
    assert!(offset_of!(CUmemAllocationProp, allocFlags.gpuDirectRDMACapable) == 25);
    assert!(offset_of!(CUmemAllocationProp, allocFlags.usage) == 26);
    assert!(offset_of!(CUmemAllocationProp, allocFlags.reserved) == 28);
    assert!(size_of::<CUmemPoolProps>() == 88 && align_of::<CUmemPoolProps>() == 8);
    assert!(offset_of!(CUmemPoolProps, allocType) == 0 && offset_of!(CUmemPoolProps, handleTypes) == 4);
    assert!(offset_of!(CUmemPoolProps, location) == 8);
    assert!(offset_of!(CUmemPoolProps, win32SecurityAttributes) == 16);
    assert!(offset_of!(CUmemPoolProps, maxSize) == 24 && offset_of!(CUmemPoolProps, usage) == 32);
    assert!(offset_of!(CUmemPoolProps, reserved) == 34);
    assert!(size_of::<CUmemPoolPtrExportData>() == 64 && align_of::<CUmemPoolPtrExportData>() == 1);
    assert!(size_of::<CUmemoryPool>() == 8 && size_of::<CUstream>() == 8);
};

// ---- Streams and events (cuda.h 12.x, the driver API's stream and event sections) ----

/// `CUevent`: an opaque event pointer (`struct CUevent_st*`).
pub type CUevent = *mut c_void;
/// `CUstreamCallback`: `void (*)(CUstream hStream, CUresult status, void *userData)`.
pub type CUstreamCallback = Option<unsafe extern "C" fn(hStream: CUstream, status: CUresult, userData: *mut c_void)>;
/// `CUhostFn`: `void (*)(void *userData)`.
pub type CUhostFn = Option<unsafe extern "C" fn(userData: *mut c_void)>;

/// `CUgraph`, `CUgraphNode`, `CUgraphExec`: opaque pointers.
pub type CUgraph = *mut c_void;
pub type CUgraphNode = *mut c_void;
pub type CUgraphExec = *mut c_void;
/// `CUstreamCaptureStatus`: None 0, Active 1, Invalidated 2.
pub type CUstreamCaptureStatus = u32;
pub const CU_STREAM_CAPTURE_STATUS_NONE: CUstreamCaptureStatus = 0;
pub const CU_STREAM_CAPTURE_STATUS_ACTIVE: CUstreamCaptureStatus = 1;
pub const CU_STREAM_CAPTURE_STATUS_INVALIDATED: CUstreamCaptureStatus = 2;
/// `CUstreamCaptureMode`: Global 0, ThreadLocal 1, Relaxed 2.
pub type CUstreamCaptureMode = u32;
pub const CU_STREAM_CAPTURE_MODE_GLOBAL: CUstreamCaptureMode = 0;
pub const CU_STREAM_CAPTURE_MODE_THREAD_LOCAL: CUstreamCaptureMode = 1;
pub const CU_STREAM_CAPTURE_MODE_RELAXED: CUstreamCaptureMode = 2;

/// `CUDA_MEMSET_NODE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUDA_MEMSET_NODE_PARAMS {
    pub dst: CUdeviceptr,
    pub pitch: usize,
    pub value: u32,
    pub elementSize: u32,
    pub width: usize,
    pub height: usize,
}

/// `CUDA_HOST_NODE_PARAMS`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct CUDA_HOST_NODE_PARAMS {
    pub fn_: CUhostFn,
    pub userData: *mut c_void,
}

const _: () = assert!(size_of::<CUDA_MEMSET_NODE_PARAMS>() == 40 && size_of::<CUDA_HOST_NODE_PARAMS>() == 16);

/// `CU_STREAM_LEGACY`: the legacy default stream, as a handle (same as NULL).
pub const CU_STREAM_LEGACY: CUstream = 0x1 as CUstream;
/// `CU_STREAM_PER_THREAD`: the calling thread's default stream.
pub const CU_STREAM_PER_THREAD: CUstream = 0x2 as CUstream;
/// `CUstream_flags`.
pub const CU_STREAM_DEFAULT: u32 = 0;
pub const CU_STREAM_NON_BLOCKING: u32 = 1;
/// `CUevent_flags`.
pub const CU_EVENT_DEFAULT: u32 = 0;
pub const CU_EVENT_BLOCKING_SYNC: u32 = 1;
pub const CU_EVENT_DISABLE_TIMING: u32 = 2;
pub const CU_EVENT_INTERPROCESS: u32 = 4;
/// `CUevent_wait_flags` (cuStreamWaitEvent).
pub const CU_EVENT_WAIT_DEFAULT: u32 = 0;
pub const CU_EVENT_WAIT_EXTERNAL: u32 = 1;
/// `CUstreamWaitValue_flags`: the comparison in the low bits, FLUSH at bit 30.
pub const CU_STREAM_WAIT_VALUE_GEQ: u32 = 0;
pub const CU_STREAM_WAIT_VALUE_EQ: u32 = 1;
pub const CU_STREAM_WAIT_VALUE_AND: u32 = 2;
pub const CU_STREAM_WAIT_VALUE_NOR: u32 = 3;
pub const CU_STREAM_WAIT_VALUE_FLUSH: u32 = 1 << 30;
/// `CUstreamWriteValue_flags`.
pub const CU_STREAM_WRITE_VALUE_DEFAULT: u32 = 0;
pub const CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER: u32 = 1;

/// `CUipcEventHandle`: 64 opaque bytes, passed **by value** to `cuIpcOpenEventHandle`.
#[repr(C)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct CUipcEventHandle {
    pub reserved: [c_char; CU_IPC_HANDLE_SIZE],
}

impl Default for CUipcEventHandle {
    fn default() -> Self {
        Self { reserved: [0; CU_IPC_HANDLE_SIZE] }
    }
}

const _: () = {
    use std::mem::{align_of, size_of};
    assert!(size_of::<CUipcEventHandle>() == 64 && align_of::<CUipcEventHandle>() == 1);
    assert!(size_of::<CUevent>() == 8 && size_of::<CUstreamCallback>() == 8 && size_of::<CUhostFn>() == 8);
};

crate::opaque::opaque_debug!(CUipcMemHandle.reserved, CUmemPoolPtrExportData.reserved, CUipcEventHandle.reserved);
