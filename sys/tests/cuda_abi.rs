//! CUDA driver values, layouts and loading against reference cuda.md §1–§2.

mod common;

use std::mem::{align_of, offset_of, size_of};
use std::path::Path;

use vmmkit_sys::LoadError;
use vmmkit_sys::cuda::*;

#[test]
fn struct_layouts() {
    assert_eq!((size_of::<CUresult>(), size_of::<CUdevice>()), (4, 4));
    assert_eq!((size_of::<CUdeviceptr>(), size_of::<CUmemGenericAllocationHandle>()), (8, 8));
    assert_eq!((size_of::<CUipcMemHandle>(), align_of::<CUipcMemHandle>()), (64, 1));
    assert_eq!(size_of::<CUmemLocation>(), 8);
    assert_eq!((offset_of!(CUmemLocation, type_), offset_of!(CUmemLocation, id)), (0, 4));
    assert_eq!((size_of::<CUmemAccessDesc>(), align_of::<CUmemAccessDesc>()), (12, 4));
    assert_eq!(offset_of!(CUmemAccessDesc, flags), 8);
    assert_eq!((size_of::<CUmemAllocationProp>(), align_of::<CUmemAllocationProp>()), (32, 8));
    assert_eq!(offset_of!(CUmemAllocationProp, requestedHandleTypes), 4);
    assert_eq!(offset_of!(CUmemAllocationProp, location), 8);
    assert_eq!(offset_of!(CUmemAllocationProp, win32HandleMetaData), 16);
    assert_eq!(offset_of!(CUmemAllocationProp, allocFlags.compressionType), 24);
    assert_eq!(offset_of!(CUmemAllocationProp, allocFlags.gpuDirectRDMACapable), 25);
    assert_eq!(offset_of!(CUmemAllocationProp, allocFlags.usage), 26);
    assert_eq!(offset_of!(CUmemAllocationProp, allocFlags.reserved), 28);
}

#[test]
fn enum_values() {
    assert_eq!((CU_MEM_HANDLE_TYPE_NONE, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR), (0, 1));
    assert_eq!((CU_MEM_HANDLE_TYPE_WIN32, CU_MEM_HANDLE_TYPE_WIN32_KMT, CU_MEM_HANDLE_TYPE_FABRIC), (2, 4, 8));
    assert_eq!((CU_MEM_ALLOCATION_TYPE_INVALID, CU_MEM_ALLOCATION_TYPE_PINNED), (0, 1));
    assert_eq!((CU_MEM_LOCATION_TYPE_DEVICE, CU_MEM_LOCATION_TYPE_HOST), (1, 2));
    assert_eq!((CU_MEM_LOCATION_TYPE_HOST_NUMA, CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT), (3, 4));
    assert_eq!(CU_MEM_ACCESS_FLAGS_PROT_READWRITE, 3);
    assert_eq!((CU_MEM_ALLOC_GRANULARITY_MINIMUM, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), (0, 1));
    assert_eq!(CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS, 1);
    assert_eq!((CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), (20, 41));
    assert_eq!(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 102);
    assert_eq!(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, 103);
    assert_eq!(CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 125);
    assert_eq!(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED, 128);
}

