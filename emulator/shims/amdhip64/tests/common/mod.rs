//! Shared by the shim's integration tests: the linked `libamdhip64.so`,
//! compiling programs, running them as real processes with a fresh emulator
//! root, a deadline and captured output, and binutils.
#![allow(dead_code)]

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

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

/// The directory holding `libamdhip64.so` and `libamdhip64.so.6`, linked by
/// `link.sh` (the project's HIP build step) from the staticlib that Cargo
/// built for this test run, into `<target>/<profile>/`. If the staticlib is
/// missing (a test binary run by hand after a clean), it is built with cargo
/// into the same target directory and profile.
pub fn library_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let profile = profile_dir();
        let deps = profile.join("deps");
        let find = || [&profile, &deps].into_iter().map(|d| d.join("libvmmkit_amdhip64.a")).find(|a| a.is_file());
        let staticlib = match find() {
            Some(a) => a,
            None => {
                let target = profile.parent().expect("<target>");
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let mut cmd = Command::new(cargo);
                cmd.args(["build", "-p", "vmmkit-shim-amdhip64"])
                    .current_dir(crate_dir())
                    .env("CARGO_TARGET_DIR", target);
                if profile.file_name().is_some_and(|n| n == "release") {
                    cmd.arg("--release");
                }
                let st = cmd.status().expect("run cargo build for libvmmkit_amdhip64.a");
                assert!(st.success(), "cargo build -p vmmkit-shim-amdhip64 failed: {st}");
                find().expect("libvmmkit_amdhip64.a after cargo build")
            }
        };
        let out =
            Command::new(crate_dir().join("link.sh")).arg(&staticlib).arg(&profile).output().expect("run link.sh");
        assert!(
            out.status.success(),
            "link.sh failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        profile
    })
}

/// `libamdhip64.so` as linked for this test run.
pub fn library() -> PathBuf {
    library_dir().join("libamdhip64.so")
}

/// Runs a binutils tool (`readelf`, `objdump`, `nm`) and returns its stdout;
/// fails the test with a clear message when the tool is missing or fails.
pub fn binutils(tool: &str, args: &[&std::ffi::OsStr]) -> String {
    let out = match Command::new(tool).args(args).output() {
        Ok(o) => o,
        Err(e) => panic!("cannot run `{tool}` ({e}); it comes with binutils (Debian: apt-get install binutils)"),
    };
    assert!(out.status.success(), "`{tool}` failed ({}): {}", out.status, String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("binutils output is UTF-8")
}

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

/// A scratch directory for one test (removed on drop): programs in `bin/`,
/// the emulator root `root/`.
#[derive(Debug)]
pub struct Scratch {
    dir: tempfile::TempDir,
}

impl Scratch {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new().prefix("vmmkit-hip-").tempdir().expect("temporary directory");
        std::fs::create_dir(dir.path().join("bin")).expect("bin/");
        Self { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The emulator root every program of this test shares.
    pub fn root(&self) -> PathBuf {
        self.path().join("root")
    }

    /// A command for `program` finding libamdhip64 through `LD_LIBRARY_PATH`
    /// (`lib_dir`), on this test's emulator root with two devices.
    pub fn command(&self, program: &Path, lib_dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(self.path())
            .env("LD_LIBRARY_PATH", lib_dir)
            .env("VMMKIT_ROOT", self.root())
            .env("VMMKIT_DEVICES", "2")
            .env("VMMKIT_DEVICE_MEMORY", "1G")
            .env_remove("VMMKIT_MUTATE")
            .env_remove("VMMKIT_FAULTS")
            .stdin(Stdio::null());
        cmd
    }

    /// The entries left in the root's `shared/` (none once every process let go).
    pub fn shared_left(&self) -> Vec<String> {
        std::fs::read_dir(self.root().join("shared"))
            .map(|rd| rd.flatten().map(|d| d.file_name().to_string_lossy().into_owned()).collect())
            .unwrap_or_default()
    }
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
