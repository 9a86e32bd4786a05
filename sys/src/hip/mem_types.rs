//! HIP memory-management types and constants (pitched and 3-D
//! memory, managed memory, host registration, pointer attributes), x86-64
//! layout, from Debian's HIP 7.2.4 headers (`hip/driver_types.h`,
//! `hip/hip_runtime_api.h`); the values are the same in 6.x.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::c_void;

use super::types::{hipMemcpyKind, hipMemoryType};

/// `hipArray_t`: an opaque pointer (`struct hipArray*`, opaque in 7.x); vmmkit's are tagged numbers, looked up.
pub type hipArray_t = *mut c_void;

/// `hipMipmappedArray_t`: an opaque pointer (`struct hipMipmappedArray*`).
pub type hipMipmappedArray_t = *mut c_void;
/// `hipMipmappedArray_const_t`.
pub type hipMipmappedArray_const_t = *const c_void;

/// `hipPitchedPtr` (driver_types.h): pitched linear memory.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hipPitchedPtr {
    pub ptr: *mut c_void,
    /// Bytes from one row to the next.
    pub pitch: usize,
    pub xsize: usize,
    pub ysize: usize,
}

impl Default for hipPitchedPtr {
    fn default() -> Self {
        Self { ptr: std::ptr::null_mut(), pitch: 0, xsize: 0, ysize: 0 }
    }
}

/// `hipExtent` (driver_types.h): `width` in bytes for linear memory.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct hipExtent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// `hipPos` (driver_types.h): `x` in bytes for linear memory.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct hipPos {
    pub x: usize,
    pub y: usize,
    pub z: usize,
}

/// `hipMemcpy3DParms` (driver_types.h).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hipMemcpy3DParms {
    pub srcArray: hipArray_t,
    pub srcPos: hipPos,
    pub srcPtr: hipPitchedPtr,
    pub dstArray: hipArray_t,
    pub dstPos: hipPos,
    pub dstPtr: hipPitchedPtr,
    pub extent: hipExtent,
    pub kind: hipMemcpyKind,
}

impl Default for hipMemcpy3DParms {
    fn default() -> Self {
        Self {
            srcArray: std::ptr::null_mut(),
            srcPos: hipPos::default(),
            srcPtr: hipPitchedPtr::default(),
            dstArray: std::ptr::null_mut(),
            dstPos: hipPos::default(),
            dstPtr: hipPitchedPtr::default(),
            extent: hipExtent::default(),
            kind: 0,
        }
    }
}

/// `hipMemcpy3DPeerParms` (driver_types.h, 7.1+): a [`hipMemcpy3DParms`]
/// without the kind, with each side's device.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hipMemcpy3DPeerParms {
    pub srcArray: hipArray_t,
    pub srcPos: hipPos,
    pub srcPtr: hipPitchedPtr,
    pub srcDevice: i32,
    pub dstArray: hipArray_t,
    pub dstPos: hipPos,
    pub dstPtr: hipPitchedPtr,
    pub dstDevice: i32,
    pub extent: hipExtent,
}

/// `hip_Memcpy2D` (driver_types.h), the argument of `hipMemcpyParam2D`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct hip_Memcpy2D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcMemoryType: hipMemoryType,
    pub srcHost: *const c_void,
    pub srcDevice: *mut c_void,
    pub srcArray: hipArray_t,
    pub srcPitch: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstMemoryType: hipMemoryType,
    pub dstHost: *mut c_void,
    pub dstDevice: *mut c_void,
    pub dstArray: hipArray_t,
    pub dstPitch: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
}

/// `HIP_MEMCPY3D` (driver_types.h), the argument of `hipDrvMemcpy3D`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HIP_MEMCPY3D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcZ: usize,
    pub srcLOD: usize,
    pub srcMemoryType: hipMemoryType,
    pub srcHost: *const c_void,
    pub srcDevice: *mut c_void,
    pub srcArray: hipArray_t,
    pub srcPitch: usize,
    pub srcHeight: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstZ: usize,
    pub dstLOD: usize,
    pub dstMemoryType: hipMemoryType,
    pub dstHost: *mut c_void,
    pub dstDevice: *mut c_void,
    pub dstArray: hipArray_t,
    pub dstPitch: usize,
    pub dstHeight: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
    pub Depth: usize,
}

/// `hipChannelFormatDesc` (driver_types.h): bits per channel, and the kind.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct hipChannelFormatDesc {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub w: i32,
    /// A `hipChannelFormatKind`.
    pub f: i32,
}

/// `hipChannelFormatKind` (driver_types.h).
pub const hipChannelFormatKindSigned: i32 = 0;
pub const hipChannelFormatKindUnsigned: i32 = 1;
pub const hipChannelFormatKindFloat: i32 = 2;
pub const hipChannelFormatKindNone: i32 = 3;

