//! Shared by the shim's integration tests: where the built `libascendcl.so`
//! is, compiling C against `include/`, and running C programs as real
//! processes with a fresh emulator root, a deadline and captured output.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

pub use vmmkit_testkit::Process;
use vmmkit_testkit::TestRoot;
#[allow(unused_imports)] // each test binary uses part of it
pub use vmmkit_testkit::tools::{binutils, c_compiler, run_compiler};

/// The C programs wait at most 10 s for each file; a process pair gets this
/// long in all before it is killed.
pub const DEADLINE: Duration = Duration::from_secs(40);

/// The shim crate's directory.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `include/`, holding `acl/acl.h`.
pub fn include_dir() -> PathBuf {
    crate_dir().join("include")
}

/// `tests/c/`, the C sources.
pub fn c_dir() -> PathBuf {
    crate_dir().join("tests/c")
}

/// The `libascendcl.so` that this test run built.
///
/// The package's library is a dependency of its integration tests (through
/// its rlib crate type), so Cargo rebuilds it, cdylib included, before they
/// run, into the `deps/` directory that holds this test executable
/// (`<target>/<profile>/deps/`), whatever `CARGO_TARGET_DIR` is. That copy is
/// the fresh one: Cargo uplifts it to `<target>/<profile>/` only for
/// `cargo build`. If neither exists (a test binary run by hand after a
/// clean), it is built with cargo into the same target directory and profile.
pub fn library() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let exe = std::env::current_exe().expect("path of the test executable");
        let deps = exe.parent().expect("the test executable is in <target>/<profile>/deps");
        let profile = deps.parent().expect("<target>/<profile>");
        for dir in [deps, profile] {
            let lib = dir.join("libascendcl.so");
            if lib.is_file() {
                return lib;
            }
        }
        let target = profile.parent().expect("<target>");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "-p", "vmmkit-shim-ascendcl"]).current_dir(crate_dir()).env("CARGO_TARGET_DIR", target);
        if profile.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let st = cmd.status().expect("run cargo build for libascendcl.so");
        assert!(st.success(), "cargo build -p vmmkit-shim-ascendcl failed: {st}");
        let lib = profile.join("libascendcl.so");
        assert!(lib.is_file(), "no {} after cargo build", lib.display());
        lib
    })
}

/// A scratch directory for one test (removed on drop, also on failure):
/// `lib/` with the library as `libascendcl.so` and `libacl_rt.so`
/// (symlinks to [`library`], the arrangement the README describes),
/// compiled programs in `bin/`, the samples' exchange directory `file/`, and
/// the emulator root `root/` (created by the emulator, 0700).
#[derive(Debug)]
pub struct Scratch {
    root: TestRoot,
}

impl Scratch {
    pub fn new() -> Self {
        let root = TestRoot::new("vmmkit-shim-").expect("temporary directory");
        for sub in ["lib", "bin", "file"] {
            std::fs::create_dir(root.scratch().join(sub)).expect("scratch subdirectory");
        }
        for name in ["libascendcl.so", "libacl_rt.so"] {
            std::os::unix::fs::symlink(library(), root.scratch().join("lib").join(name)).expect("library symlink");
        }
        Self { root }
    }

    pub fn path(&self) -> &Path {
        self.root.scratch()
    }

    /// The emulator root every program of this test shares.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// `lib/`, where programs are linked from and their library is found.
    pub fn lib_dir(&self) -> PathBuf {
        self.path().join("lib")
    }

    /// Compiles `tests/c/<name>.c` (C11, warnings as errors) against
    /// `include/`, linked with `-L<lib/> -l<lib>`; returns the executable.
    pub fn compile(&self, name: &str, lib: &str) -> PathBuf {
        let out = self.path().join("bin").join(name);
        let src = c_dir().join(format!("{name}.c"));
        let mut cmd = Command::new(c_compiler());
        cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(include_dir())
            .arg("-o")
            .arg(&out)
            .arg(&src)
            .arg("-L")
            .arg(self.lib_dir())
            .arg(format!("-l{lib}"));
        run_compiler(&mut cmd, &src);
        out
    }

    /// A command for `program` run as the CANN samples are: in this scratch
    /// directory (so `file/` is its exchange directory), finding the library
    /// through `LD_LIBRARY_PATH`, on this test's emulator root.
    pub fn command(&self, program: &Path) -> Command {
        let mut cmd = Command::new(program);
        self.root.apply(&mut cmd);
        cmd.current_dir(self.path())
            .env("LD_LIBRARY_PATH", self.lib_dir())
            .env("VMMKIT_DEVICES", "2")
            .env("VMMKIT_DEVICE_MEMORY", "1G")
            .env_remove("VMMKIT_MUTATE")
            .stdin(Stdio::null());
        cmd
    }

    /// Asserts that the emulator root holds no exported entry any more: every
    /// process released what it shared, so nothing outlives the run.
    pub fn assert_nothing_shared(&self) {
        let shared = self.root().join("shared");
        assert!(shared.is_dir(), "no {}: the programs never used the root", shared.display());
        if let Err(e) = self.root.check_clean() {
            panic!("{e}");
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

/// The value after the colon on the first line containing `label` (the
/// vendor launcher's check), trimmed.
pub fn value_after<'a>(output: &'a str, label: &str) -> Option<&'a str> {
    let line = output.lines().find(|l| l.contains(label))?;
    let (_, rest) = line.split_once(label)?;
    Some(rest.trim_start_matches(':').trim())
}
