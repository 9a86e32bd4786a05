//! `aclError` return codes (reference acl.md §3.1).

crate::codes! {
    /// An ACL return code (`aclError`, a C `int`). Unknown codes are kept, not rejected.
    ///
    /// ```
    /// use vmmkit_sys::acl::AclError;
    /// assert_eq!(AclError::RT_DRV_INTERNAL_ERROR.to_string(), "507899 ACL_ERROR_RT_DRV_INTERNAL_ERROR");
    /// assert_eq!(AclError(123).to_string(), "123 (unknown code)");
    /// ```
    pub struct AclError(i32): Acl;

    SUCCESS = 0 => "ACL_SUCCESS", "success";
    INVALID_PARAM = 100_000 => "ACL_ERROR_INVALID_PARAM", "invalid parameter (ACL front-end check)";
    UNINITIALIZE = 100_001 => "ACL_ERROR_UNINITIALIZE", "ACL is not initialised";
    REPEAT_INITIALIZE = 100_002 => "ACL_ERROR_REPEAT_INITIALIZE", "aclInit called twice";
    REPEAT_FINALIZE = 100_037 => "ACL_ERROR_REPEAT_FINALIZE", "aclFinalize called twice";
    COMPILING_STUB_MODE = 100_039 => "ACL_ERROR_COMPILING_STUB_MODE", "the stub library was loaded";
    BAD_ALLOC = 200_000 => "ACL_ERROR_BAD_ALLOC", "memory allocation failed";
    API_NOT_SUPPORT = 200_001 => "ACL_ERROR_API_NOT_SUPPORT", "API not supported";
    INVALID_DEVICE = 200_002 => "ACL_ERROR_INVALID_DEVICE", "invalid device";
    MEMORY_ADDRESS_UNALIGNED = 200_003 => "ACL_ERROR_MEMORY_ADDRESS_UNALIGNED", "memory address unaligned";
    INVALID_RESOURCE_HANDLE = 200_005 => "ACL_ERROR_INVALID_RESOURCE_HANDLE", "invalid resource handle";
    FEATURE_UNSUPPORTED = 200_006 => "ACL_ERROR_FEATURE_UNSUPPORTED", "feature unsupported";
    INTERNAL_ERROR = 500_000 => "ACL_ERROR_INTERNAL_ERROR", "internal error";
    FAILURE = 500_001 => "ACL_ERROR_FAILURE", "failure";
    RT_FAILURE = 500_003 => "ACL_ERROR_RT_FAILURE", "runtime failure";
    DRV_FAILURE = 500_004 => "ACL_ERROR_DRV_FAILURE", "driver failure";
    RT_PARAM_INVALID = 107_000 => "ACL_ERROR_RT_PARAM_INVALID", "invalid parameter (runtime or driver library check)";
    RT_INVALID_DEVICEID = 107_001 => "ACL_ERROR_RT_INVALID_DEVICEID", "invalid device id";
    RT_CONTEXT_NULL = 107_002 => "ACL_ERROR_RT_CONTEXT_NULL", "no current device or context";
    RT_STREAM_CONTEXT = 107_003 => "ACL_ERROR_RT_STREAM_CONTEXT", "stream not in the current context";
    RT_ADDR_UNALIGNED = 107_008 => "ACL_ERROR_RT_ADDR_UNALIGNED", "address unaligned";
    RT_INVALID_MEMORY_TYPE = 107_016 => "ACL_ERROR_RT_INVALID_MEMORY_TYPE", "invalid memory type";
    RT_INVALID_HANDLE = 107_017 => "ACL_ERROR_RT_INVALID_HANDLE", "unknown or released shareable handle";
    RT_INVALID_MALLOC_TYPE = 107_018 => "ACL_ERROR_RT_INVALID_MALLOC_TYPE", "invalid malloc type";
    RT_STREAM_MODEL = 107_005 => "ACL_ERROR_RT_STREAM_MODEL", "stream not in a model";
    RT_STREAM_SUBSCRIBE = 107_011 => "ACL_ERROR_RT_STREAM_SUBSCRIBE", "stream subscription error";
    RT_THREAD_SUBSCRIBE = 107_012 => "ACL_ERROR_RT_THREAD_SUBSCRIBE", "thread subscription error";
    RT_GROUP_NOT_CREATE = 107_014 => "ACL_ERROR_RT_GROUP_NOT_CREATE", "group not created";
    RT_STREAM_NO_CB_REG = 107_015 => "ACL_ERROR_RT_STREAM_NO_CB_REG", "no callback thread bound to the stream";
    RT_SYSPARAMOPT_NOT_SET = 107_021 => "ACL_ERROR_RT_SYSPARAMOPT_NOT_SET", "system parameter option not set";
    RT_WAIT_TIMEOUT = 107_019 => "ACL_ERROR_RT_WAIT_TIMEOUT", "wait timeout";
    RT_FEATURE_NOT_SUPPORT = 207_000 => "ACL_ERROR_RT_FEATURE_NOT_SUPPORT", "feature not supported";
    RT_MEMORY_ALLOCATION = 207_001 => "ACL_ERROR_RT_MEMORY_ALLOCATION", "out of memory";
    RT_MEMORY_FREE = 207_002 => "ACL_ERROR_RT_MEMORY_FREE", "memory free failed";
    RT_NO_DEVICE = 207_004 => "ACL_ERROR_RT_NO_DEVICE", "no device";
    RT_RESOURCE_ALLOC_FAIL = 207_005 => "ACL_ERROR_RT_RESOURCE_ALLOC_FAIL", "resource allocation failed";
    RT_NO_PERMISSION = 207_006 => "ACL_ERROR_RT_NO_PERMISSION", "no permission";
    RT_OVER_LIMIT = 207_012 => "ACL_ERROR_RT_OVER_LIMIT", "over limit";
    RT_DEVICE_OOM = 207_018 => "ACL_ERROR_RT_DEVICE_OOM", "device out of memory";
    RT_TIMEOUT = 207_020 => "ACL_ERROR_RT_TIMEOUT", "timeout";
    RT_LINK_TYPE_NOT_SUPPORTED = 207_021 => "ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED", "link type not supported";
    RT_INTERNAL_ERROR = 507_000 => "ACL_ERROR_RT_INTERNAL_ERROR", "runtime internal error";
    RT_LOST_HEARTBEAT = 507_010 => "ACL_ERROR_RT_LOST_HEARTBEAT", "lost heartbeat";
    RT_REPORT_TIMEOUT = 507_012 => "ACL_ERROR_RT_REPORT_TIMEOUT", "report timeout";
    RT_IPC_ERROR = 507_022 => "ACL_ERROR_RT_IPC_ERROR", "IPC error";
    RT_DEV_SETUP_ERROR = 507_033 => "ACL_ERROR_RT_DEV_SETUP_ERROR", "device setup error";
    RT_COPY_DATA = 507_052 => "ACL_ERROR_RT_COPY_DATA", "copy data error";
    RT_EVENT_TIMESTAMP_INVALID = 107_006 => "ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID", "event timestamp invalid";
    RT_STREAM_NOT_COMPLETE = 507_004 => "ACL_ERROR_RT_STREAM_NOT_COMPLETE", "stream not complete";
    RT_EVENT_NOT_COMPLETE = 507_006 => "ACL_ERROR_RT_EVENT_NOT_COMPLETE", "event not complete";
    RT_STREAM_SYNC_TIMEOUT = 507_046 => "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT", "stream sync timeout";
    RT_EVENT_SYNC_TIMEOUT = 507_047 => "ACL_ERROR_RT_EVENT_SYNC_TIMEOUT", "event sync timeout";
    RT_DRV_INTERNAL_ERROR = 507_899 => "ACL_ERROR_RT_DRV_INTERNAL_ERROR", "driver internal error (kernel rejection)";
    // Memory (hicann/runtime@681ef76 include/external/acl/error_codes/rt_error_codes.h:161-162).
    HOST_MEMORY_ALREADY_REGISTERED = 507_910 => "ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "host memory range already registered";
    HOST_MEMORY_NOT_REGISTERED = 507_911 => "ACL_ERROR_HOST_MEMORY_NOT_REGISTERED", "host memory has not been registered";
    // Model capture (hicann/runtime@0b4af8a include/external/acl/error_codes/rt_error_codes.h:46-52, 57, 59, 152).
    RT_STREAM_UNJOINED = 107_025 => "ACL_ERROR_RT_STREAM_UNJOINED", "a stream that joined the capture was not joined back";
    RT_STREAM_CAPTURED = 107_027 => "ACL_ERROR_RT_STREAM_CAPTURED", "stream is captured";
    RT_EVENT_CAPTURED = 107_028 => "ACL_ERROR_RT_EVENT_CAPTURED", "event is captured";
    RT_STREAM_NOT_CAPTURED = 107_029 => "ACL_ERROR_RT_STREAM_NOT_CAPTURED", "stream is not in capture status";
    RT_CAPTURE_MODE_NOT_SUPPORT = 107_030 => "ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT", "not permitted while a capture's mode forbids it";
    RT_STREAM_CAPTURE_UNMATCHED = 107_036 => "ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED", "the capture was not begun on this stream";
    RT_STREAM_CAPTURE_WRONG_THREAD = 107_038 => "ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD", "capture ended by a thread other than the one that began it";
    RT_STREAM_CAPTURE_INVALIDATED = 507_903 => "ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED", "the capture was invalidated";
}

/// `acl!(NAME)`: the [`Code`](crate::rule::Code) of a `AclError` constant, for rule records.
#[macro_export]
macro_rules! acl {
    ($name:ident) => {
        const { $crate::acl::AclError::$name.code() }
    };
}

impl crate::rule::Code {
    /// The ACL code, if this is one.
    pub fn acl(self) -> Option<AclError> {
        AclError::try_from(self).ok()
    }
}
