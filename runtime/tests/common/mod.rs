//! What the runtime's tests share: one process per test with a fresh
//! emulator root, and the drop-in `libascendcl.so` to test through.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use vmmkit_testkit::{TestRoot, libtest};

use vmmkit_runtime::{Backend, Runtime};
use vmmkit_sys::acl::AclApi;

/// Set in a child to the name of the test it runs.
const CHILD: &str = "VMMKIT_RUNTIME_TEST_CHILD";
/// Set in a child to the drop-in library's path.
const SHIM: &str = "VMMKIT_RUNTIME_TEST_SHIM";
/// How long a test's process (or an example) may run.
pub const DEADLINE: Duration = Duration::from_secs(120);
/// How long a `cargo build` from a test may run (a cold build compiles the emulator).
pub const BUILD_DEADLINE: Duration = Duration::from_secs(600);

/// Which table a case runs over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The in-process emulator table.
    Emulator,
    /// vmmkit's drop-in `libascendcl.so`, loaded through vmmkit-sys.
    Shim,
}

impl Which {
    /// The backend to open, in the test's own process.
    pub fn backend(self) -> Backend {
        match self {
            Self::Emulator => Backend::Emulator,
            Self::Shim => {
                let p = std::env::var_os(SHIM).expect("the parent passes the drop-in's path");
                Backend::Ascend(Some(p.into()))
            }
        }
    }
}

/// Runs `body` over `which` in a process of its own (see [`isolated`]). The
/// shim case is skipped, saying why, while the drop-in library lacks ACL
/// symbols (it is being written alongside).
pub fn run(which: Which, body: impl FnOnce(Backend)) {
    let mut env = Vec::new();
    if which == Which::Shim && std::env::var_os(CHILD).is_none() {
        match shim_library() {
            Ok(p) => env.push((SHIM, p.display().to_string())),
            Err(Skip(reason)) => {
                eprintln!("SKIPPED (shim case): {reason}");
                return;
            }
        }
    }
    isolated(&env, || body(which.backend()));
}

/// Runs `body` in a new process: the test executable re-run on this test
/// alone, with a fresh `VMMKIT_ROOT` (the emulator reads it once per
/// process), two devices of 1 GiB, and `env`. Fails on a child that fails,
/// runs no test, runs past the deadline, or leaves an exported object in the
/// root; the root is removed afterwards.
pub fn isolated(env: &[(&str, String)], body: impl FnOnce()) {
    let name = libtest::current_test().expect("libtest names the test thread");
    match std::env::var(CHILD) {
        Ok(child) if child == name => {
            body();
            return;
        }
        // A child must never start children of its own.
        Ok(child) => panic!("process for test {child:?} reached test {name:?}"),
        Err(_) => {}
    }
    let root = TestRoot::new("vmmkit-runtime-test-").expect("a temporary root").checked();
    let mut cmd = libtest::rerun(&name).expect("the test executable");
    root.apply(&mut cmd)
        .env(CHILD, &name)
        .env("VMMKIT_DEVICES", "2")
        .env("VMMKIT_DEVICE_MEMORY", "1G")
        .env_remove("VMMKIT_BACKEND")
        .env_remove("VMMKIT_ACL_LIBRARY")
        .stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (status, out) = run_bounded(cmd, DEADLINE);
    println!("---- {name} (own process, VMMKIT_ROOT={}) ----\n{out}", root.path().display());
    assert!(status.success(), "{name}: the test's process failed ({status}):\n{out}");
    assert!(out.contains("test result: ok. 1 passed"), "{name}: the child ran no test:\n{out}");
    // The root is `checked`: dropping it fails the test if an exported
    // object is left (everything was released, or the registry leaks).
}

/// Path of the shim for a child, or why the shim case is skipped.
pub fn shim_env() -> Result<String, Skip> {
    shim_library().map(|p| p.display().to_string())
}

/// Runs `cmd`, waiting at most `deadline`; a child past it is killed and
/// fails the test. Returns how it ended and its stdout and stderr.
pub fn run_bounded(mut cmd: Command, deadline: Duration) -> (vmmkit_testkit::Exit, String) {
    vmmkit_testkit::process::run(cmd.stdin(Stdio::null()), deadline)
        .unwrap_or_else(|e| panic!("{:?}: {e}", cmd.get_program()))
}

/// Why a shim case does not run.
#[derive(Debug, Clone)]
pub struct Skip(pub String);

/// The drop-in `libascendcl.so` of this build, built if needed, checked to
/// load with every ACL symbol.
pub fn shim_library() -> Result<PathBuf, Skip> {
    static SHIM_LIB: OnceLock<Result<PathBuf, Skip>> = OnceLock::new();
    SHIM_LIB.get_or_init(build_shim).clone()
}

/// `<target>/<profile>`, from this executable's place: `<target>/<profile>/deps/<test>`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable");
    exe.parent().and_then(Path::parent).expect("tests run from <target>/<profile>/deps").to_path_buf()
}

fn build_shim() -> Result<PathBuf, Skip> {
    let profile_dir = profile_dir();
    let target = profile_dir.parent().expect("<target>/<profile>");
    let profile = profile_dir.file_name().and_then(|n| n.to_str()).expect("a profile name");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace).args(["build", "--quiet", "-p", "vmmkit-shim-ascendcl"]).env("CARGO_TARGET_DIR", target);
    match profile {
        "debug" => {}
        "release" => {
            cmd.arg("--release");
        }
        other => {
            cmd.args(["--profile", other]);
        }
    }
    let (status, out) = run_bounded(cmd, BUILD_DEADLINE);
    assert!(status.success(), "cargo build -p vmmkit-shim-ascendcl failed ({status}):\n{out}");
    let lib = profile_dir.join("libascendcl.so");
    assert!(lib.exists(), "the build left no {}", lib.display());
    match AclApi::load(Some(&lib)) {
        Ok(l) if l.is_vmmkit_shim => Ok(lib),
        Ok(_) => Err(Skip(format!("{} does not export vmmkit_shim_info: not vmmkit's drop-in", lib.display()))),
        Err(e) => Err(Skip(format!("the drop-in library is not complete yet: {e}"))),
    }
}

/// The test pattern: `len` bytes that differ from their neighbours and from
/// the same offset of the next granule.
pub fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u64).wrapping_mul(31).wrapping_add(u64::from(seed)).wrapping_add((i >> 12) as u64) as u8)
        .collect()
}

/// Fails if the emulator behind `rt` still holds a handle, reservation or
/// mapping of this process (its leak report). For the drop-in, whose
/// emulator is a copy of its own, device memory and the root are checked by
/// the callers instead.
pub fn assert_no_leaks(rt: &Runtime) {
    if rt.backend() == &Backend::Emulator {
        let leaks = vmmkit_emulator::leaks::report();
        assert!(
            leaks.is_empty(),
            "left unreleased: {}",
            leaks.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
        );
    }
}
