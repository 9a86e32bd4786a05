//! Panics caught at the C boundary (by `dialect::run` and `shim::guard`,
//! which use this module): one line on the host program's stderr, never a
//! backtrace, whatever `RUST_BACKTRACE` says.
//!
//! A panic hook is process-wide, and the host program may be Rust with a
//! hook of its own. So the hook installed here (once, at the first entry
//! point) handles only panics raised while the thread is inside an entry
//! point ([`Inside`]), and hands every other panic to the hook that was
//! there before it. A host that sets its own hook later replaces this one:
//! its hook then sees our panics too (they are still caught).

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::panic::PanicHookInfo;
use std::sync::Once;

thread_local! {
    /// The entry point the thread is inside, if any (the innermost).
    static INSIDE: Cell<Option<&'static str>> = const { Cell::new(None) };
    /// The line the hook printed for the thread's last caught panic, for the
    /// call's error message.
    static LAST: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Marks the calling thread as inside entry point `name` until dropped.
#[derive(Debug)]
pub struct Inside {
    outer: Option<&'static str>,
}

impl Inside {
    /// Enters `name`.
    pub fn enter(name: &'static str) -> Self {
        Self { outer: INSIDE.with(|c| c.replace(Some(name))) }
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        INSIDE.with(|c| c.set(self.outer));
    }
}

/// Installs the hook, once per process.
pub fn install() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| match INSIDE.try_with(Cell::get).ok().flatten() {
            Some(name) => report(name, info),
            None => previous(info),
        }));
    });
}

/// The one line for a panic in entry point `name`.
fn report(name: &str, info: &PanicHookInfo<'_>) {
    let what = message(info.payload());
    let at = info.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
    let line = format!("vmmkit: internal error in {name}: {what}{at}; please report it");
    // One write, so that lines of several threads never interleave.
    let _ = std::io::stderr().lock().write_all(format!("{line}\n").as_bytes());
    let _ = LAST.try_with(|l| *l.borrow_mut() = Some(line));
}

/// The text of a panic's payload (`payload_as_str` needs Rust 1.91; the MSRV is 1.85).
pub(crate) fn message(payload: &(dyn std::any::Any + Send)) -> &str {
    payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("(a panic without a message)")
}

/// The line printed for the thread's last caught panic (taken), if the hook printed one.
pub fn take_last() -> Option<String> {
    LAST.try_with(|l| l.borrow_mut().take()).ok().flatten()
}
