//! What `vmmkit run` adds to a program: a call-heavy C program
//! (`conformance/tests/c/get_device_loop.c`: `aclInit`, `aclrtSetDevice`,
//! then 10^6 `aclrtGetDevice`, built against our ACL headers and the
//! drop-in `libascendcl.so`) run to its end, one process per iteration:
//!
//! - `floor`: the program alone, on the drop-in library
//!   (`LD_LIBRARY_PATH`), on the bench root;
//! - `vmmkit_run`: `vmmkit run -- PROGRAM`: a private machine made and
//!   removed, the program's journal written and read back into the report;
//! - `vmmkit_run_trace`: `vmmkit run --trace FILE -- PROGRAM`: the same,
//!   and every call of the journal written out as a trace event.
//!
//! Beside the times, the run record notes `vmmkit run`'s peak RSS (its
//! `VmHWM` at its exit) at 10^4 and at 10^6 calls, with and without
//! `--trace`: it must not grow with the number of calls.
//!
//! It needs a C compiler (`CC`, else `cc`), the drop-in (a dev-dependency:
//! built beside the bench) and the `vmmkit` executable beside the bench's
//! profile directory (`cargo build --release --bin vmmkit` before `cargo
//! bench`; `cargo test --workspace` builds it) or named by `VMMKIT_EXE`;
//! without them the group has no entries, and a note says why.

use std::cell::OnceCell;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use super::{Entry, Env};
use crate::error::{BenchError, Result};

/// The group.
pub const GROUP: &str = "run_overhead";
/// The variable that names the `vmmkit` executable.
pub const EXE_ENV: &str = "VMMKIT_EXE";

/// How the program is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    Direct,
    Run,
    RunTrace,
}

/// The program, built once, and where to run it.
struct Setup {
    dir: tempfile::TempDir,
    program: PathBuf,
    vmmkit: PathBuf,
    lib_dir: PathBuf,
    root: PathBuf,
    /// Where `vmmkit run` makes its machines (`--dir`).
    machines: PathBuf,
}

/// The entries, or none (with a note) where something they need is missing.
///
/// # Errors
/// None; the program is built when the first entry runs.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let parts = match find() {
        Ok(p) => Rc::new(p),
        Err(why) => {
            env.note(format!("{GROUP}: skipped: {why}"));
            return Ok(Vec::new());
        }
    };
    let calls = env.plan.run_overhead_calls();
    let setup: Rc<OnceCell<Setup>> = Rc::new(OnceCell::new());
    let mut out = Vec::new();
    for (function, how) in [("floor", How::Direct), ("vmmkit_run", How::Run), ("vmmkit_run_trace", How::RunTrace)] {
        let (setup, parts) = (setup.clone(), parts.clone());
        out.push(
            Entry::new(GROUP, function, calls.to_string(), move |iters| {
                if setup.get().is_none() {
                    let built = build(env, (*parts).clone())?;
                    note_peak_rss(env, &built, calls)?;
                    let _ = setup.set(built);
                }
                let s = setup.get().ok_or_else(|| BenchError::Check("no set-up".into()))?;
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += run(s, how, calls)?;
                }
                Ok(total)
            })
            .slow(true),
        );
    }
    Ok(out)
}

/// The parts found on this machine: the `vmmkit` executable and the drop-in's directory.
type Parts = (PathBuf, PathBuf);

/// Finds `vmmkit` and `libascendcl.so`, or says what is missing.
fn find() -> std::result::Result<Parts, String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    // target/<profile>/deps/<bench> or target/<profile>/<bin>.
    let deps = exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let profile = if deps.ends_with("deps") { deps.parent().map(Path::to_path_buf).unwrap_or_default() } else { deps };
    let vmmkit = match std::env::var_os(EXE_ENV) {
        Some(p) => PathBuf::from(p),
        None => profile.join("vmmkit"),
    };
    if !vmmkit.is_file() {
        return Err(format!(
            "no vmmkit executable at {} (build it with `cargo build --bin vmmkit` of this profile, or name it in {EXE_ENV})",
            vmmkit.display()
        ));
    }
    // `deps/` first: there the bench's build of its dev-dependency, the
    // drop-in, is fresh; the profile's own may be an older build.
    let lib_dir = [profile.join("deps"), profile.clone()]
        .into_iter()
        .find(|d| d.join("libascendcl.so").is_file())
        .ok_or_else(|| format!("no libascendcl.so in {} or its deps/", profile.display()))?;
    Ok((vmmkit, lib_dir))
}

