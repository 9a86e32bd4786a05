//! The layer every entry point passes through, whatever the dialect: fault
//! injection ([`crate::faults`]), a `tracing` span with the arguments and the
//! returned code (`VMMKIT_LOG`), the journal of `vmmkit run`
//! ([`crate::journal`]), and the name of the call in progress (so the leak
//! report can say which API created what).
//!
//! It is generated from a vendor's function list by `instrumented!`, so each
//! function is written once in its dialect and wrapped here without copies.

use std::ffi::c_char;
use std::sync::Once;

pub use crate::core::thread::current_call;

/// Marks the calling thread as inside `name` until dropped.
#[derive(Debug)]
pub struct Enter {
    outer: &'static str,
}

impl Enter {
    /// Enters `name`; also starts the log and the journal the first time.
    pub fn new(name: &'static str) -> Self {
        init();
        Self { outer: crate::core::thread::enter_call(name) }
    }
}

impl Drop for Enter {
    fn drop(&mut self) {
        crate::core::thread::leave_call(self.outer);
    }
}

/// Return types that an injected fault can produce.
pub trait Injectable: Sized {
    /// The value for an injected code, if this type carries codes.
    fn from_code(code: i64) -> Option<Self>;
}

impl Injectable for i32 {
    fn from_code(code: i64) -> Option<Self> {
        Some(code as i32)
    }
}

impl Injectable for u32 {
    fn from_code(code: i64) -> Option<Self> {
        Some(code as u32)
    }
}

impl Injectable for () {
    fn from_code(_: i64) -> Option<Self> {
        None
    }
}

impl Injectable for *const c_char {
    fn from_code(_: i64) -> Option<Self> {
        None
    }
}

/// Values that are not codes (a size, a float, a half): a fault injected as
/// a code does not apply to them (use kill or abort).
macro_rules! not_a_code {
    ($($t:ty),*) => {
        $(impl Injectable for $t {
            fn from_code(_: i64) -> Option<Self> {
                None
            }
        })*
    };
}
not_a_code!(usize, f32, u16, vmmkit_sys::hip::hipChannelFormatDesc);

/// A pointer-returning function (a new object such as
/// aclrtAllocatorCreateDesc's, an address) fails with NULL, as the vendor's.
impl<T> Injectable for *mut T {
    fn from_code(_: i64) -> Option<Self> {
        Some(std::ptr::null_mut())
    }
}

/// The value to return instead of calling `name`, when a fault is injected.
pub fn injected<R: Injectable>(name: &'static str) -> Option<R> {
    let action = crate::faults::on_call(name)?;
    let code = crate::faults::act(action);
    crate::core::thread::set_message(&format!("{name}: fault injected by VMMKIT_FAULTS (code {code})"));
    R::from_code(code)
}

/// The first time any entry point runs: watches for forks
/// ([`crate::fork`]), installs the panic hook of the C boundary
/// ([`crate::panic`]), starts the journal
/// ([`crate::journal`], under `vmmkit run`) and installs a stderr subscriber
/// for `VMMKIT_LOG` (an env-filter directive such as `debug` or
/// `vmmkit=trace`). Without the variables nothing is installed and the spans
/// and the journal cost a relaxed load each.
fn init() {
    // A tracing subscriber is process-wide; this installs it at most once.
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        crate::core::watch_forks();
        crate::panic::install();
        crate::journal::init();
        let Some(filter) = std::env::var("VMMKIT_LOG").ok().filter(|v| !v.is_empty()) else { return };
        let filter = match tracing_subscriber::EnvFilter::try_new(&filter) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("vmmkit: VMMKIT_LOG={filter:?}: {e}; logging stays off");
                return;
            }
        };
        // A program that installed its own subscriber keeps it.
        let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
    });
}

