//! Outside programs the tests run to build and inspect what they test: a C
//! or C++ compiler, the binutils. These fail the test (panic) with the
//! program's output, which is what a test wants from them.

use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;

/// Runs a compiler command; fails the test with its output when it fails.
pub fn run_compiler(cmd: &mut Command, what: &Path) {
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run {:?} (a C/C++ compiler is required): {e}", cmd.get_program()),
    };
    assert!(
        out.status.success(),
        "compiling {} failed ({}):\n{}{}",
        what.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs a binutils tool (`nm`, `readelf`, `objdump`) and returns its stdout;
/// fails the test with a clear message when the tool is missing or fails.
pub fn binutils(tool: &str, args: &[&OsStr]) -> String {
    let out = match Command::new(tool).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run `{tool}` ({e}); it comes with binutils (Debian: apt-get install binutils)"),
    };
    assert!(out.status.success(), "`{tool}` failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("binutils output is UTF-8")
}

/// The C compiler: `$CC`, else `cc`.
pub fn c_compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}
