//! What the drop-in libraries (`libascendcl.so`, `libamdhip64.so`) are made
//! of, written once: [`export_shim!`](crate::export_shim) exports every
//! function of a vendor list under its C name, each a single forward into
//! the dialect's instrumented entry point of the same name, plus
//! `const char *vmmkit_shim_info(void)`, the marker by which `vmmkit-sys`'s
//! loader recognises (and, in its default search, skips) vmmkit's own
//! drop-ins. No rule lives in a shim.
//!
//! The only addition is the FFI backstop of STYLE.md §8: each body runs in
//! `catch_unwind` ([`guard`]), and a panic there becomes the vendor's
//! internal error code, or a fixed message for the functions that return a
//! string, instead of unwinding into C; the panic prints one line, no
//! backtrace ([`crate::panic`]). The dialect's entry points catch
//! their own panics (the dialect's `call::run`, which also sets the thread's
//! message); being `extern "C"` themselves, a panic escaping one would abort
//! at its own boundary before reaching the shim's frame, so the guard covers
//! the shim's frame and keeps the export sound should the entry points ever
//! become plain Rust functions.

use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// What a shim's exports return when a call panicked.
#[derive(Debug, Clone, Copy)]
pub struct Backstop {
    /// The vendor's internal error, for functions that return a code.
    pub code: i64,
    /// A fixed message, for functions that return a string.
    pub message: &'static CStr,
}

/// Return types of exported functions: what each becomes on a panic.
pub trait OnPanic {
    /// The value the export returns instead of unwinding.
    fn on_panic(backstop: &Backstop) -> Self;
}

impl OnPanic for i32 {
    fn on_panic(backstop: &Backstop) -> Self {
        backstop.code as i32
    }
}

impl OnPanic for u32 {
    fn on_panic(backstop: &Backstop) -> Self {
        backstop.code as u32
    }
}

impl OnPanic for () {
    fn on_panic(_: &Backstop) -> Self {}
}

impl OnPanic for *const c_char {
    fn on_panic(backstop: &Backstop) -> Self {
        backstop.message.as_ptr()
    }
}

/// A pointer (a new object such as aclrtAllocatorCreateDesc's, an address):
/// NULL, as the vendor's own failure.
impl<T> OnPanic for *mut T {
    fn on_panic(_: &Backstop) -> Self {
        std::ptr::null_mut()
    }
}

/// A size, a half: 0, as the vendor's answer for a NULL object.
macro_rules! zero_on_panic {
    ($($t:ty),*) => {
        $(impl OnPanic for $t {
            fn on_panic(_: &Backstop) -> Self {
                0
            }
        })*
    };
}
zero_on_panic!(usize, u16);

/// A channel descriptor (`hipCreateChannelDesc`): all zero, no channel.
impl OnPanic for vmmkit_sys::hip::hipChannelFormatDesc {
    fn on_panic(_: &Backstop) -> Self {
        Self::default()
    }
}

impl OnPanic for f32 {
    fn on_panic(_: &Backstop) -> Self {
        f32::NAN
    }
}

/// Runs one forwarded call of export `name`; a panic becomes the
/// backstop's value, reported in one line by the hook of [`crate::panic`].
pub fn guard<R: OnPanic>(name: &'static str, backstop: &Backstop, call: impl FnOnce() -> R) -> R {
    let _inside = crate::panic::Inside::enter(name);
    catch_unwind(AssertUnwindSafe(call)).unwrap_or_else(|_| R::on_panic(backstop))
}