/// Defines, for each function of a vendor list, an `unsafe extern "C" fn` of
/// the same name and signature that goes through this layer and then calls
/// `$target::NAME`. A function listed under a symbol of another name (CUDA's
/// `cuMemAlloc = "cuMemAlloc_v2"`) keeps the field's name here, which is the
/// name programs write and `VMMKIT_FAULTS` uses.
#[macro_export]
#[doc(hidden)]
macro_rules! instrumented {
    (
        $target:path;
        required { $( $(#[$rm:meta])* $r:ident $(= $rsym:literal)? : fn($($ra:ident : $rt:ty),* $(,)?) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident $(= $osym:literal)? : fn($($oa:ident : $ot:ty),* $(,)?) -> $or:ty ; )* }
    ) => {
        $( $crate::instrumented!(@one $target; $r ($($ra : $rt),*) -> $rr); )*
        $( $crate::instrumented!(@one $target; $o ($($oa : $ot),*) -> $or); )*
    };
    (@one $target:path; $name:ident ($($a:ident : $t:ty),*) -> $ret:ty) => {
        #[doc = concat!("`", stringify!($name), "` through the instrumentation layer.")]
        ///
        /// # Safety
        /// The C contract of the vendor function of the same name.
        #[allow(non_snake_case)]
        pub unsafe extern "C" fn $name($($a: $t),*) -> $ret {
            use $target as target;
            let _enter = $crate::instrument::Enter::new(stringify!($name));
            let call = $crate::journal::begin();
            let ret = match $crate::instrument::injected::<$ret>(stringify!($name)) {
                Some(v) => v,
                None => {
                    let span = ::tracing::debug_span!(target: "vmmkit", stringify!($name), $($a = ?$a),*);
                    let _span = span.enter();
                    // SAFETY: forwarded with the caller's arguments under the same
                    // contract; each pointer the target takes wrapped
                    // (`crate::ffi`) is valid for what that contract allows.
                    #[allow(unused_unsafe)]
                    let ret = unsafe { target::$name($($crate::ffi::FromC::from_c($a)),*) };
                    ::tracing::debug!(target: "vmmkit", returned = ?ret);
                    ret
                }
            };
            if let Some(c) = call {
                #[allow(unused_imports)]
                use $crate::instrument::{ShowOut as _, ShowPlain as _};
                let ok = $crate::instrument::succeeded(&ret);
                let _ = ok;
                $( let $a = (&$crate::instrument::Arg(&$a)).show(ok); )*
                c.end(stringify!($name), &[$((stringify!($a), &$crate::instrument::Shown(&$a) as &dyn ::std::fmt::Debug)),*], &ret);
            }
            ret
        }
    };
}

/// An argument of an entry point, as the journal shows it: a pointer to a
/// value the call writes (an out-parameter: `*mut i32`, `*mut u64`, a
/// `*mut` handle or pointer) as its address and, after a call that
/// succeeded, the value written there (`0x7ffc… → 0x10000002`); any other
/// argument as its `Debug`. Chosen by the argument's type at compile time
/// ([`ShowOut`] before [`ShowPlain`]).
#[derive(Debug)]
pub struct Arg<'a, T>(pub &'a T);

/// A journal string shown as it is (its `Debug` has no quotes).
pub struct Shown<'a>(pub &'a str);

impl std::fmt::Debug for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

/// The types an out-parameter points at whose value the journal shows.
pub trait OutValue: Copy + std::fmt::Debug {}
macro_rules! out_values {
    ($($t:ty),*) => { $(impl OutValue for $t {})* };
}
out_values!(i8, u8, i16, u16, i32, u32, i64, u64, isize, usize);
impl<T> OutValue for *mut T {}
impl<T> OutValue for *const T {}
// The opaque handles a call writes (their `Debug` is the bytes in hex).
out_values!(
    vmmkit_sys::hip::hipIpcMemHandle_t,
    vmmkit_sys::hip::hipIpcEventHandle_t,
    vmmkit_sys::hip::hipMemPoolPtrExportData,
    vmmkit_sys::cuda::CUipcMemHandle,
    vmmkit_sys::cuda::CUipcEventHandle,
    vmmkit_sys::cuda::CUmemPoolPtrExportData,
    vmmkit_sys::acl::aclrtMemFabricHandle,
    vmmkit_sys::acl::aclrtIpcEventHandle
);

/// Shows an out-parameter with the value written through it.
pub trait ShowOut {
    /// The argument as the journal shows it.
    fn show(&self, ok: bool) -> String;
}

impl<T: OutValue> ShowOut for Arg<'_, *mut T> {
    fn show(&self, ok: bool) -> String {
        let p = *self.0;
        if !ok || p.is_null() {
            return format!("{p:?}");
        }
        // SAFETY: the call succeeded, so `p` was valid for its contract: an
        // out-parameter it wrote (or an input array the caller passed), of
        // at least one `T`. Read unaligned: C may pass any address.
        let v = unsafe { p.read_unaligned() };
        format!("{p:?} \u{2192} {v:?}")
    }
}

/// Shows any other argument by its `Debug`.
pub trait ShowPlain {
    /// The argument as the journal shows it.
    fn show(&self, ok: bool) -> String;
}

impl<T: std::fmt::Debug> ShowPlain for &Arg<'_, T> {
    fn show(&self, _: bool) -> String {
        format!("{:?}", self.0)
    }
}

/// Whether a call returned success: the code 0 of every vendor (ACL,
/// HIP, CUDA); a function that returns no code counts as succeeded.
pub fn succeeded<R: std::fmt::Debug>(ret: &R) -> bool {
    let s = format!("{ret:?}");
    s == "0" || s == "()" || s.starts_with("0x") && s != "0x0"
}

