//! Shared by the shim's integration tests: where the built `libascendcl.so`
//! is, compiling C against `include/`, and running C programs as real
//! processes with a fresh emulator root, a deadline and captured output.
#![allow(dead_code)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new().prefix("vmmkit-shim-").tempdir().expect("temporary directory");
        for sub in ["lib", "bin", "file"] {
            std::fs::create_dir(dir.path().join(sub)).expect("scratch subdirectory");
        }
        for name in ["libascendcl.so", "libacl_rt.so"] {
            std::os::unix::fs::symlink(library(), dir.path().join("lib").join(name)).expect("library symlink");
        }
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The emulator root every program of this test shares.
    pub fn root(&self) -> PathBuf {
        self.path().join("root")
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
        cmd.current_dir(self.path())
            .env("LD_LIBRARY_PATH", self.lib_dir())
            .env("VMMKIT_ROOT", self.root())
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
        let left: Vec<_> = match std::fs::read_dir(&shared) {
            Ok(rd) => rd.map(|e| e.expect("entry of shared/").file_name()).collect(),
            Err(e) => panic!("{}: {e}", shared.display()),
        };
        assert!(left.is_empty(), "entries left in {}: {left:?}", shared.display());
    }
}

/// The C compiler: `$CC`, else `cc`.
pub fn c_compiler() -> String {
    std::env::var("CC").unwrap_or_else(|_| "cc".into())
}

/// Runs a compiler command; fails the test with its output when it fails.
pub fn run_compiler(cmd: &mut Command, what: &Path) {
    let out = match cmd.output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run {:?} (a C compiler is required): {e}", cmd.get_program()),
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

/// A started process whose stdout and stderr go to one log file.
#[derive(Debug)]
pub struct Process {
    name: String,
    child: Child,
    log: PathBuf,
    status: Option<ExitStatus>,
}

impl Process {
    /// Starts `cmd`, logging to `<scratch>/<name>.log`.
    pub fn start(name: &str, scratch: &Scratch, mut cmd: Command) -> Self {
        let log = scratch.path().join(format!("{name}.log"));
        let out = File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        let child = cmd.stdout(out).stderr(err).spawn().unwrap_or_else(|e| panic!("start {name}: {e}"));
        Self { name: name.into(), child, log, status: None }
    }

    /// What it printed so far.
    pub fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits for every process until `DEADLINE`; kills those still running then.
/// Fails the test, with every output, unless all exited with status 0.
/// Returns their outputs in order.
pub fn finish(procs: &mut [Process]) -> Vec<String> {
    let start = Instant::now();
    let mut timed_out = false;
    loop {
        for p in procs.iter_mut().filter(|p| p.status.is_none()) {
            p.status = p.child.try_wait().expect("wait for a child");
        }
        if procs.iter().all(|p| p.status.is_some()) {
            break;
        }
        if start.elapsed() > DEADLINE {
            timed_out = true;
            for p in procs.iter_mut().filter(|p| p.status.is_none()) {
                let _ = p.child.kill();
                p.status = p.child.wait().ok();
            }
            break;
        }
        // Polling child exit (std has no wait-with-timeout); 5 ms is the
        // latency of noticing an exit, not a synchronisation.
        std::thread::sleep(Duration::from_millis(5));
    }
    let report: String = procs.iter().map(|p| format!("--- {} ({:?}):\n{}", p.name, p.status, p.output())).collect();
    assert!(!timed_out, "killed after {} s:\n{report}", DEADLINE.as_secs());
    for p in procs.iter() {
        assert!(p.status.is_some_and(|s| s.success()), "{} failed:\n{report}", p.name);
    }
    procs.iter().map(Process::output).collect()
}

/// The value after the colon on the first line containing `label` (the
/// vendor launcher's check), trimmed.
pub fn value_after<'a>(output: &'a str, label: &str) -> Option<&'a str> {
    let line = output.lines().find(|l| l.contains(label))?;
    let (_, rest) = line.split_once(label)?;
    Some(rest.trim_start_matches(':').trim())
}

/// Runs a binutils tool (`nm`, `readelf`) and returns its stdout; fails the
/// test with a clear message when the tool is missing or fails.
pub fn binutils(tool: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = match Command::new(tool).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run `{tool}` ({e}); it comes with binutils (Debian: apt-get install binutils)"),
    };
    assert!(out.status.success(), "`{tool}` failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("binutils output is UTF-8")
}
