//! What the runtime's tests share: one process per test with a fresh
//! emulator root, and the drop-in `libascendcl.so` to test through.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use vmmkit_testkit::{TestRoot, libtest};

use vmmkit_runtime::{Backend, Runtime, Vendor};

/// Set in a child to the name of the test it runs.
const CHILD: &str = "VMMKIT_RUNTIME_TEST_CHILD";
/// Set in a child to the drop-in library's path.
const SHIM: &str = "VMMKIT_RUNTIME_TEST_SHIM";
/// How long a test's process (or an example) may run.
pub const DEADLINE: Duration = Duration::from_secs(120);
/// How long a `cargo build` from a test may run (a cold build compiles the emulator).
pub const BUILD_DEADLINE: Duration = Duration::from_secs(600);

/// Which table a case runs over: each test body runs over every one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    /// The in-process emulator table of a dialect.
    Emulator(Vendor),
    /// vmmkit's drop-in library of a vendor (`libascendcl.so`,
    /// `libamdhip64.so`), loaded through vmmkit-sys.
    Shim(Vendor),
}

impl Which {
    /// The vendor whose C API the table speaks.
    pub fn vendor(self) -> Vendor {
        match self {
            Self::Emulator(v) | Self::Shim(v) => v,
        }
    }

    /// The backend to open, in the test's own process.
    pub fn backend(self) -> Backend {
        match self {
            Self::Emulator(v) => Backend::emulator(v),
            Self::Shim(v) => {
                let p: PathBuf = std::env::var_os(SHIM).expect("the parent passes the drop-in's path").into();
                Backend::real(v, Some(p))
            }
        }
    }
}

