//! HIP values, layouts and loading against reference hip.md §1–§3.

mod common;

use std::mem::{align_of, offset_of, size_of};
use std::path::Path;

use vmmkit_sys::hip::*;

#[test]
fn struct_layouts() {
    assert_eq!((size_of::<hipIpcMemHandle_t>(), align_of::<hipIpcMemHandle_t>()), (64, 1));
    assert_eq!(size_of::<hipMemGenericAllocationHandle_t>(), 8);
    assert_eq!(size_of::<hipMemLocation>(), 8);
    assert_eq!((offset_of!(hipMemLocation, type_), offset_of!(hipMemLocation, id)), (0, 4));
    assert_eq!((size_of::<hipMemAccessDesc>(), align_of::<hipMemAccessDesc>()), (12, 4));
    assert_eq!((offset_of!(hipMemAccessDesc, location), offset_of!(hipMemAccessDesc, flags)), (0, 8));
    assert_eq!((size_of::<hipMemAllocationProp>(), align_of::<hipMemAllocationProp>()), (32, 8));
    assert_eq!(offset_of!(hipMemAllocationProp, requestedHandleType), 4);
    assert_eq!(offset_of!(hipMemAllocationProp, location), 8);
    assert_eq!(offset_of!(hipMemAllocationProp, win32HandleMetaData), 16);
    assert_eq!(offset_of!(hipMemAllocationProp, allocFlags.compressionType), 24);
    assert_eq!(offset_of!(hipMemAllocationProp, allocFlags.gpuDirectRDMACapable), 25);
    assert_eq!(offset_of!(hipMemAllocationProp, allocFlags.usage), 26);
    assert_eq!(size_of::<hipPointerAttribute_t>(), 32);
    assert_eq!(offset_of!(hipPointerAttribute_t, device), 4);
    assert_eq!(offset_of!(hipPointerAttribute_t, devicePointer), 8);
    assert_eq!(offset_of!(hipPointerAttribute_t, hostPointer), 16);
    assert_eq!(offset_of!(hipPointerAttribute_t, isManaged), 24);
    assert_eq!(offset_of!(hipPointerAttribute_t, allocationFlags), 28);
}

#[test]
fn device_properties_are_blobs_with_named_offsets() {
    assert_eq!(size_of::<hipDeviceProp_t>(), 792);
    assert_eq!(size_of::<hipDeviceProp_tR0600>(), 1472);
    let old = [
        hipDeviceProp_t::name,
        hipDeviceProp_t::totalGlobalMem,
        hipDeviceProp_t::warpSize,
        hipDeviceProp_t::major,
        hipDeviceProp_t::minor,
        hipDeviceProp_t::multiProcessorCount,
        hipDeviceProp_t::pciBusID,
        hipDeviceProp_t::gcnArch,
        hipDeviceProp_t::gcnArchName,
    ];
    assert_eq!(old, [0, 256, 276, 328, 332, 336, 368, 392, 396]);
    let r0600 = [
        hipDeviceProp_tR0600::name,
        hipDeviceProp_tR0600::uuid,
        hipDeviceProp_tR0600::totalGlobalMem,
        hipDeviceProp_tR0600::warpSize,
        hipDeviceProp_tR0600::major,
        hipDeviceProp_tR0600::minor,
        hipDeviceProp_tR0600::multiProcessorCount,
        hipDeviceProp_tR0600::canMapHostMemory,
        hipDeviceProp_tR0600::pciBusID,
        hipDeviceProp_tR0600::unifiedAddressing,
        hipDeviceProp_tR0600::gcnArchName,
    ];
    assert_eq!(r0600, [0, 256, 288, 308, 360, 364, 388, 400, 584, 604, 1160]);
    assert!(hipDeviceProp_t::default().bytes.iter().all(|&b| b == 0));
}

#[test]
fn enum_values() {
    assert_eq!((hipMemHandleTypeNone, hipMemHandleTypePosixFileDescriptor), (0, 1));
    assert_eq!((hipMemHandleTypeWin32, hipMemHandleTypeWin32Kmt, hipMemHandleTypeFabric), (2, 4, 8));
    assert_eq!((hipMemAllocationTypePinned, hipMemAllocationTypeUncached), (1, 0x4000_0000));
    assert_eq!(hipMemAllocationTypeMax, 0x7FFF_FFFF);
    assert_eq!((hipMemLocationTypeDevice, hipMemLocationTypeHostNumaCurrent), (1, 4));
    assert_eq!((hipMemAccessFlagsProtNone, hipMemAccessFlagsProtRead, hipMemAccessFlagsProtReadWrite), (0, 1, 3));
    assert_eq!((hipMemAllocationGranularityMinimum, hipMemAllocationGranularityRecommended), (0, 1));
    assert_eq!((hipMemcpyDefault, hipMemcpyDeviceToDeviceNoCU), (4, 1024));
    assert_eq!(hipHostMallocNonCoherent, 0x8000_0000);
    assert_eq!((hipHostMallocNumaUser, hipHostMallocCoherent), (0x2000_0000, 0x4000_0000));
    assert_eq!((hipMemoryTypeUnregistered, hipMemoryTypeDevice, hipMemoryTypeUnified), (0, 2, 11));
    assert_eq!((hipMemoryTypeHost_R0500, hipMemoryTypeDevice_R0500, hipMemoryTypeManaged_R0500), (0, 1, 4));
    assert_eq!(hipIpcMemLazyEnablePeerAccess_R0500, 0);
    assert_eq!(hipIpcMemLazyEnablePeerAccess_R0600, 1);
    assert_eq!(hipIpcMemLazyEnablePeerAccess, 1);
    assert_eq!(hipDeviceAttributeVirtualMemoryManagementSupported, 89);
    assert_eq!(hipDeviceAttributeMemoryPoolsSupported, 88);
    assert_eq!(HIP_IPC_HANDLE_SIZE, 64);
}