/// `hipArray_Format` (driver_types.h).
pub type hipArray_Format = i32;
pub const HIP_AD_FORMAT_UNSIGNED_INT8: hipArray_Format = 0x01;
pub const HIP_AD_FORMAT_UNSIGNED_INT16: hipArray_Format = 0x02;
pub const HIP_AD_FORMAT_UNSIGNED_INT32: hipArray_Format = 0x03;
pub const HIP_AD_FORMAT_SIGNED_INT8: hipArray_Format = 0x08;
pub const HIP_AD_FORMAT_SIGNED_INT16: hipArray_Format = 0x09;
pub const HIP_AD_FORMAT_SIGNED_INT32: hipArray_Format = 0x0a;
pub const HIP_AD_FORMAT_HALF: hipArray_Format = 0x10;
pub const HIP_AD_FORMAT_FLOAT: hipArray_Format = 0x20;

/// `HIP_ARRAY_DESCRIPTOR` (driver_types.h).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HIP_ARRAY_DESCRIPTOR {
    pub Width: usize,
    pub Height: usize,
    pub Format: hipArray_Format,
    pub NumChannels: u32,
}

/// `HIP_ARRAY3D_DESCRIPTOR` (driver_types.h).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HIP_ARRAY3D_DESCRIPTOR {
    pub Width: usize,
    pub Height: usize,
    pub Depth: usize,
    pub Format: hipArray_Format,
    pub NumChannels: u32,
    pub Flags: u32,
}

/// Array flags (hip_runtime_api.h).
pub const hipArrayDefault: u32 = 0x00;
pub const hipArrayLayered: u32 = 0x01;
pub const hipArraySurfaceLoadStore: u32 = 0x02;
pub const hipArrayCubemap: u32 = 0x04;
pub const hipArrayTextureGather: u32 = 0x08;

/// `hipPointer_attribute` (driver_types.h), counted from 1.
pub type hipPointer_attribute = i32;
pub const HIP_POINTER_ATTRIBUTE_CONTEXT: hipPointer_attribute = 1;
pub const HIP_POINTER_ATTRIBUTE_MEMORY_TYPE: hipPointer_attribute = 2;
pub const HIP_POINTER_ATTRIBUTE_DEVICE_POINTER: hipPointer_attribute = 3;
pub const HIP_POINTER_ATTRIBUTE_HOST_POINTER: hipPointer_attribute = 4;
pub const HIP_POINTER_ATTRIBUTE_P2P_TOKENS: hipPointer_attribute = 5;
pub const HIP_POINTER_ATTRIBUTE_SYNC_MEMOPS: hipPointer_attribute = 6;
pub const HIP_POINTER_ATTRIBUTE_BUFFER_ID: hipPointer_attribute = 7;
pub const HIP_POINTER_ATTRIBUTE_IS_MANAGED: hipPointer_attribute = 8;
pub const HIP_POINTER_ATTRIBUTE_DEVICE_ORDINAL: hipPointer_attribute = 9;
pub const HIP_POINTER_ATTRIBUTE_IS_LEGACY_HIP_IPC_CAPABLE: hipPointer_attribute = 10;
pub const HIP_POINTER_ATTRIBUTE_RANGE_START_ADDR: hipPointer_attribute = 11;
pub const HIP_POINTER_ATTRIBUTE_RANGE_SIZE: hipPointer_attribute = 12;
pub const HIP_POINTER_ATTRIBUTE_MAPPED: hipPointer_attribute = 13;
pub const HIP_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES: hipPointer_attribute = 14;
pub const HIP_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: hipPointer_attribute = 15;
pub const HIP_POINTER_ATTRIBUTE_ACCESS_FLAGS: hipPointer_attribute = 16;
pub const HIP_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: hipPointer_attribute = 17;

/// `hipExtMallocWithFlags` flags (hip_runtime_api.h): one value, not a mask.
pub const hipDeviceMallocDefault: u32 = 0x0;
pub const hipDeviceMallocFinegrained: u32 = 0x1;
/// Only for 8-byte allocations.
pub const hipMallocSignalMemory: u32 = 0x2;
pub const hipDeviceMallocUncached: u32 = 0x3;
pub const hipDeviceMallocContiguous: u32 = 0x4;

/// `hipHostRegister` flags (hip_runtime_api.h): a mask of these.
pub const hipHostRegisterDefault: u32 = 0x0;
pub const hipHostRegisterPortable: u32 = 0x1;
pub const hipHostRegisterMapped: u32 = 0x2;
pub const hipHostRegisterIoMemory: u32 = 0x4;
pub const hipHostRegisterReadOnly: u32 = 0x8;
/// 7.x: the extended fine-grained host pool (hip_runtime_api.h 7.2.4:919).
pub const hipExtHostRegisterUncached: u32 = 0x8000_0000;