/// The body of a drop-in library: one `#[no_mangle]` export per function of
/// a vendor list (`vmmkit_sys::acl_functions`, …), each forwarding once into
/// `dialect::NAME` under [`guard`], and `vmmkit_shim_info`.
///
/// ```ignore
/// vmmkit_emulator::export_shim! {
///     functions: vmmkit_sys::acl_functions,
///     types: vmmkit_sys::acl,
///     dialect: vmmkit_emulator::acl::entry,
///     vendor: "ACL", table: "AclApi",
///     panic_code: vmmkit_sys::acl::AclError::RT_DRV_INTERNAL_ERROR.0,
///     panic_message: c"vmmkit libascendcl: internal error in the emulator (a panic); please report it",
///     info: "vmmkit emulator libascendcl",
/// }
/// ```
///
/// `types` is the module whose names the list's signatures use; `info` is
/// followed by ` (vmmkit-emulator VERSION)` in what `vmmkit_shim_info`
/// returns.
#[macro_export]
macro_rules! export_shim {
    (
        functions: $list:path,
        types: $($types:ident)::+,
        dialect: $dialect:path,
        vendor: $vendor:literal,
        table: $table:literal,
        panic_code: $code:expr,
        panic_message: $message:expr,
        info: $info:literal $(,)?
    ) => {
        #[allow(unused_imports)]
        use ::std::ffi::{c_char, c_void};
        #[allow(unused_imports)]
        use $($types)::+::*;

        /// What an export returns when its call panicked.
        const BACKSTOP: $crate::shim::Backstop =
            $crate::shim::Backstop { code: $code as i64, message: $message };

        $list!($crate::export_shim { @exports $dialect; $vendor; $table; });

        /// `const char *vmmkit_shim_info(void)`: marks this library as
        /// vmmkit's own drop-in (`vmmkit_sys::loader::SHIM_MARKER`) and says
        /// what it is.
        #[unsafe(no_mangle)]
        pub extern "C" fn vmmkit_shim_info() -> *const c_char {
            const INFO: &::std::ffi::CStr = {
                let s = concat!($info, " (vmmkit-emulator ", env!("CARGO_PKG_VERSION"), ")\0");
                match ::std::ffi::CStr::from_bytes_with_nul(s.as_bytes()) {
                    Ok(c) => c,
                    Err(_) => panic!("the info string has one NUL, at its end"),
                }
            };
            INFO.as_ptr()
        }
    };
    (
        @exports $dialect:path; $vendor:literal; $table:literal;
        required { $( $(#[$rm:meta])* $r:ident : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident : fn($($oa:ident : $ot:ty),*) -> $or:ty ; )* }
    ) => {
        $( $crate::export_shim!(@one $dialect; $r ($($ra : $rt),*) -> $rr;
            concat!("`", stringify!($r), "`, forwarded to the emulator's ", $vendor, " dialect."); $vendor); )*
        $( $crate::export_shim!(@one $dialect; $o ($($oa : $ot),*) -> $or;
            concat!("`", stringify!($o), "` (optional in `", $table, "`), forwarded to the emulator's ", $vendor,
                " dialect."); $vendor); )*
    };
    (@one $dialect:path; $name:ident ($($a:ident : $t:ty),*) -> $ret:ty; $doc:expr; $vendor:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        #[doc = concat!("The C contract of the ", $vendor, " function of the same name.")]
        #[allow(non_snake_case)]
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $ret {
            use $dialect as dialect;
            // SAFETY: same C signature; the caller's contract is passed on unchanged.
            $crate::shim::guard(stringify!($name), &BACKSTOP, || unsafe { dialect::$name($($a),*) })
        }
    };
}

/// Why a drop-in exports a function that it does not emulate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unsupported {
    /// It needs device code (kernel launch, module or binary load,
    /// get-function, model or operator execution, AICPU): not supported by
    /// design.
    DeviceCode,
    /// Host memory could emulate it; vmmkit does not yet.
    NotYet,
}

impl Unsupported {
    /// What the thread's message says after the function's name.
    pub fn why(self) -> &'static str {
        match self {
            Self::DeviceCode => "needs device code, which vmmkit does not emulate",
            Self::NotYet => "is not emulated by vmmkit yet",
        }
    }
}

/// The body of an export that is not emulated: the call fails through the
/// dialect's call path (fork rule, the thread's message naming the function,
/// HIP's last error, the journal) with `code`, the vendor's not-supported
/// code, and returns it. Never a silent success.
///
/// It is also a call like the others: it goes through the instrumentation
/// layer's bookkeeping (the process counts as a user of the emulator, the
/// call is in the journal and the trace of `vmmkit run` with its message,
/// and in the `VMMKIT_LOG` log), and the first time a process calls each
/// such function one line on stderr says so ([`note_unsupported`]).
pub fn unsupported<V: crate::dialect::Dialect>(
    name: &'static str,
    code: V::Code,
    kind: Unsupported,
) -> <V::Code as vmmkit_sys::VendorCode>::Raw {
    let _enter = crate::instrument::Enter::new(name);
    let call = crate::journal::begin();
    let span = tracing::debug_span!(target: "vmmkit", "unsupported", function = name);
    let _span = span.enter();
    let ret = crate::dialect::run::<V>(name, || Err(crate::dialect::Fail::plain(code, kind.why().to_owned())));
    let message = crate::core::thread::message();
    tracing::debug!(target: "vmmkit", returned = ?ret, message = %message);
    note_unsupported(name, kind);
    if let Some(c) = call {
        c.end(name, &[("message", &crate::instrument::Shown(&message) as &dyn std::fmt::Debug)], &ret);
    }
    ret
}

/// The variable that turns the stderr notes of [`note_unsupported`] off (`1`).
pub const QUIET_ENV: &str = "VMMKIT_QUIET";

/// The stderr line for the first call of an unsupported function.
pub fn unsupported_note(name: &str, kind: Unsupported) -> String {
    let why = match kind {
        Unsupported::DeviceCode => "needs device code",
        Unsupported::NotYet => "not emulated by vmmkit yet",
    };
    format!("vmmkit: {name} is not supported: {why}")
}

/// Prints [`unsupported_note`] on stderr the first time this process calls
/// `name` (a forked child starts its own count), unless `VMMKIT_QUIET=1`.
pub fn note_unsupported(name: &'static str, kind: Unsupported) {
    static SEEN: std::sync::Mutex<(u32, Vec<&'static str>)> = std::sync::Mutex::new((0, Vec::new()));
    static QUIET: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if *QUIET.get_or_init(|| std::env::var(QUIET_ENV).is_ok_and(|v| v == "1")) {
        return;
    }
    let pid = std::process::id();
    let mut seen = SEEN.lock().unwrap_or_else(|p| p.into_inner());
    if seen.0 != pid {
        *seen = (pid, Vec::new());
    }
    if seen.1.contains(&name) {
        return;
    }
    seen.1.push(name);
    drop(seen);
    eprintln!("{}", unsupported_note(name, kind));
}

/// The exports of a drop-in that are not emulated, and the two lists that
/// name them (`DEVICE_CODE`, `NOT_YET`, read by the coverage test and
/// `docs/api-coverage.md`).
///
/// Each export takes no parameters: under the C calling convention the
/// caller passes its arguments and cleans up, and these functions read none.
/// A plain name returns the vendor's code ([`unsupported`]); `name -> null`
/// sets the same message and returns 0 in the return register, which is
/// what a C function returning a pointer or an integer (a handle, a size, a
/// count) returns on failure. Functions returning a floating-point value
/// are emulated instead.
///
/// ```ignore
/// vmmkit_emulator::export_unsupported! {
///     dialect: vmmkit_sys::vendor::Acl,
///     code: vmmkit_sys::acl::AclError::RT_FEATURE_NOT_SUPPORT,
///     device_code { aclopExecuteV2, aclmdlCreateDesc -> null }
///     not_yet { aclrtMemcpyBatch }
/// }
/// ```
#[macro_export]
macro_rules! export_unsupported {
    (
        dialect: $v:ty,
        code: $code:expr,
        device_code { $($d:ident $(-> $dn:ident)?),* $(,)? }
        not_yet { $($n:ident $(-> $nn:ident)?),* $(,)? }
    ) => {
        /// The exports that need device code: not supported by design.
        pub const DEVICE_CODE: &[&str] = &[$(stringify!($d)),*];
        /// The exports that host memory could emulate and vmmkit does not yet.
        pub const NOT_YET: &[&str] = &[$(stringify!($n)),*];
        $( $crate::export_unsupported!(@one $v; $code; DeviceCode; $d $(-> $dn)?); )*
        $( $crate::export_unsupported!(@one $v; $code; NotYet; $n $(-> $nn)?); )*
    };
    (@one $v:ty; $code:expr; $kind:ident; $name:ident) => {
        #[doc = concat!("`", stringify!($name), "`: not emulated; fails with the vendor's not-supported code.")]
        #[allow(non_snake_case)]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> <<$v as ::vmmkit_sys::Vendor>::Code as ::vmmkit_sys::VendorCode>::Raw {
            $crate::shim::unsupported::<$v>(stringify!($name), $code, $crate::shim::Unsupported::$kind)
        }
    };
    (@one $v:ty; $code:expr; $kind:ident; $name:ident -> null) => {
        #[doc = concat!("`", stringify!($name), "`: not emulated; returns NULL (0), the message names it.")]
        #[allow(non_snake_case)]
        #[unsafe(no_mangle)]
        pub extern "C" fn $name() -> usize {
            $crate::shim::unsupported::<$v>(stringify!($name), $code, $crate::shim::Unsupported::$kind);
            0
        }
    };
}

#[cfg(test)]
mod tests {
    use vmmkit_sys::hip::HipError;

    crate::export_unsupported! {
        dialect: vmmkit_sys::vendor::Hip,
        code: HipError::NOT_SUPPORTED,
        device_code { vmmkitTestLaunch }
        not_yet { vmmkitTestCreate -> null }
    }

    #[test]
    fn an_unsupported_export_fails_with_the_code_and_names_itself() {
        assert_eq!(vmmkitTestLaunch(), HipError::NOT_SUPPORTED.0);
        assert_eq!(
            crate::core::thread::message(),
            "vmmkitTestLaunch: needs device code, which vmmkit does not emulate (801 hipErrorNotSupported)"
        );
        assert_eq!(vmmkitTestCreate(), 0);
        assert!(crate::core::thread::message().starts_with("vmmkitTestCreate: is not emulated by vmmkit yet"));
        assert_eq!((DEVICE_CODE, NOT_YET), (&["vmmkitTestLaunch"][..], &["vmmkitTestCreate"][..]));
    }

    /// The one line on stderr names the function and why.
    #[test]
    fn the_note_names_the_function_and_why() {
        assert_eq!(
            super::unsupported_note("hipModuleLoadData", super::Unsupported::DeviceCode),
            "vmmkit: hipModuleLoadData is not supported: needs device code"
        );
        assert_eq!(
            super::unsupported_note("hipGraphClone", super::Unsupported::NotYet),
            "vmmkit: hipGraphClone is not supported: not emulated by vmmkit yet"
        );
    }
}
