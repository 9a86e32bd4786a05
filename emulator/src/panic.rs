//! Panics caught at the C boundary ([`crate::dialect::run`],
//! [`crate::shim::guard`]): one line on the host program's stderr, never a
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
fn message(payload: &(dyn std::any::Any + Send)) -> &str {
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use vmmkit_sys::acl::AclError;
    use vmmkit_sys::vendor::Acl;

    const ROLE_ENV: &str = "VMMKIT_PANIC_TEST_CHILD";

    /// In a child with `RUST_BACKTRACE=1` whose host program has a hook of
    /// its own: a panic inside an entry point prints exactly one line and no
    /// backtrace, the call returns ACL's panic code with that line as the
    /// thread's message; a panic outside any entry point still reaches the
    /// host's hook.
    #[test]
    fn a_panic_at_the_boundary_prints_one_line() {
        if std::env::var_os(ROLE_ENV).is_some() {
            std::panic::set_hook(Box::new(|info| {
                eprintln!("HOST HOOK: {}", super::message(info.payload()));
            }));
            super::install();
            let code = crate::dialect::run::<Acl>("aclTestPanic", || panic!("forced for the test"));
            println!("code {code}");
            println!("message {}", crate::core::thread::message());
            let _ = std::panic::catch_unwind(|| panic!("outside any entry point"));
            return;
        }
        let mut cmd =
            vmmkit_testkit::libtest::rerun("panic::tests::a_panic_at_the_boundary_prints_one_line").expect("test exe");
        cmd.env(ROLE_ENV, "1").env("RUST_BACKTRACE", "1");
        let (exit, out) = vmmkit_testkit::process::run(&mut cmd, Duration::from_secs(60)).expect("child");
        assert!(exit.success(), "child {exit}:\n{out}");
        let lines: Vec<&str> = out.lines().filter(|l| l.contains("forced for the test")).collect();
        assert_eq!(lines.len(), 2, "the hook's line and the message, nothing else:\n{out}");
        // libtest's "test NAME ... " may precede the hook's line.
        let hook = lines[0].find("vmmkit: ").map_or(lines[0], |i| &lines[0][i..]);
        assert!(
            hook.starts_with("vmmkit: internal error in aclTestPanic: forced for the test at emulator/src/panic.rs:")
                && hook.ends_with("; please report it"),
            "{out}"
        );
        assert_eq!(lines[1], format!("message {hook}"), "{out}");
        assert!(!out.contains("stack backtrace") && !out.contains("HOST HOOK: forced"), "{out}");
        assert!(out.contains("HOST HOOK: outside any entry point"), "{out}");
        assert!(out.contains(&format!("code {}", AclError::RT_DRV_INTERNAL_ERROR.0)), "{out}");
    }
}
