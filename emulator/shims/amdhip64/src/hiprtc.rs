//! hiprtc, the runtime compiler, which Debian's 6.x `libamdhip64.so.6`
//! exports too (`hip_4.2`, and `hip_5.3` for the bitcode pair; 7.x moved it
//! to `libhiprtc`): it compiles device code, so it is not supported by
//! design. Each function returns `HIPRTC_ERROR_INTERNAL_ERROR` (hiprtc has no
//! "not supported" code) and says so on stderr the first time, as the HIP
//! exports that are not emulated do; `hiprtcGetErrorString` names the code.

use std::ffi::c_char;

use vmmkit_emulator::shim::{Unsupported, note_unsupported};

/// `HIPRTC_ERROR_INTERNAL_ERROR` of `hiprtcResult`.
pub const HIPRTC_ERROR_INTERNAL_ERROR: i32 = 11;

macro_rules! not_supported {
    ($($name:ident),* $(,)?) => {
        /// The hiprtc exports, each failing with [`HIPRTC_ERROR_INTERNAL_ERROR`].
        pub const RUNTIME_COMPILER: &[&str] = &[$(stringify!($name)),*, "hiprtcGetErrorString"];
        $(
            #[doc = concat!("`", stringify!($name), "`: no runtime compiler; ", "`HIPRTC_ERROR_INTERNAL_ERROR`.")]
            #[allow(non_snake_case)]
            #[unsafe(no_mangle)]
            pub extern "C" fn $name() -> i32 {
                note_unsupported(stringify!($name), Unsupported::DeviceCode);
                HIPRTC_ERROR_INTERNAL_ERROR
            }
        )*
    };
}

not_supported! {
    hiprtcAddNameExpression, hiprtcCompileProgram, hiprtcCreateProgram, hiprtcDestroyProgram, hiprtcGetBitcode,
    hiprtcGetBitcodeSize, hiprtcGetCode, hiprtcGetCodeSize, hiprtcGetLoweredName, hiprtcGetProgramLog,
    hiprtcGetProgramLogSize, hiprtcLinkAddData, hiprtcLinkAddFile, hiprtcLinkComplete, hiprtcLinkCreate,
    hiprtcLinkDestroy, hiprtcVersion,
}

/// `const char *hiprtcGetErrorString(hiprtcResult result)`: the name of
/// success and of the code the other exports return; anything else is "unknown".
#[allow(non_snake_case)]
#[unsafe(no_mangle)]
pub extern "C" fn hiprtcGetErrorString(result: i32) -> *const c_char {
    match result {
        0 => c"HIPRTC_SUCCESS".as_ptr(),
        HIPRTC_ERROR_INTERNAL_ERROR => c"HIPRTC_ERROR_INTERNAL_ERROR (vmmkit has no runtime compiler)".as_ptr(),
        _ => c"HIPRTC_ERROR unknown".as_ptr(),
    }
}
