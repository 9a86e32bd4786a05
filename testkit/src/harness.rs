//! A test harness for test files (`harness = false`) whose tests need
//! something a machine may lack (a tool, a vendor library, a fetched tree, a
//! kernel feature): such a test calls [`skip`] with the reason, and is
//! reported `ignored` with it, never `ok`. libtest cannot ignore a test once
//! it runs; libtest-mimic can, and keeps libtest's command line (filters,
//! `--exact`, `--nocapture`, `--test-threads`, `--ignored`).
//!
//! ```ignore
//! fn needs_cxx() {
//!     let Some(cxx) = find_cxx() else { vmmkit_testkit::harness::skip("no C++ compiler (set CXX)") };
//!     ...
//! }
//! vmmkit_testkit::harness!(needs_cxx, other_test);
//! ```
//!
//! Each test runs on a thread named after it, as under libtest, so
//! [`crate::libtest::current_test`] and [`crate::libtest::rerun`] work the
//! same; a panic other than [`skip`]'s fails the test with its message.

use std::any::Any;
use std::sync::Once;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// The payload of [`skip`]'s unwinding.
#[derive(Debug)]
pub struct Skip(pub String);

/// Ends the running test as ignored, with `reason` (what is absent, and how
/// to provide it).
pub fn skip(reason: impl Into<String>) -> ! {
    std::panic::panic_any(Skip(reason.into()))
}

/// Runs `tests` (name, body) under libtest-mimic with this process's
/// arguments, and exits with its verdict.
pub fn main(tests: &[(&'static str, fn())]) -> ! {
    quiet_skips();
    let args = Arguments::from_args();
    let trials = tests.iter().map(|&(name, body)| Trial::ignorable_test(name, move || run(name, body))).collect();
    libtest_mimic::run(&args, trials).exit()
}

/// As [`main`], each test on the main thread, one after the other: for a
/// test file whose process must have one thread (it forks a child to trace,
/// or sets the environment for the emulator it starts).
pub fn main_single_thread(tests: &[(&'static str, fn())]) -> ! {
    quiet_skips();
    let mut args = Arguments::from_args();
    args.test_threads = Some(1);
    let trials = tests
        .iter()
        .map(|&(name, body)| {
            Trial::ignorable_test(name, move || {
                let ran = std::panic::catch_unwind(body);
                verdict(ran.map_err(|p| p as Box<dyn Any + Send>))
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit()
}

/// One test on a thread of its name: completed, ignored by [`skip`], or failed.
fn run(name: &'static str, body: fn()) -> Result<Completion, Failed> {
    let thread = std::thread::Builder::new().name(name.into()).spawn(body).map_err(|e| Failed::from(e.to_string()))?;
    verdict(thread.join())
}

/// How a test body ended: completed, ignored by [`skip`], or failed.
fn verdict(ended: Result<(), Box<dyn Any + Send>>) -> Result<Completion, Failed> {
    match ended {
        Ok(()) => Ok(Completion::Completed),
        Err(payload) => match payload.downcast::<Skip>() {
            Ok(skip) => Ok(Completion::ignored_with(skip.0)),
            Err(other) => Err(Failed::from(message(other.as_ref()))),
        },
    }
}

/// A panic's message, as the panic hook printed it.
fn message(payload: &(dyn Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "the test panicked".into())
}

/// The panic hook, less the report of a [`skip`] (not a failure).
fn quiet_skips() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.payload().downcast_ref::<Skip>().is_none() {
                default(info);
            }
        }));
    });
}

/// `fn main` of a test file: each named function (`fn()`) a test, under
/// [`main`].
#[macro_export]
macro_rules! harness {
    ($($test:ident),* $(,)?) => {
        fn main() {
            $crate::harness::main(&[$((stringify!($test), $test as fn())),*])
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_skip_is_ignored_a_panic_fails_and_the_thread_has_the_name() {
        quiet_skips();
        assert!(matches!(run("passes", || ()), Ok(Completion::Completed)));
        fn skips() {
            skip("no such tool")
        }
        match run("skips", skips) {
            Ok(Completion::Ignored { reason }) => assert_eq!(reason.as_deref(), Some("no such tool")),
            _ => panic!("a skip is ignored"),
        }
        fn fails() {
            panic!("broken")
        }
        assert!(run("fails", fails).is_err());
        fn named() {
            assert_eq!(crate::libtest::current_test().as_deref(), Some("named"));
        }
        assert!(matches!(run("named", named), Ok(Completion::Completed)));
    }
}