/// Runs `body` over `which` in a process of its own (see [`isolated`]). A
/// shim case fails when its drop-in library is not vmmkit's or lacks
/// symbols: the workspace builds both drop-ins whole.
pub fn run(which: Which, body: impl FnOnce(Backend)) {
    let mut env = Vec::new();
    if let Which::Shim(v) = which
        && std::env::var_os(CHILD).is_none()
    {
        env.push((SHIM, shim_env(v)));
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
        .env_remove("VMMKIT_HIP_LIBRARY")
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

/// Path of `vendor`'s shim for a child, or why the shim case is skipped.
pub fn shim_env(vendor: Vendor) -> String {
    shim_library(vendor).display().to_string()
}

/// Runs `cmd`, waiting at most `deadline`; a child past it is killed and
/// fails the test. Returns how it ended and its stdout and stderr.
pub fn run_bounded(mut cmd: Command, deadline: Duration) -> (vmmkit_testkit::Exit, String) {
    vmmkit_testkit::process::run(cmd.stdin(Stdio::null()), deadline)
        .unwrap_or_else(|e| panic!("{:?}: {e}", cmd.get_program()))
}

/// Why a drop-in library of this build cannot be tested (a failure).
#[derive(Debug, Clone)]
struct Unusable(String);

/// A drop-in library of the workspace: its package, its file, and how to
/// load it (whether it is vmmkit's drop-in, or why it does not load whole).
#[derive(Debug, Clone, Copy)]
pub struct DropIn {
    pub package: &'static str,
    pub file: &'static str,
    pub load: fn(&Path) -> Result<bool, String>,
}

fn load_as<V: vmmkit_sys::vendor::Vendor>(p: &Path) -> Result<bool, String> {
    V::load(Some(p)).map(|l| l.is_vmmkit_shim).map_err(|e| e.to_string())
}

/// Declares [`drop_in`] from the runtime's list of vendors.
macro_rules! drop_ins {
    ([] $($v:ident $lower:ident $soname:literal:
        $emu:ident [$($emu_name:literal),+], $lib:ident $lib_name:literal $(, drop_in $pkg:literal)?;)*) => {
        /// `vendor`'s drop-in library in this workspace, if it has one.
        pub fn drop_in(vendor: Vendor) -> Option<DropIn> {
            match vendor {
                $(Vendor::$v => None$(.or(Some(DropIn {
                    package: $pkg,
                    file: $soname,
                    load: load_as::<vmmkit_sys::vendor::$v>,
                })))?,)*
            }
        }
    };
}
vmmkit_runtime::vendors!(drop_ins);

/// `vendor`'s drop-in library of this build, built if needed, checked to
/// load with every symbol.
pub fn shim_library(vendor: Vendor) -> PathBuf {
    static BUILT: [OnceLock<Result<PathBuf, Unusable>>; Vendor::ALL.len()] =
        [const { OnceLock::new() }; Vendor::ALL.len()];
    let d = drop_in(vendor).unwrap_or_else(|| panic!("vmmkit has no {vendor} drop-in library"));
    let at = Vendor::ALL.iter().position(|&v| v == vendor).expect("every vendor is listed");
    BUILT[at]
        .get_or_init(|| build_shim(d.package, d.file, d.load))
        .clone()
        .unwrap_or_else(|Unusable(why)| panic!("the {vendor:?} drop-in cannot be tested: {why}"))
}

/// `<target>/<profile>`, from this executable's place: `<target>/<profile>/deps/<test>`.
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test executable");
    exe.parent().and_then(Path::parent).expect("tests run from <target>/<profile>/deps").to_path_buf()
}

/// Builds `package` (a cdylib `file`) into this build's target and checks
/// that it loads (`load` says whether it is vmmkit's drop-in).
fn build_shim(package: &str, file: &str, load: impl Fn(&Path) -> Result<bool, String>) -> Result<PathBuf, Unusable> {
    let profile_dir = profile_dir();
    let target = profile_dir.parent().expect("<target>/<profile>");
    let profile = profile_dir.file_name().and_then(|n| n.to_str()).expect("a profile name");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let mut cmd = Command::new(cargo);
    cmd.current_dir(workspace).args(["build", "--quiet", "-p", package]).env("CARGO_TARGET_DIR", target);
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
    assert!(status.success(), "cargo build -p {package} failed ({status}):\n{out}");
    let lib = profile_dir.join(file);
    assert!(lib.exists(), "the build left no {}", lib.display());
    match load(&lib) {
        Ok(true) => Ok(lib),
        Ok(false) => Err(Unusable(format!("{} does not export vmmkit_shim_info: not vmmkit's drop-in", lib.display()))),
        Err(e) => Err(Unusable(format!("the drop-in library does not load whole: {e}"))),
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
/// mapping of this process (its leak report). For a drop-in, whose emulator
/// is a copy of its own, device memory (ACL) and the root are checked by
/// the callers instead.
pub fn assert_no_leaks(rt: &Runtime) {
    if rt.backend().is_emulator() {
        let leaks = vmmkit_emulator::leaks::report();
        assert!(
            leaks.is_empty(),
            "left unreleased: {}",
            leaks.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
        );
    }
}

/// Whether failures over `rt` name the rule: the in-process emulator's
/// dialects do, and the ACL drop-in through `aclGetRecentErrMsg`; HIP's and
/// CUDA's C APIs have no per-thread message, so over the HIP drop-in
/// (whose emulator is a copy of its own) only the code is checked.
pub fn names_rules(rt: &Runtime) -> bool {
    rt.backend().is_emulator() || rt.vendor() == Vendor::Acl
}

/// Asserts the code of a failure, and its rule where the backend names rules.
#[track_caller]
pub fn assert_fails<T: std::fmt::Debug>(
    rt: &Runtime,
    r: Result<T, vmmkit_runtime::Error>,
    code: impl Into<vmmkit_runtime::Code>,
    rule: &str,
) {
    let e = r.expect_err("the call must fail");
    assert_eq!(e.code, code.into(), "{e}");
    if names_rules(rt) {
        assert_eq!(e.rule_id(), Some(rule), "{e}");
    }
    println!("as expected: {e}");
}

/// One test body per backend, as wgpu runs its tests: a module `$name`
/// with a test per emulated dialect (`$name::emulator::acl`, …) and per
/// drop-in library (`$name::shim::acl`, …), each calling `$body(which)`.
/// The vendors come from the runtime's list (`vmmkit_runtime::vendors!`).
#[macro_export]
macro_rules! per_backend {
    ($(#[$m:meta])* $name:ident => $body:expr) => {
        vmmkit_runtime::vendors!($crate::per_backend_cases, $(#[$m])* $name => $body);
    };
}

/// The expansion of [`per_backend!`] over the list of vendors.
#[doc(hidden)]
#[macro_export]
macro_rules! per_backend_cases {
    ([$(#[$m:meta])* $name:ident => $body:expr]
        $($v:ident $lower:ident $soname:literal:
            $emu:ident [$($emu_name:literal),+], $lib:ident $lib_name:literal $(, drop_in $pkg:literal)?;)*) => {
        $(#[$m])*
        mod $name {
            use super::*;
            use $crate::common::Which;

            /// Over the in-process emulator's dialects.
            mod emulator {
                use super::*;
                $(
                    #[test]
                    fn $lower() {
                        ($body)($crate::common::Which::Emulator(vmmkit_runtime::Vendor::$v));
                    }
                )*
            }

            /// Over the workspace's drop-in libraries, loaded as a real one would be.
            mod shim {
                use super::*;
                $($(
                    #[doc = concat!("Over `", $soname, "` (", $pkg, ").")]
                    #[test]
                    fn $lower() {
                        ($body)($crate::common::Which::Shim(vmmkit_runtime::Vendor::$v));
                    }
                )?)*
            }
        }
    };
}
