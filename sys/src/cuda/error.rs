//! `CUresult` codes (reference cuda.md §2.4).

crate::codes! {
    /// A CUDA driver return code (`CUresult`, a 4-byte enum). Unknown codes are kept, not
    /// rejected: newer drivers return values older headers never listed.
    ///
    /// Where HIP has the same number, the meaning is the same (cuda.md §2.4). The descriptions
    /// are vmmkit's; cuda.md does not give `cuGetErrorString`'s texts.
    ///
    /// ```
    /// use vmmkit_sys::cuda::CuResult;
    /// assert_eq!(CuResult::STUB_LIBRARY.to_string(), "34 CUDA_ERROR_STUB_LIBRARY");
    /// assert_eq!(CuResult(4242).name(), None);
    /// ```
    pub struct CuResult(u32): Cuda;

    SUCCESS = 0 => "CUDA_SUCCESS", "no error";
    INVALID_VALUE = 1 => "CUDA_ERROR_INVALID_VALUE", "invalid argument";
    OUT_OF_MEMORY = 2 => "CUDA_ERROR_OUT_OF_MEMORY", "out of memory";
    NOT_INITIALIZED = 3 => "CUDA_ERROR_NOT_INITIALIZED", "cuInit has not been called";
    DEINITIALIZED = 4 => "CUDA_ERROR_DEINITIALIZED", "the driver is shutting down";
    STUB_LIBRARY = 34 => "CUDA_ERROR_STUB_LIBRARY", "the development stub libcuda was loaded, not the driver";
    DEVICE_UNAVAILABLE = 46 => "CUDA_ERROR_DEVICE_UNAVAILABLE", "device unavailable";
    NO_DEVICE = 100 => "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected";
    INVALID_DEVICE = 101 => "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal";
    INVALID_CONTEXT = 201 => "CUDA_ERROR_INVALID_CONTEXT", "invalid device context";
    MAP_FAILED = 205 => "CUDA_ERROR_MAP_FAILED", "mapping failed";
    UNMAP_FAILED = 206 => "CUDA_ERROR_UNMAP_FAILED", "unmapping failed";
    ALREADY_MAPPED = 208 => "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped";
    NOT_MAPPED = 211 => "CUDA_ERROR_NOT_MAPPED", "resource not mapped";
    INVALID_HANDLE = 400 => "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle";
    ILLEGAL_STATE = 401 => "CUDA_ERROR_ILLEGAL_STATE", "the operation cannot be performed in the present state";
    NOT_FOUND = 500 => "CUDA_ERROR_NOT_FOUND", "not found";
    NOT_READY = 600 => "CUDA_ERROR_NOT_READY", "the work or event queried has not completed yet";
    TOO_MANY_PEERS = 711 => "CUDA_ERROR_TOO_MANY_PEERS", "too many peers";
    NOT_PERMITTED = 800 => "CUDA_ERROR_NOT_PERMITTED", "operation not permitted";
    NOT_SUPPORTED = 801 => "CUDA_ERROR_NOT_SUPPORTED", "operation not supported";
    SYSTEM_DRIVER_MISMATCH = 803 => "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "the driver and the kernel module do not match";
    STREAM_CAPTURE_UNSUPPORTED = 900 => "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted when stream is capturing";
    STREAM_CAPTURE_INVALIDATED = 901 => "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "operation failed due to a previous error during capture";
    STREAM_CAPTURE_UNMATCHED = 903 => "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "capture was not ended in the same stream as it began";
    STREAM_CAPTURE_UNJOINED = 904 => "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "capturing stream has unjoined work";
    STREAM_CAPTURE_ISOLATION = 905 => "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "dependency created on uncaptured work in another stream";
    STREAM_CAPTURE_IMPLICIT = 906 => "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "operation would make the legacy stream depend on a capturing blocking stream";
    CAPTURED_EVENT = 907 => "CUDA_ERROR_CAPTURED_EVENT", "operation not permitted on an event last recorded in a capturing stream";
    STREAM_CAPTURE_WRONG_THREAD = 908 => "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "a capture sequence not initiated with the relaxed mode was ended by another thread";
    UNKNOWN = 999 => "CUDA_ERROR_UNKNOWN", "unknown error";
}

/// `cuda!(NAME)`: the [`Code`](crate::rule::Code) of a `CuResult` constant, for rule records.
#[macro_export]
macro_rules! cuda {
    ($name:ident) => {
        const { $crate::cuda::CuResult::$name.code() }
    };
}
