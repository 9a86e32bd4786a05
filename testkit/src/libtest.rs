//! Test executables run again: one test of this executable in a process of
//! its own (for a fresh emulator root per test, or a peer role).

use std::process::Command;

/// The name libtest gives the current test (its thread's name), if any.
pub fn current_test() -> Option<String> {
    std::thread::current().name().filter(|n| *n != "main").map(str::to_owned)
}

/// A command that runs this test executable again on the test `test` alone:
/// matched exactly, its output not captured, in one thread.
pub fn rerun(test: &str) -> std::io::Result<Command> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.args([test, "--exact", "--nocapture", "--test-threads=1"]);
    Ok(cmd)
}
