//! `hipError_t` return codes (reference hip.md §3.1).

crate::codes! {
    /// A HIP return code (`hipError_t`, a C `int`). Unknown codes are kept, not rejected.
    ///
    /// The names are the enumerators `hipGetErrorName` returns. The descriptions of 1, 100,
    /// 201 and 801 are the strings `hipGetErrorString` returns from 5.3 on (hip.md §2.1);
    /// hip.md does not give the others, so theirs are vmmkit's own words.
    ///
    /// ```
    /// use vmmkit_sys::hip::HipError;
    /// assert_eq!(HipError::NO_DEVICE.to_string(), "100 hipErrorNoDevice");
    /// assert_eq!(HipError::INVALID_VALUE.description(), Some("invalid argument"));
    /// assert_eq!(HipError(4242).to_string(), "4242 (unknown code)");
    /// ```
    pub struct HipError(i32): Hip;

    SUCCESS = 0 => "hipSuccess", "no error";
    INVALID_VALUE = 1 => "hipErrorInvalidValue", "invalid argument";
    OUT_OF_MEMORY = 2 => "hipErrorOutOfMemory", "out of memory";
    NOT_INITIALIZED = 3 => "hipErrorNotInitialized", "not initialized";
    DEINITIALIZED = 4 => "hipErrorDeinitialized", "deinitialized";
    INVALID_PITCH_VALUE = 12 => "hipErrorInvalidPitchValue", "invalid pitch argument";
    INVALID_DEVICE_POINTER = 17 => "hipErrorInvalidDevicePointer", "invalid device pointer";
    INVALID_MEMCPY_DIRECTION = 21 => "hipErrorInvalidMemcpyDirection", "invalid copy direction";
    INVALID_CONFIGURATION = 9 => "hipErrorInvalidConfiguration", "invalid configuration argument";
    NO_DEVICE = 100 => "hipErrorNoDevice", "no ROCm-capable device is detected";
    INVALID_DEVICE = 101 => "hipErrorInvalidDevice", "invalid device ordinal";
    INVALID_CONTEXT = 201 => "hipErrorInvalidContext", "invalid device context";
    MAP_FAILED = 205 => "hipErrorMapFailed", "mapping of buffer object failed";
    UNMAP_FAILED = 206 => "hipErrorUnmapFailed", "unmapping of buffer object failed";
    ALREADY_MAPPED = 208 => "hipErrorAlreadyMapped", "resource already mapped";
    NOT_MAPPED = 211 => "hipErrorNotMapped", "resource not mapped";
    UNSUPPORTED_LIMIT = 215 => "hipErrorUnsupportedLimit", "limit is not supported on this device";
    CONTEXT_ALREADY_IN_USE = 216 => "hipErrorContextAlreadyInUse", "the context is already in use";
    PEER_ACCESS_UNSUPPORTED = 217 => "hipErrorPeerAccessUnsupported", "peer access is not supported between these devices";
    INVALID_HANDLE = 400 => "hipErrorInvalidHandle", "invalid resource handle";
    ILLEGAL_STATE = 401 => "hipErrorIllegalState", "the operation cannot be performed in the present state";
    NOT_FOUND = 500 => "hipErrorNotFound", "named symbol not found";
    NOT_READY = 600 => "hipErrorNotReady", "device not ready";
    PEER_ACCESS_ALREADY_ENABLED = 704 => "hipErrorPeerAccessAlreadyEnabled", "peer access is already enabled";
    PEER_ACCESS_NOT_ENABLED = 705 => "hipErrorPeerAccessNotEnabled", "peer access has not been enabled";
    CONTEXT_IS_DESTROYED = 709 => "hipErrorContextIsDestroyed", "context is destroyed";
    HOST_MEMORY_ALREADY_REGISTERED = 712 => "hipErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped";
    HOST_MEMORY_NOT_REGISTERED = 713 => "hipErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region";
    NOT_SUPPORTED = 801 => "hipErrorNotSupported", "operation not supported";
    STREAM_CAPTURE_UNSUPPORTED = 900 => "hipErrorStreamCaptureUnsupported", "operation not permitted when stream is capturing";
    STREAM_CAPTURE_INVALIDATED = 901 => "hipErrorStreamCaptureInvalidated", "operation failed due to a previous error during capture";
    STREAM_CAPTURE_MERGE = 902 => "hipErrorStreamCaptureMerge", "operation would result in a merge of separate capture sequences";
    STREAM_CAPTURE_UNMATCHED = 903 => "hipErrorStreamCaptureUnmatched", "capture was not ended in the same stream as it began";
    STREAM_CAPTURE_UNJOINED = 904 => "hipErrorStreamCaptureUnjoined", "capturing stream has unjoined work";
    STREAM_CAPTURE_ISOLATION = 905 => "hipErrorStreamCaptureIsolation", "dependency created on uncaptured work in another stream";
    STREAM_CAPTURE_IMPLICIT = 906 => "hipErrorStreamCaptureImplicit", "operation would make the legacy stream depend on a capturing blocking stream";
    CAPTURED_EVENT = 907 => "hipErrorCapturedEvent", "operation not permitted on an event last recorded in a capturing stream";
    STREAM_CAPTURE_WRONG_THREAD = 908 => "hipErrorStreamCaptureWrongThread", "a stream capture sequence not initiated with the relaxed mode was ended by another thread";
    UNKNOWN = 999 => "hipErrorUnknown", "unknown error";
    TBD = 1054 => "hipErrorTbd", "marker for errors not yet defined";
}

impl HipError {
    /// `hipErrorMemoryAllocation`, the older name of [`HipError::OUT_OF_MEMORY`] (same value, 2).
    pub const MEMORY_ALLOCATION: Self = Self::OUT_OF_MEMORY;
    /// `hipErrorInvalidResourceHandle`, the older name of [`HipError::INVALID_HANDLE`] (same value, 400).
    pub const INVALID_RESOURCE_HANDLE: Self = Self::INVALID_HANDLE;
}

/// `hip!(NAME)`: the [`Code`](crate::rule::Code) of a `HipError` constant, for rule records.
#[macro_export]
macro_rules! hip {
    ($name:ident) => {
        const { $crate::hip::HipError::$name.code() }
    };
}
