//! The emulator of this process: installed by the program from a
//! [`Config`] ([`install`]) before its first call, or else set up from the
//! environment ([`Config::from_env`]) at first use.
//!
//! Besides the machine's settings, two diagnostics of the process are read
//! from the environment when the emulator starts, either way: the fault list
//! `VMMKIT_FAULTS` (in code: [`crate::faults::set`]) and the leak report at
//! exit, `VMMKIT_LEAK_REPORT=1` (in code: [`crate::leaks::report`]).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Once, OnceLock};

use crate::config::{Config, ConfigError};
use crate::faults::Spec;

use super::{CoreError, Emulator};

/// The emulator of this process, or why it could not start. Set once: by
/// [`install`], or by the first [`emulator`] call. A global because the
/// vendors' C entry points carry no context: every call of every dialect
/// finds its process's emulator here.
static EMULATOR: OnceLock<Result<Emulator, CoreError>> = OnceLock::new();

/// Why [`install`] did not install.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstallError {
    /// An emulator is already running in this process (installed, or set up
    /// by an earlier call); it stays as it is.
    #[error("the emulator of this process is already running; install it before the first call")]
    AlreadyRunning,
    /// The emulator could not start with this configuration (an unusable
    /// root, a malformed `VMMKIT_FAULTS`); nothing was installed.
    #[error("{0}")]
    Unavailable(CoreError),
}

/// Installs the emulator of this process, made from `config`, before its
/// first use; later calls of every dialect use it. Without an install the
/// first call sets the emulator up from the environment.
///
/// # Errors
/// [`InstallError::AlreadyRunning`] when the process's emulator is already
/// running; [`InstallError::Unavailable`] when it cannot start with
/// `config` (nothing is installed then, and the process may try again).
///
/// # Example
/// ```
/// let root = tempfile::tempdir()?;
/// vmmkit_emulator::install(vmmkit_emulator::Config::new(root.path()).with_devices(2))?;
/// assert_eq!(vmmkit_emulator::core::emulator()?.device_count(), 2);
/// assert!(vmmkit_emulator::install(vmmkit_emulator::Config::new(root.path())).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn install(config: Config) -> Result<(), InstallError> {
    if EMULATOR.get().is_some() {
        return Err(InstallError::AlreadyRunning);
    }
    let (e, faults) =
        start(config.validate().map(|()| config)).map_err(|e| InstallError::Unavailable(CoreError::Unavailable(e)))?;
    EMULATOR.set(Ok(e)).map_err(|_| InstallError::AlreadyRunning)?;
    activate(faults);
    Ok(())
}

/// The emulator of this process: the installed one, or else one set up
/// from the environment at first use.
///
/// # Errors
/// [`CoreError::Unavailable`] with the reason (a bad setting, an unusable root),
/// the same for every call.
#[inline]
pub fn emulator() -> Result<&'static Emulator, CoreError> {
    // Started: one load (the call after the first).
    if let Some(Ok(e)) = EMULATOR.get() {
        return Ok(e);
    }
    start_once()
}

/// [`emulator`] before it has started (or when it could not).
#[cold]
fn start_once() -> Result<&'static Emulator, CoreError> {
    EMULATOR
        .get_or_init(|| {
            let r = start(Config::from_env()).map(|(e, faults)| {
                activate(faults);
                e
            });
            if let Err(e) = &r {
                // Programs rarely read the error message: say it once where people look.
                eprintln!("vmmkit: {e}");
            }
            r.map_err(CoreError::Unavailable)
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// The emulator of this process if it has started; never starts it (a
/// question such as "has cuInit run" must not set the emulator up).
pub fn running() -> Option<&'static Emulator> {
    EMULATOR.get().and_then(|r| r.as_ref().ok())
}

/// The emulator of `config` and the fault list of `VMMKIT_FAULTS`, or why
/// they cannot be had.
fn start(config: Result<Config, ConfigError>) -> Result<(Emulator, Spec), String> {
    let faults = std::env::var("VMMKIT_FAULTS").unwrap_or_default();
    let spec = Spec::parse(&faults).map_err(|e| format!("VMMKIT_FAULTS: {e}"))?;
    let e = config.map_err(|e| e.to_string()).and_then(|c| Emulator::new(c).map_err(|e| e.to_string()))?;
    Ok((e, spec))
}

/// Turns on what a started emulator brings: its fault list, and the leak
/// report at exit when `VMMKIT_LEAK_REPORT=1`.
fn activate(faults: Spec) {
    if !faults.is_empty() {
        crate::faults::install(faults);
    }
    if std::env::var("VMMKIT_LEAK_REPORT").is_ok_and(|v| v == "1") {
        report_leaks_at_exit();
    }
}

/// Prints the leak report to stderr at exit.
fn report_leaks_at_exit() {
    extern "C" fn at_exit() {
        // A child forked after the emulator started inherits this handler
        // and the parent's tables; what they hold is the parent's to report.
        if is_fork_of_started() {
            return;
        }
        let leaks = running().and_then(Emulator::leaks).unwrap_or_default();
        if leaks.is_empty() {
            eprintln!("vmmkit: leak report: nothing left unreleased");
            return;
        }
        eprintln!("vmmkit: leak report: {} object(s) never released:", leaks.len());
        for l in leaks {
            eprintln!("vmmkit:   {l}");
        }
    }
    // SAFETY: `at_exit` is a plain function with no arguments that touches no
    // thread-local state; registering it has no other effect.
    let _ = unsafe { libc::atexit(at_exit) };
}

// ==== Processes forked after the emulator started (crate::fork) ==========
// A `pthread_atfork` child handler, registered at the first call, marks the
// child when the emulator had started in the parent; a process whose first
// call comes after it was forked from an emulator started without any call
// ([`install`]) finds out at that first call.

/// The pid of the process where the emulator this one inherited started;
/// 0 when this process is not such a fork. Written in the child only: by
/// the atfork handler, or at its first call ([`watch_forks`]).
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
pub(crate) fn watch_forks() {
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
    running().map(|e| e.registry().me().pid)
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
