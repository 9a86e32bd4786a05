//! Calls through a vendor table with the code checked, for tests that pass
//! deliberate (and deliberately bad) arguments: written once for every
//! vendor, each test common names its code type and its message.
//!
//! ```ignore
//! // In a test common: hcall!, hok! and hexpect! for HIP.
//! vmmkit_testkit::vendor_macros!($ vmmkit_sys::hip::HipError, vmmkit_emulator::core::thread::message: hcall, hok, hexpect);
//! ```

/// Calls `$api.$f(args)` and wraps what it returns in the code type `$code`.
/// The arguments are the test's deliberate (and deliberately bad) values,
/// hence the unsafe block around them.
#[allow(clippy::macro_metavars_in_unsafe)]
#[macro_export]
macro_rules! vendor_call {
    ($code:path, $api:expr, $f:ident ( $($a:expr),* $(,)? )) => {
        // SAFETY: tests pass valid pointers or deliberately bad values that the
        // implementation must reject without dereferencing.
        $code(unsafe { ($api.$f)($($a),*) })
    };
}

/// Asserts that a call returns `$code::SUCCESS`; `$message` says why not.
#[macro_export]
macro_rules! vendor_ok {
    ($code:path, $message:expr, $api:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let rc = $crate::vendor_call!($code, $api, $f($($a),*));
        assert_eq!(rc, <$code>::SUCCESS, "{} failed: {}", stringify!($f), $message);
    }};
}

/// Asserts an exact code and, when a rule is given, that the message
/// (`$message`) starts with it.
#[macro_export]
macro_rules! vendor_expect {
    ($code:path, $message:expr, $api:expr, $f:ident ( $($a:expr),* $(,)? ), $want:expr $(, $rule:literal)?) => {{
        let rc = $crate::vendor_call!($code, $api, $f($($a),*));
        assert_eq!(rc, $want, "{}: expected {}, got {} ({})", stringify!($f), $want, rc, $message);
        $( assert!($message.starts_with($rule), "{}: message should name {}: {}", stringify!($f), $rule, $message); )?
    }};
}

/// Defines a vendor's three test macros, `$call!(api, f(args))`,
/// `$ok!(api, f(args))` and `$expect!(api, f(args), code[, "RULE-ID"])`,
/// over its code type and a function giving the calling thread's last
/// message. The first argument is a literal `$` (for the macros it defines).
/// Use them by their plain names after the defining module, not by path.
#[macro_export]
macro_rules! vendor_macros {
    ($d:tt $code:path, $message:path: $call:ident, $ok:ident, $expect:ident) => {
        #[macro_export]
        macro_rules! $call { ($d($d t:tt)*) => { $crate::vendor_call!($code, $d($d t)*) } }
        #[macro_export]
        macro_rules! $ok { ($d($d t:tt)*) => { $crate::vendor_ok!($code, $message(), $d($d t)*) } }
        #[macro_export]
        macro_rules! $expect { ($d($d t:tt)*) => { $crate::vendor_expect!($code, $message(), $d($d t)*) } }
    };
}