/// `hipMallocManaged` / `hipStreamAttachMemAsync` flags (hip_runtime_api.h).
pub const hipMemAttachGlobal: u32 = 0x1;
pub const hipMemAttachHost: u32 = 0x2;
pub const hipMemAttachSingle: u32 = 0x4;

/// The device id that names the host in advice and prefetches.
pub const hipCpuDeviceId: i32 = -1;
/// The device of an unknown pointer.
pub const hipInvalidDeviceId: i32 = -2;

/// `hipMemoryAdvise` (hip_runtime_api.h).
pub type hipMemoryAdvise = i32;
pub const hipMemAdviseSetReadMostly: hipMemoryAdvise = 1;
pub const hipMemAdviseUnsetReadMostly: hipMemoryAdvise = 2;
pub const hipMemAdviseSetPreferredLocation: hipMemoryAdvise = 3;
pub const hipMemAdviseUnsetPreferredLocation: hipMemoryAdvise = 4;
pub const hipMemAdviseSetAccessedBy: hipMemoryAdvise = 5;
pub const hipMemAdviseUnsetAccessedBy: hipMemoryAdvise = 6;
pub const hipMemAdviseSetCoarseGrain: hipMemoryAdvise = 100;
pub const hipMemAdviseUnsetCoarseGrain: hipMemoryAdvise = 101;

/// `hipMemRangeAttribute` (hip_runtime_api.h).
pub type hipMemRangeAttribute = i32;
pub const hipMemRangeAttributeReadMostly: hipMemRangeAttribute = 1;
pub const hipMemRangeAttributePreferredLocation: hipMemRangeAttribute = 2;
pub const hipMemRangeAttributeAccessedBy: hipMemRangeAttribute = 3;
pub const hipMemRangeAttributeLastPrefetchLocation: hipMemRangeAttribute = 4;
pub const hipMemRangeAttributeCoherencyMode: hipMemRangeAttribute = 100;

/// `hipMemRangeCoherencyMode` (hip_runtime_api.h).
pub const hipMemRangeCoherencyModeFineGrain: i32 = 0;
pub const hipMemRangeCoherencyModeCoarseGrain: i32 = 1;
pub const hipMemRangeCoherencyModeIndeterminate: i32 = 2;

// Layouts of driver_types.h, checked at compile time.
const _: () = {
    use std::mem::{offset_of, size_of};
    assert!(size_of::<hipPitchedPtr>() == 32 && size_of::<hipExtent>() == 24 && size_of::<hipPos>() == 24);
    assert!(size_of::<hipMemcpy3DParms>() == 160);
    assert!(offset_of!(hipMemcpy3DParms, srcPos) == 8 && offset_of!(hipMemcpy3DParms, srcPtr) == 32);
    assert!(offset_of!(hipMemcpy3DParms, dstArray) == 64 && offset_of!(hipMemcpy3DParms, dstPtr) == 96);
    assert!(offset_of!(hipMemcpy3DParms, extent) == 128 && offset_of!(hipMemcpy3DParms, kind) == 152);
    assert!(size_of::<hip_Memcpy2D>() == 128);
    assert!(offset_of!(hip_Memcpy2D, srcHost) == 24 && offset_of!(hip_Memcpy2D, srcPitch) == 48);
    assert!(offset_of!(hip_Memcpy2D, dstMemoryType) == 72 && offset_of!(hip_Memcpy2D, dstPitch) == 104);
    assert!(offset_of!(hip_Memcpy2D, WidthInBytes) == 112 && offset_of!(hip_Memcpy2D, Height) == 120);
    assert!(size_of::<HIP_MEMCPY3D>() == 184);
    assert!(size_of::<hipChannelFormatDesc>() == 20);
    assert!(size_of::<hipMemcpy3DPeerParms>() == 168 && offset_of!(hipMemcpy3DPeerParms, srcDevice) == 64);
    assert!(offset_of!(hipMemcpy3DPeerParms, dstArray) == 72 && offset_of!(hipMemcpy3DPeerParms, dstDevice) == 136);
    assert!(offset_of!(hipMemcpy3DPeerParms, extent) == 144);
    assert!(size_of::<HIP_ARRAY_DESCRIPTOR>() == 24 && offset_of!(HIP_ARRAY_DESCRIPTOR, NumChannels) == 20);
    assert!(size_of::<HIP_ARRAY3D_DESCRIPTOR>() == 40 && offset_of!(HIP_ARRAY3D_DESCRIPTOR, Flags) == 32);
    assert!(offset_of!(HIP_MEMCPY3D, srcMemoryType) == 32 && offset_of!(HIP_MEMCPY3D, srcHeight) == 72);
    assert!(offset_of!(HIP_MEMCPY3D, dstMemoryType) == 112 && offset_of!(HIP_MEMCPY3D, dstHeight) == 152);
    assert!(offset_of!(HIP_MEMCPY3D, WidthInBytes) == 160 && offset_of!(HIP_MEMCPY3D, Depth) == 176);
};
