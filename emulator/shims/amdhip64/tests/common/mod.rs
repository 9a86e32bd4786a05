//! Shared by the shim's integration tests: the built `libamdhip64.so`,
//! compiling programs, running them as real processes with a fresh emulator
//! root, a deadline and captured output, and binutils.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

pub use vmmkit_testkit::Process;
use vmmkit_testkit::TestRoot;
#[allow(unused_imports)] // each test binary uses part of it
pub use vmmkit_testkit::tools::{binutils, run_compiler};

/// A process pair gets this long in all before it is killed.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The shim crate's directory.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    crate_dir().join("../../..").canonicalize().expect("repository root")
}

/// The profile directory of this test run (`<target>/<profile>`).
pub fn profile_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("path of the test executable");
    let deps = exe.parent().expect("the test executable is in <target>/<profile>/deps");
    deps.parent().expect("<target>/<profile>").to_path_buf()
}

/// The directory holding the `libamdhip64.so` that this test run built, and
/// the link `libamdhip64.so.6` that build.rs puts beside it.
///
/// The package's library is a dependency of its integration tests (through
/// its rlib crate type), so Cargo rebuilds it, cdylib included, before they
/// run, into the `deps/` directory that holds this test executable
/// (`<target>/<profile>/deps/`). That copy is the fresh one: Cargo uplifts it
/// to `<target>/<profile>/` only for `cargo build`.
pub fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile = profile_dir();
        let dirs = [profile.join("deps"), profile];
        let found = dirs.iter().find(|d| d.join("libamdhip64.so").is_file());
        found.unwrap_or_else(|| panic!("no libamdhip64.so in {dirs:?} (cargo build -p vmmkit-shim-amdhip64)")).clone()
    })
}

/// `libamdhip64.so` as Cargo built it for this test run.
pub fn library() -> PathBuf {
    library_dir().join("libamdhip64.so")
}

/// A scratch directory for one test (removed on drop): programs in `bin/`,
/// the emulator root `root/`.
#[derive(Debug)]
pub struct Scratch {
    root: TestRoot,
}

impl Scratch {
    pub fn new() -> Self {
        let root = TestRoot::new("vmmkit-hip-").expect("temporary directory");
        std::fs::create_dir(root.scratch().join("bin")).expect("bin/");
        Self { root }
    }

    pub fn path(&self) -> &Path {
        self.root.scratch()
    }

    /// The emulator root every program of this test shares.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// A command for `program` finding libamdhip64 through `LD_LIBRARY_PATH`
    /// (`lib_dir`), on this test's emulator root with two devices.
    pub fn command(&self, program: &Path, lib_dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        self.root.apply(&mut cmd);
        cmd.current_dir(self.path())
            .env("LD_LIBRARY_PATH", lib_dir)
            .env("VMMKIT_DEVICES", "2")
            .env("VMMKIT_DEVICE_MEMORY", "1G")
            .env_remove("VMMKIT_MUTATE")
            .env_remove("VMMKIT_FAULTS")
            .stdin(Stdio::null());
        cmd
    }

    /// The entries left in the root's `shared/` (none once every process let go).
    pub fn shared_left(&self) -> Vec<String> {
        self.root.leftovers()
    }

    /// Collects what processes that ended holding shared objects left
    /// (`gc`), until nothing is left or 10 s pass: a process's children
    /// may still be exiting when it has ended. Returns what is left.
    pub fn collect(&self) -> Vec<String> {
        let registry = vmmkit_emulator::registry::Registry::open_existing(self.root()).expect("open the root");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            registry.gc().expect("gc");
            let left = self.shared_left();
            if left.is_empty() || std::time::Instant::now() >= deadline {
                return left;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Starts `cmd` as `name`, its output logged.
    pub fn start(&self, name: &str, mut cmd: Command) -> Process {
        Process::spawn_logged(name, &mut cmd).unwrap_or_else(|e| panic!("start {name}: {e}"))
    }
}

/// Waits for every process until [`DEADLINE`]; kills those still running
/// then. Fails the test, with every output, unless all exited with status 0.
/// Returns their outputs in order.
pub fn finish(procs: &mut [Process]) -> Vec<String> {
    vmmkit_testkit::process::finish(procs, DEADLINE)
}
