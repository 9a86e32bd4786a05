//! Processes forked after the emulator started.
//!
//! A child made by `fork` without `exec` has a copy of its parent's memory,
//! so of the parent's emulator: its tables, and its identity in the registry
//! (pid and start time, computed once when the emulator started). Acting on
//! them would import under the parent's trustlist entry, free the parent's
//! objects and report them as the child's leaks. No vendor lets such a child
//! use the device either (docs/emulator.md, "Processes forked after
//! initialisation"): CUDA answers `CUDA_ERROR_NOT_INITIALIZED` to every call,
//! HIP and CANN call it undefined. So every entry point of a forked child
//! refuses, with its vendor's rule (`*-FORK-001`) and a message naming the
//! parent; a child that never calls the emulator is unaffected (its inherited
//! mappings stay readable, as fork gives them).
//!
//! Detection costs an entry point one relaxed load: a `pthread_atfork`
//! child handler, registered at the first call, marks the child when the
//! emulator had started in the parent; a process whose first call comes
//! after it was forked from an emulator started without any call
//! ([`crate::install`]) finds out at that first call.

use std::sync::Once;
use std::sync::atomic::{AtomicU32, Ordering};

use vmmkit_sys::Vendor;
use vmmkit_sys::rule::{Dialect, Rule};

/// The pid of the process where the emulator this one inherited started;
/// 0 when this process is not such a fork. Written in the child only: by
/// the atfork handler, or at its first call ([`watch`]).
static PARENT: AtomicU32 = AtomicU32::new(0);

/// When this process was forked (without `exec`) from a process whose
/// emulator had started: the pid of that process. One relaxed load.
#[inline]
pub fn forked_from() -> Option<u32> {
    match PARENT.load(Ordering::Relaxed) {
        0 => None,
        pid => Some(pid),
    }
}

/// Registers the fork handler, once per process, and notes an emulator
/// inherited by a fork that happened before any handler was registered.
/// Called at a process's first entry point.
pub(crate) fn watch() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // SAFETY: `on_fork_child` is a plain function that only loads from a
        // OnceLock and stores to an atomic, both fine in a forked child;
        // registering it has no other effect.
        let _ = unsafe { libc::pthread_atfork(None, None, Some(on_fork_child)) };
        if let Some(started) = started_in()
            && started != std::process::id()
        {
            PARENT.store(started, Ordering::Relaxed);
        }
    });
}

/// The pid of the process that started the emulator this process holds, if
/// it holds a running one.
fn started_in() -> Option<u32> {
    crate::core::running().map(|e| e.registry().me().pid)
}

/// Runs in the child of every `fork` once registered.
extern "C" fn on_fork_child() {
    if let Some(started) = started_in() {
        PARENT.store(started, Ordering::Relaxed);
    }
}

/// Whether this process is a fork of one whose emulator had started, found
/// without the handler (at exit, where a system call is cheap): the
/// registry's identity is not this process's.
pub(crate) fn is_fork_of_started() -> bool {
    forked_from().is_some() || started_in().is_some_and(|p| p != std::process::id())
}

/// The entry points a forked child may still call: they map a code to its
/// name or give a version, and read no state of the parent's.
const STATELESS: &[&str] = &[
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDriverGetVersion",
    "hipDriverGetVersion",
    "hipRuntimeGetVersion",
    "aclrtGetVersion",
];

/// The rule a forked child's call of `name` breaks, with its message, or
/// `None` when this process is no such child, `name` reads no state, or the
/// rule is mutated away.
pub(crate) fn refusal<V: Vendor>(name: &str) -> Option<(&'static Rule, String)> {
    let parent = forked_from()?;
    let rule = rule_of(V::DIALECT)?;
    if STATELESS.contains(&name) || !crate::mutation::enforced(rule) {
        return None;
    }
    let source = rule.sources.first().map(ToString::to_string).unwrap_or_default();
    let msg = format!(
        "this process (pid {}) is a fork of pid {parent}, made after the emulator was initialised there; as on the \
         device, a forked child must not use its parent's state ({source}): exec a new program, or fork before the \
         first call",
        std::process::id()
    );
    Some((rule, msg))
}

fn rule_of(d: Dialect) -> Option<&'static Rule> {
    match d {
        Dialect::Acl => Some(&vmmkit_sys::acl::rules::FORK_001),
        Dialect::Hip => Some(&vmmkit_sys::hip::rules::FORK_001),
        Dialect::Cuda => Some(&vmmkit_sys::cuda::rules::FORK_001),
        #[cfg(feature = "example-vendor")]
        Dialect::Example => Some(&vmmkit_sys::example::rules::FORK_001),
        Dialect::Selftest => None,
    }
}