/// Builds the program in a scratch directory.
fn build(env: &Env, (vmmkit, lib_dir): Parts) -> Result<Setup> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new(".")).to_path_buf();
    let src = repo.join("conformance/tests/c/get_device_loop.c");
    let shim = repo.join("emulator/shims/ascendcl");
    let dir = tempfile::Builder::new()
        .prefix("vmmkit-run-overhead-")
        .tempdir()
        .map_err(|e| BenchError::io("making a scratch directory", e))?;
    // The machines go on the file system of the floor's root (tmpfs, as
    // `vmmkit run`'s default `/dev/shm`), not in the scratch directory (the
    // temporary directory may be a disk, where each directory removed at
    // the end of a run waits for its journal).
    let machines = env.floor_dir().join("machines");
    std::fs::create_dir(&machines).map_err(|e| BenchError::io("mkdir machines", e))?;
    let program = dir.path().join("get_device_loop");
    let out = Command::new(vmmkit_testkit::tools::c_compiler())
        .args(["-std=c11", "-O2", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(shim.join("include"))
        .arg("-I")
        .arg(shim.join("tests/c"))
        .arg("-o")
        .arg(&program)
        .arg(&src)
        .arg("-L")
        .arg(&lib_dir)
        .arg("-lascendcl")
        .output()
        .map_err(|e| BenchError::io("running the C compiler", e))?;
    if !out.status.success() {
        return Err(BenchError::Check(format!(
            "compiling {}: {}{}",
            src.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(Setup { dir, program, vmmkit, lib_dir, root: env.root().to_path_buf(), machines })
}

/// The command of one run of the program as `how` says.
fn command(s: &Setup, how: How, calls: usize) -> Command {
    let n = calls.to_string();
    match how {
        How::Direct => {
            let mut c = Command::new(&s.program);
            c.arg(&n).env("LD_LIBRARY_PATH", &s.lib_dir).env(vmmkit_testkit::root::ROOT_ENV, &s.root);
            c
        }
        How::Run | How::RunTrace => {
            // The floor's drop-in, not whatever lies beside `vmmkit` (an
            // older build of the library may).
            let mut c = Command::new(&s.vmmkit);
            c.arg("run").arg("--dir").arg(&s.machines).arg("--drop-ins").arg(&s.lib_dir);
            if how == How::RunTrace {
                c.arg("--trace").arg(s.dir.path().join("trace.json"));
            }
            c.arg("--").arg(&s.program).arg(&n);
            c.env_remove(vmmkit_testkit::root::ROOT_ENV).env_remove("LD_LIBRARY_PATH");
            c
        }
    }
}

/// One run of the program as `how` says, `calls` calls: its wall time.
fn run(s: &Setup, how: How, calls: usize) -> Result<Duration> {
    let mut cmd = command(s, how, calls);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let t = Instant::now();
    let child = cmd.spawn().map_err(|e| BenchError::io(format!("starting {how:?}"), e))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: waits for our own child, writing into a local.
    let got = unsafe { libc::waitpid(pid, &mut status, 0) };
    let took = t.elapsed();
    if got != pid {
        return Err(BenchError::io("wait4", std::io::Error::last_os_error()));
    }
    if !libc::WIFEXITED(status) || libc::WEXITSTATUS(status) != 0 {
        let mut err = String::new();
        if let Some(mut e) = child.stderr {
            let _ = std::io::Read::read_to_string(&mut e, &mut err);
        }
        return Err(BenchError::Check(format!("{how:?} ended with wait status {status:#x}: {err}")));
    }
    Ok(took)
}

/// Notes `vmmkit run`'s peak RSS at `calls` / 100 and at `calls` calls,
/// with and without `--trace`, and the program's when run alone.
fn note_peak_rss(env: &Env, s: &Setup, calls: usize) -> Result<()> {
    let small = (calls / 100).max(1);
    let mut parts = Vec::new();
    for (how, what) in [(How::Run, "vmmkit run"), (How::RunTrace, "vmmkit run --trace")] {
        let a = peak_rss(s, how, small)?;
        let b = peak_rss(s, how, calls)?;
        parts.push(format!("{what}: {a} KiB at {small} calls, {b} KiB at {calls}"));
    }
    let direct = peak_rss(s, How::Direct, calls)?;
    env.note(format!(
        "{GROUP}: peak RSS of the process started (VmHWM at its exit): {}; the program alone: {direct} KiB",
        parts.join("; ")
    ));
    Ok(())
}

/// The peak RSS (KiB) of the process started for one run: its `VmHWM`,
/// read while `ptrace` holds it at its exit (`PTRACE_O_TRACEEXIT`). Not
/// `ru_maxrss`: a child started by `posix_spawn` or `fork` counts the
/// parent's memory as its own until its `exec`, which hides a small peak.
fn peak_rss(s: &Setup, how: How, calls: usize) -> Result<u64> {
    let mut cmd = command(s, how, calls);
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let child = cmd.spawn().map_err(|e| BenchError::io(format!("starting {how:?}"), e))?;
    let pid = child.id() as libc::pid_t;
    let opts = libc::PTRACE_O_TRACEEXIT as usize;
    // SAFETY: seizes our own child; no memory is passed.
    let seized = unsafe { libc::ptrace(libc::PTRACE_SEIZE, pid, 0usize, opts) } == 0;
    let mut hwm = None;
    loop {
        let mut st = 0;
        // SAFETY: waits for our own child.
        if unsafe { libc::waitpid(pid, &mut st, libc::__WALL) } != pid {
            return Err(BenchError::io("waitpid", std::io::Error::last_os_error()));
        }
        if libc::WIFEXITED(st) || libc::WIFSIGNALED(st) {
            if !libc::WIFEXITED(st) || libc::WEXITSTATUS(st) != 0 {
                return Err(BenchError::Check(format!("{how:?} ended with wait status {st:#x}")));
            }
            break;
        }
        let event = st >> 16;
        let sig = if event == libc::PTRACE_EVENT_EXIT {
            hwm = read_hwm(pid);
            0
        } else if event != 0 {
            0 // a group stop (PTRACE_EVENT_STOP): resumed
        } else {
            libc::WSTOPSIG(st) // a signal for it: delivered
        };
        // SAFETY: resumes our stopped tracee.
        unsafe { libc::ptrace(libc::PTRACE_CONT, pid, 0usize, sig as usize) };
    }
    match (seized, hwm) {
        (true, Some(kib)) => Ok(kib),
        _ => Err(BenchError::Check(format!("{how:?}: no VmHWM read at its exit (ptrace: {seized})"))),
    }
}

/// `VmHWM` of `pid` in KiB.
fn read_hwm(pid: libc::pid_t) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
