//! `exResult` codes (`docs/adding-a-vendor.md`, "The example vendor";
//! feature `example-vendor`).

crate::codes! {
    /// An example-vendor return code (`exResult`). Made up for the example.
    ///
    /// ```
    /// use vmmkit_sys::example::ExResult;
    /// assert_eq!(ExResult::NULL_POINTER.name(), Some("EX_ERROR_NULL_POINTER"));
    /// ```
    pub struct ExResult(i32): Example;

    SUCCESS = 0 => "EX_SUCCESS", "no error";
    INVALID_VALUE = 1 => "EX_ERROR_INVALID_VALUE", "invalid value";
    NULL_POINTER = 2 => "EX_ERROR_NULL_POINTER", "a NULL out-pointer";
    NOT_INITIALIZED = 3 => "EX_ERROR_NOT_INITIALIZED", "exInit has not been called";
    OUT_OF_MEMORY = 4 => "EX_ERROR_OUT_OF_MEMORY", "out of device memory";
    INVALID_HANDLE = 5 => "EX_ERROR_INVALID_HANDLE", "not a pointer exMemAlloc returned";
    UNKNOWN = 999 => "EX_ERROR_UNKNOWN", "internal error";
}

/// `example!(NAME)`: the [`Code`](crate::rule::Code) of an `ExResult` constant, for rule records.
#[macro_export]
macro_rules! example {
    ($name:ident) => {
        const { $crate::example::ExResult::$name.code() }
    };
}