#[test]
fn error_codes_have_names() {
    let cases = [
        (CuResult::SUCCESS, 0, "CUDA_SUCCESS"),
        (CuResult::INVALID_VALUE, 1, "CUDA_ERROR_INVALID_VALUE"),
        (CuResult::DEINITIALIZED, 4, "CUDA_ERROR_DEINITIALIZED"),
        (CuResult::STUB_LIBRARY, 34, "CUDA_ERROR_STUB_LIBRARY"),
        (CuResult::DEVICE_UNAVAILABLE, 46, "CUDA_ERROR_DEVICE_UNAVAILABLE"),
        (CuResult::NO_DEVICE, 100, "CUDA_ERROR_NO_DEVICE"),
        (CuResult::INVALID_CONTEXT, 201, "CUDA_ERROR_INVALID_CONTEXT"),
        (CuResult::ALREADY_MAPPED, 208, "CUDA_ERROR_ALREADY_MAPPED"),
        (CuResult::INVALID_HANDLE, 400, "CUDA_ERROR_INVALID_HANDLE"),
        (CuResult::TOO_MANY_PEERS, 711, "CUDA_ERROR_TOO_MANY_PEERS"),
        (CuResult::NOT_PERMITTED, 800, "CUDA_ERROR_NOT_PERMITTED"),
        (CuResult::NOT_SUPPORTED, 801, "CUDA_ERROR_NOT_SUPPORTED"),
        (CuResult::SYSTEM_DRIVER_MISMATCH, 803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"),
        (CuResult::UNKNOWN, 999, "CUDA_ERROR_UNKNOWN"),
    ];
    for (code, value, name) in cases {
        assert_eq!(code.0, value);
        assert_eq!(code.name(), Some(name));
        assert_eq!(CuResult::from_name(name), Some(code));
        assert_eq!(code.to_string(), format!("{value} {name}"));
    }
    let mut seen = std::collections::HashSet::new();
    for c in CuResult::ALL {
        assert!(seen.insert(c.0), "duplicate value {}", c.0);
        assert_eq!(CuResult::from_name(c.name().unwrap()), Some(*c));
    }
    assert_eq!(CuResult(4242).to_string(), "4242 (unknown code)");
}

#[test]
fn versioned_entry_points_resolve_the_v2_symbols() {
    for (v2, legacy) in [
        ("cuMemAlloc_v2", "cuMemAlloc"),
        ("cuMemFree_v2", "cuMemFree"),
        ("cuMemcpyHtoD_v2", "cuMemcpyHtoD"),
        ("cuMemcpyDtoH_v2", "cuMemcpyDtoH"),
        ("cuMemcpyDtoD_v2", "cuMemcpyDtoD"),
        ("cuMemsetD8_v2", "cuMemsetD8"),
        ("cuMemGetAddressRange_v2", "cuMemGetAddressRange"),
        ("cuIpcOpenMemHandle_v2", "cuIpcOpenMemHandle"),
        ("cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"),
    ] {
        assert!(CudaApi::REQUIRED.contains(&v2), "{v2} not required");
        assert!(!CudaApi::REQUIRED.contains(&legacy), "legacy {legacy} required");
    }
    assert!(CudaApi::OPTIONAL.contains(&"cuGetProcAddress_v2"));
    for plain in ["cuInit", "cuDriverGetVersion", "cuMemCreate", "cuIpcGetMemHandle", "cuGetErrorName"] {
        assert!(CudaApi::REQUIRED.contains(&plain), "{plain} not required");
    }
}

#[test]
fn search_uses_the_soname_only_and_refuses_the_stub() {
    assert_eq!(LIBRARY.names, ["libcuda.so.1"]);
    if std::env::var_os(LIBRARY.path_env).is_none() {
        let c = LIBRARY.candidates(None);
        assert_eq!(c[0], Path::new("libcuda.so.1"));
        assert!(c.iter().all(|p| p.file_name().is_some_and(|f| f == "libcuda.so.1")), "{c:?}");
    }
    let err = CudaApi::load(Some(Path::new("/usr/local/cuda/lib64/stubs/libcuda.so"))).unwrap_err();
    assert!(matches!(err, LoadError::Refused { vendor: "CUDA", .. }), "{err:?}");
}

#[test]
fn missing_library_lists_the_path_tried() {
    let err = CudaApi::load(Some(Path::new("/nonexistent/dir/libcuda.so.1"))).unwrap_err();
    common::assert_not_found(&err, "CUDA", "/nonexistent/dir/libcuda.so.1");
}

#[test]
fn libc_lacks_every_required_symbol() {
    let err = CudaApi::load(Some(common::libc_path())).unwrap_err();
    common::assert_lacks_all(
        &err,
        "CUDA",
        CudaApi::REQUIRED,
        &["cuInit", "cuMemAlloc_v2", "cuIpcOpenMemHandle_v2", "cuMemCreate"],
    );
}