#[test]
fn versions_of_hip_md() {
    for (v, parts) in [(50_221_153, (5, 2, 21153)), (50_731_921, (5, 7, 31921)), (70_253_211, (7, 2, 53211))] {
        assert_eq!(hip_version_parts(v), parts);
        assert_eq!(hip_version(parts.0, parts.1, parts.2), v);
    }
}

#[test]
fn error_codes_have_names() {
    let cases = [
        (HipError::SUCCESS, 0, "hipSuccess"),
        (HipError::INVALID_VALUE, 1, "hipErrorInvalidValue"),
        (HipError::OUT_OF_MEMORY, 2, "hipErrorOutOfMemory"),
        (HipError::INVALID_DEVICE_POINTER, 17, "hipErrorInvalidDevicePointer"),
        (HipError::INVALID_MEMCPY_DIRECTION, 21, "hipErrorInvalidMemcpyDirection"),
        (HipError::NO_DEVICE, 100, "hipErrorNoDevice"),
        (HipError::INVALID_DEVICE, 101, "hipErrorInvalidDevice"),
        (HipError::INVALID_CONTEXT, 201, "hipErrorInvalidContext"),
        (HipError::PEER_ACCESS_UNSUPPORTED, 217, "hipErrorPeerAccessUnsupported"),
        (HipError::INVALID_HANDLE, 400, "hipErrorInvalidHandle"),
        (HipError::NOT_FOUND, 500, "hipErrorNotFound"),
        (HipError::PEER_ACCESS_ALREADY_ENABLED, 704, "hipErrorPeerAccessAlreadyEnabled"),
        (HipError::PEER_ACCESS_NOT_ENABLED, 705, "hipErrorPeerAccessNotEnabled"),
        (HipError::NOT_SUPPORTED, 801, "hipErrorNotSupported"),
        (HipError::UNKNOWN, 999, "hipErrorUnknown"),
        (HipError::TBD, 1054, "hipErrorTbd"),
    ];
    for (code, value, name) in cases {
        assert_eq!(code.0, value);
        assert_eq!(code.name(), Some(name));
        assert_eq!(HipError::from_name(name), Some(code));
        assert_eq!(code.to_string(), format!("{value} {name}"));
    }
    for c in HipError::ALL {
        assert_eq!(HipError::from_name(c.name().unwrap()), Some(*c));
    }
    // The older enumerator names share their values.
    assert_eq!(HipError::MEMORY_ALLOCATION, HipError(2));
    assert_eq!(HipError::INVALID_RESOURCE_HANDLE, HipError(400));
    // hipGetErrorString's texts where hip.md gives them.
    assert_eq!(HipError::INVALID_VALUE.description(), Some("invalid argument"));
    assert_eq!(HipError::NO_DEVICE.description(), Some("no ROCm-capable device is detected"));
    assert_eq!(HipError::INVALID_CONTEXT.description(), Some("invalid device context"));
    assert_eq!(HipError::NOT_SUPPORTED.description(), Some("operation not supported"));
    assert_eq!(HipError(4242).name(), None);
}

#[test]
fn code_values_are_distinct() {
    let mut seen = std::collections::HashSet::new();
    for c in HipError::ALL {
        assert!(seen.insert(c.0), "duplicate value {}", c.0);
    }
}

#[test]
fn table_lists_the_functions_of_hip_md() {
    for name in [
        "hipGetDeviceProperties",
        "hipIpcOpenMemHandle",
        "hipMemImportFromShareableHandle",
        "hipMemMapArrayAsync",
        "hipGetErrorString",
    ] {
        assert!(HipApi::REQUIRED.contains(&name), "{name} not required");
    }
    for name in ["hipGetDevicePropertiesR0600", "hipExtGetLastError"] {
        assert!(HipApi::OPTIONAL.contains(&name), "{name} not optional");
        assert!(!HipApi::REQUIRED.contains(&name), "{name} required");
    }
}

#[test]
fn search_order_is_explicit_then_rocm_path_then_names_then_opt_rocm() {
    assert_eq!(LIBRARY.candidates(Some(Path::new("/x/libamdhip64.so"))), vec![Path::new("/x/libamdhip64.so")]);
    if std::env::var_os(LIBRARY.path_env).is_none() && std::env::var_os("ROCM_PATH").is_none() {
        let c = LIBRARY.candidates(None);
        let names: Vec<_> = c.iter().map(|p| p.display().to_string()).collect();
        assert_eq!(
            &names[..5],
            [
                "libamdhip64.so",
                "libamdhip64.so.7",
                "libamdhip64.so.6",
                "libamdhip64.so.5",
                "/opt/rocm/lib/libamdhip64.so"
            ]
        );
    }
}

#[test]
fn missing_library_lists_the_path_tried() {
    let err = HipApi::load(Some(Path::new("/nonexistent/dir/libamdhip64.so"))).unwrap_err();
    common::assert_not_found(&err, "HIP", "/nonexistent/dir/libamdhip64.so");
}

#[test]
fn libc_lacks_every_required_symbol() {
    let err = HipApi::load(Some(common::libc_path())).unwrap_err();
    common::assert_lacks_all(
        &err,
        "HIP",
        HipApi::REQUIRED,
        &["hipInit", "hipIpcOpenMemHandle", "hipMemCreate", "hipGetErrorName"],
    );
}
