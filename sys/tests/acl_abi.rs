//! ACL values and layouts against reference acl.md §2 and §3.

use std::mem::{align_of, offset_of, size_of};

use vmmkit_sys::acl::*;

#[test]
fn struct_layouts() {
    assert_eq!((size_of::<aclrtMemLocation>(), align_of::<aclrtMemLocation>()), (8, 4));
    assert_eq!((size_of::<aclrtPhysicalMemProp>(), align_of::<aclrtPhysicalMemProp>()), (32, 8));
    assert_eq!(offset_of!(aclrtPhysicalMemProp, location), 12);
    assert_eq!(offset_of!(aclrtPhysicalMemProp, reserve), 24);
    assert_eq!((size_of::<aclrtMemAccessDesc>(), align_of::<aclrtMemAccessDesc>()), (24, 4));
    assert_eq!(offset_of!(aclrtMemAccessDesc, location), 4);
    assert_eq!(offset_of!(aclrtMemAccessDesc, rsv), 12);
    assert_eq!(size_of::<aclrtMemFabricHandle>(), 128);
    assert_eq!(size_of::<aclrtPtrAttributes>(), 28);
    assert_eq!(size_of::<aclrtServerPid>(), 24);
    assert_eq!(size_of::<aclrtDrvMemHandle>(), 8);
}

#[test]
fn enum_values() {
    assert_eq!((ACL_MEM_HANDLE_TYPE_NONE, ACL_MEM_HANDLE_TYPE_POSIX), (0, 2));
    assert_eq!((ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC), (1, 2));
    assert_eq!(ACL_MEM_LOCATION_TYPE_HOST_NUMA, 4);
    assert_eq!(ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, 0xFFFF);
    assert_eq!(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, 3);
    assert_eq!(ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, 7);
    assert_eq!(ACL_MEM_MALLOC_HUGE1G_ONLY_P2P, 7);
    assert_eq!(ACL_MEM_ACCESS_USER_SPACE_READONLY, 0x100000);
    assert_eq!((ACL_HBM_MEM_HUGE, ACL_HBM_MEM_HUGE1G, ACL_MEM_P2P_HUGE1G), (4, 10, 17));
    assert_eq!(ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, 1);
    assert_eq!((ACL_MAJOR_VERSION, ACL_MINOR_VERSION, ACL_PATCH_VERSION), (1, 17, 0));
}

#[test]
fn error_codes_have_names() {
    let cases = [
        (AclError::SUCCESS, 0, "ACL_SUCCESS"),
        (AclError::INVALID_PARAM, 100_000, "ACL_ERROR_INVALID_PARAM"),
        (AclError::REPEAT_INITIALIZE, 100_002, "ACL_ERROR_REPEAT_INITIALIZE"),
        (AclError::REPEAT_FINALIZE, 100_037, "ACL_ERROR_REPEAT_FINALIZE"),
        (AclError::FEATURE_UNSUPPORTED, 200_006, "ACL_ERROR_FEATURE_UNSUPPORTED"),
        (AclError::RT_PARAM_INVALID, 107_000, "ACL_ERROR_RT_PARAM_INVALID"),
        (AclError::RT_INVALID_DEVICEID, 107_001, "ACL_ERROR_RT_INVALID_DEVICEID"),
        (AclError::RT_CONTEXT_NULL, 107_002, "ACL_ERROR_RT_CONTEXT_NULL"),
        (AclError::RT_INVALID_HANDLE, 107_017, "ACL_ERROR_RT_INVALID_HANDLE"),
        (AclError::RT_FEATURE_NOT_SUPPORT, 207_000, "ACL_ERROR_RT_FEATURE_NOT_SUPPORT"),
        (AclError::RT_MEMORY_ALLOCATION, 207_001, "ACL_ERROR_RT_MEMORY_ALLOCATION"),
        (AclError::RT_NO_PERMISSION, 207_006, "ACL_ERROR_RT_NO_PERMISSION"),
        (AclError::RT_OVER_LIMIT, 207_012, "ACL_ERROR_RT_OVER_LIMIT"),
        (AclError::RT_DRV_INTERNAL_ERROR, 507_899, "ACL_ERROR_RT_DRV_INTERNAL_ERROR"),
    ];
    for (code, value, name) in cases {
        assert_eq!(code.0, value);
        assert_eq!(code.name(), Some(name));
        assert_eq!(AclError::from_name(name), Some(code));
        assert_eq!(code.to_string(), format!("{value} {name}"));
    }
    assert_eq!(AclError(4242).name(), None);
    assert!(AclError::SUCCESS.result().is_ok());
    assert_eq!(AclError::INVALID_PARAM.result(), Err(AclError::INVALID_PARAM));
}

#[test]
fn code_values_are_distinct() {
    let mut seen = std::collections::HashSet::new();
    for c in AclError::ALL {
        assert!(seen.insert(c.0), "duplicate value {}", c.0);
    }
}
