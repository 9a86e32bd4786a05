//! Debian's HIP runtime and headers for tests that need the vendor's own
//! files: fetched by the project's `scripts/fetch-hip.sh` into
//! `<target>/hip-runtime/` (no system install), or the reason they cannot
//! be had, so a test can skip saying why.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that turns a skip into a failure (CI that must run them).
pub const REQUIRE_ENV: &str = "VMMKIT_REQUIRE_REAL_HIP";

/// Runs `scripts/fetch-hip.sh PART` (`runtime` or `headers`) of the
/// repository at `repo`, and returns its `KEY=VALUE` lines; `Err` with the
/// script's reason when the package registry cannot be reached (its exit
/// status 2). The cache is `$HIP_CACHE_DIR`, else `hip-runtime/` in the
/// target directory of the running test.
///
/// # Panics
/// When the script fails otherwise (a bug to see, not a reason to skip).
pub fn fetch(repo: &Path, part: &str) -> Result<HashMap<String, String>, String> {
    let script = repo.join("scripts/fetch-hip.sh");
    let mut cmd = Command::new(&script);
    cmd.arg(part);
    if std::env::var_os("HIP_CACHE_DIR").is_none()
        && let Some(target) = target_dir()
    {
        cmd.env("HIP_CACHE_DIR", target.join("hip-runtime"));
    }
    let out = cmd.output().map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    match out.status.code() {
        Some(0) => Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()),
        Some(2) => Err(stderr),
        _ => panic!("{} {part} failed ({}): {stderr}", script.display(), out.status),
    }
}

/// The target directory of the running test (`<target>/<profile>/deps/<test>`).
fn target_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.to_path_buf())
}

/// Ends a test run under [`crate::harness`](mod@crate::harness) as ignored with `reason`, or
/// fails it when [`REQUIRE_ENV`] is `1` (CI that has the packages).
///
/// # Panics
/// Always: with [`crate::harness::Skip`], or with the reason when skips are
/// not allowed.
pub fn ignore(reason: &str) -> ! {
    assert!(std::env::var(REQUIRE_ENV).as_deref() != Ok("1"), "{REQUIRE_ENV}=1, but: {reason}");
    crate::harness::skip(reason)
}