/// A dialect's public face, from its vendor's function list: its entry-point
/// modules (`pub mod` each of `modules`, whose `# Safety` is the vendor's C
/// contract, said once in the dialect), `mod all` (every entry point of
/// those modules under its C name), `pub mod entry`
/// (each of them through [`instrumented!`]: what `api` and the drop-in
/// libraries hand out), `pub fn api()` (the vendor table, every field the
/// entry point of the same name) and `pub fn entry_point(name)` (the entry
/// point of a table field, by its base name, as `cuGetProcAddress` asks).
///
/// ```ignore
/// crate::dialect_api! {
///     vendor: "ACL",
///     functions: vmmkit_sys::acl_functions,
///     types: vmmkit_sys::acl,
///     table: AclApi,
///     modules: device, ipc, memory, share, vmm,
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! dialect_api {
    (
        vendor: $vendor:literal,
        functions: $list:path,
        types: $($types:ident)::+,
        table: $table:ident,
        modules: $($(#[$attr:meta])* $module:ident),+ $(,)?
    ) => {
        $(
            #[allow(clippy::missing_safety_doc)]
            $(#[$attr])*
            pub mod $module;
        )+

        /// Every entry point, under its C name.
        mod all {
            $( pub use super::$module::*; )+
        }

        $list!($crate::dialect_api { @api $vendor; $table; });

        /// Every entry point through the instrumentation layer (fault
        /// injection, logs, leak tracking), under its C name: what [`api`]
        /// and the drop-in libraries hand out.
        #[allow(unsafe_code, reason = "the C entry points: the one place the caller's pointers are taken on trust")]
        pub mod entry {
            #[allow(unused_imports)]
            use ::std::ffi::{c_char, c_void};

            use $($types)::+::*;

            $list!($crate::instrumented { super::all; });
        }
    };
    (
        @api $vendor:literal; $table:ident;
        required { $( $(#[$rm:meta])* $r:ident $(= $rs:literal)? : fn($($ra:ident : $rt:ty),*) $(-> $rr:ty)? ; )* }
        optional { $( $(#[$om:meta])* $o:ident $(= $os:literal)? : fn($($oa:ident : $ot:ty),*) $(-> $or:ty)? ; )* }
    ) => {
        #[doc = concat!("The emulator's ", $vendor, " table: every function of [`", stringify!($table), "`], emulated.")]
        pub fn api() -> $table {
            $table {
                $( $r: self::entry::$r, )*
                $( $o: Some(self::entry::$o), )*
            }
        }

        /// The entry point of the table field `name` (a base name, as
        /// `cuGetProcAddress` is asked for), if there is one.
        pub fn entry_point(name: &[u8]) -> Option<*mut ::std::ffi::c_void> {
            $( if name == stringify!($r).as_bytes() { return Some(self::entry::$r as *mut ::std::ffi::c_void); } )*
            $( if name == stringify!($o).as_bytes() { return Some(self::entry::$o as *mut ::std::ffi::c_void); } )*
            None
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An out-parameter shows the value written after a call that
    /// succeeded, its address alone after one that failed; other arguments
    /// show as themselves.
    #[test]
    // Called as `instrumented!` calls it, `(&Arg(&a)).show(ok)`, whatever the type.
    #[allow(clippy::needless_borrow)]
    fn out_parameters_show_their_values() {
        let mut handle: u64 = 0x1000_0002;
        let p: *mut u64 = &mut handle;
        let shown = (&Arg(&p)).show(true);
        assert!(shown.starts_with("0x") && shown.ends_with(" \u{2192} 268435458"), "{shown}");
        assert_eq!((&Arg(&p)).show(false), format!("{p:?}"));
        let mut ptr: *mut std::ffi::c_void = 0x7f00_0000_0000usize as *mut _;
        let pp: *mut *mut std::ffi::c_void = &mut ptr;
        assert!((&Arg(&pp)).show(true).ends_with(" \u{2192} 0x7f0000000000"));
        let plain: *mut std::ffi::c_void = std::ptr::null_mut();
        assert_eq!((&Arg(&plain)).show(true), "0x0");
        assert_eq!((&Arg(&42i32)).show(true), "42");
        let mut ipc = vmmkit_sys::hip::hipIpcMemHandle_t::default();
        ipc.reserved[0] = 0x2a;
        let pi: *mut vmmkit_sys::hip::hipIpcMemHandle_t = &mut ipc;
        let shown = (&Arg(&pi)).show(true);
        assert!(shown.ends_with(" \u{2192} hipIpcMemHandle_t(2a +63 zero bytes)"), "{shown}");
        assert!(succeeded(&0i32) && !succeeded(&801i32) && succeeded(&()));
    }
}
