//! `vmmkit run`, as a user runs it: C programs of ours built against our
//! ACL headers (the CANN sample-7 pair, a deliberately leaky pair), and the
//! README's HIP IPC example built against Debian's HIP headers, each run as
//! real processes on a private machine; the report, the JSON report, the
//! trace and the exit status are checked.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;
use vmmkit_testkit::Exit;
use vmmkit_testkit::tools::{c_compiler, run_compiler};

const DEADLINE: Duration = Duration::from_secs(60);

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("repository root").to_path_buf()
}

/// The directory that has `lib` among this build's outputs: the profile
/// directory, or its `deps/` (a drop-in built as a dependency of this crate).
fn lib_dir(lib: &str) -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit"));
    let profile = exe.parent().expect("profile directory").to_path_buf();
    [profile.clone(), profile.join("deps")]
        .into_iter()
        .find(|d| d.join(lib).is_file())
        .unwrap_or_else(|| panic!("{lib} was not built beside {} (it is a dev-dependency)", exe.display()))
}

/// A scratch directory: the programs, their exchange files, the machines.
struct Scratch(tempfile::TempDir);

impl Scratch {
    fn new() -> Self {
        let s = Self(tempfile::tempdir().expect("scratch directory"));
        for d in ["file", "machines"] {
            std::fs::create_dir(s.path().join(d)).unwrap();
        }
        s
    }

    fn path(&self) -> &Path {
        self.0.path()
    }

    /// Builds `src` (a C file) against our ACL headers and libascendcl.so,
    /// with the CANN samples' `sample.h` on the include path.
    fn compile_acl(&self, src: &Path) -> PathBuf {
        let out = self.path().join(src.file_stem().unwrap());
        let shim = repo().join("emulator/shims/ascendcl");
        let mut cmd = Command::new(c_compiler());
        cmd.args(["-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
            .arg(shim.join("include"))
            .arg("-I")
            .arg(shim.join("tests/c"))
            .arg("-o")
            .arg(&out)
            .arg(src)
            .arg("-L")
            .arg(lib_dir("libascendcl.so"))
            .arg("-lascendcl");
        run_compiler(&mut cmd, src);
        out
    }

    /// `vmmkit run ARGS`, in this directory, its machine made in `machines/`.
    fn run(&self, args: &[&str]) -> (Exit, String) {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
        cmd.arg("run").arg("--dir").arg(self.path().join("machines")).args(args).current_dir(self.path());
        cmd.env_remove("VMMKIT_ROOT").env_remove("LD_LIBRARY_PATH");
        let (exit, out) = vmmkit_testkit::process::run(&mut cmd, DEADLINE).expect("vmmkit run ended in time");
        println!("{out}");
        let left: Vec<_> = std::fs::read_dir(self.path().join("machines")).unwrap().collect();
        assert!(left.is_empty(), "the private machine outlived the run: {left:?}");
        (exit, out)
    }

    fn json(&self, name: &str) -> Value {
        let text = std::fs::read_to_string(self.path().join(name)).expect("the file was written");
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name} is not JSON ({e}): {text}"))
    }
}

/// CANN sample 7 (trustlist on, the importer's pid exchanged through
/// `file/`), both processes started by one shell: both pass, nothing is
/// left, and the trace has a track per process and a flow from the export
/// to the import.
fn cann_sample7_pair_runs_clean_and_traces_the_share() {
    let s = Scratch::new();
    let c = repo().join("emulator/shims/ascendcl/tests/c");
    s.compile_acl(&c.join("sample7_a.c"));
    s.compile_acl(&c.join("sample7_b.c"));
    let (exit, out) = s.run(&[
        "--devices",
        "2",
        "--memory",
        "1G",
        "--trace",
        "trace.json",
        "--fail-on-leak",
        "--",
        "sh",
        "-c",
        "./sample7_a & ./sample7_b & wait",
    ]);
    assert_eq!(exit.code(), Some(0), "{out}");
    assert!(out.contains("Source data: 123") && out.contains("Destination data: 123"), "{out}");
    assert!(out.contains("2 process(es) used the emulator") && out.contains("nothing leaked"), "{out}");
    assert!(out.contains("released by every holder"), "{out}");

    let trace = s.json("trace.json");
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let procs: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "process_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(procs.len(), 2, "{procs:?}");
    assert!(procs.iter().any(|n| n.starts_with("sample7_a (")) && procs.iter().any(|n| n.starts_with("sample7_b (")));
    // The flow starts inside the exporter's export call and ends inside
    // the importer's import call (that is how Perfetto binds it).
    let inside = |e: &Value, call: &str| {
        let ts = e["ts"].as_f64().unwrap();
        events.iter().any(|x| {
            x["ph"] == "X"
                && x["name"] == call
                && x["pid"] == e["pid"]
                && x["tid"] == e["tid"]
                && (x["ts"].as_f64().unwrap()..=x["ts"].as_f64().unwrap() + x["dur"].as_f64().unwrap()).contains(&ts)
        })
    };
    let start = events.iter().find(|e| e["ph"] == "s").expect("a flow start");
    let end = events.iter().find(|e| e["ph"] == "f" && e["id"] == start["id"]).expect("its end");
    assert_ne!(start["pid"], end["pid"], "the flow crosses processes");
    assert!(inside(start, "aclrtMemExportToShareableHandle"), "{start}");
    assert!(inside(end, "aclrtMemImportFromShareableHandle"), "{end}");
    // Every call is there with its code; both processes called SetPid's peers.
    let calls = |name: &str| events.iter().filter(|e| e["ph"] == "X" && e["name"] == name).count();
    assert_eq!(calls("aclrtMemSetPidToShareableHandle"), 1);
    assert!(events.iter().filter(|e| e["ph"] == "X").all(|e| e["args"]["returned"].is_string()));
}

/// The leaky pair: each process's leftovers are reported with kind, size
/// and creating call, the share with who held it to the end, and
/// `--fail-on-leak` turns the program's 0 into 3.
fn leaky_pair_is_reported_and_fails_on_leak() {
    let s = Scratch::new();
    s.compile_acl(&repo().join("conformance/tests/c/leaky_pair.c"));
    let args = ["--devices", "2", "--memory", "1G", "--report", "report.json", "--fail-on-leak", "--", "./leaky_pair"];
    let (exit, out) = s.run(&args);
    assert_eq!(exit.code(), Some(3), "{out}");
    assert!(out.contains("something was left unreleased"), "{out}");
    let r = s.json("report.json");
    assert_eq!(r["status"], "exit status 0");
    assert_eq!(r["leaked"], true);
    let procs = r["processes"].as_array().unwrap();
    assert_eq!(procs.len(), 2, "{r}");
    let leaks_of = |p: &Value| -> Vec<(String, u64, String)> {
        let mut v: Vec<_> = p["leaks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["kind"].as_str().unwrap().into(),
                    l["bytes"].as_u64().unwrap(),
                    l["created_by"].as_str().unwrap().into(),
                )
            })
            .collect();
        v.sort();
        v
    };
    let (exporter, importer) =
        if procs[0]["argv"].as_array().unwrap().len() == 1 { (&procs[0], &procs[1]) } else { (&procs[1], &procs[0]) };
    assert!(exporter["exited"] == true && importer["exited"] == true);
    assert_eq!(
        leaks_of(exporter),
        [
            ("Export".into(), 4 << 20, "aclrtMallocPhysical".into()),
            ("Retain".into(), 2 << 20, "aclrtMallocPhysical".into())
        ]
    );
    assert_eq!(leaks_of(importer), [("Import".into(), 4 << 20, "aclrtMemImportFromShareableHandle".into())]);
    let shared = r["shared"].as_array().unwrap();
    assert_eq!(shared.len(), 1, "{r}");
    assert_eq!(shared[0]["exporter"]["pid"], exporter["pid"]);
    assert_eq!(shared[0]["exporter"]["held_at_end"], true);
    assert_eq!(shared[0]["importers"][0]["pid"], importer["pid"]);
    assert_eq!(shared[0]["importers"][0]["held_at_end"], true);
    assert_eq!(r["gc"]["bytes"], 6u64 << 20, "gc gives back what the two left");
    assert!(out.contains("Retain") && out.contains("from aclrtMemImportFromShareableHandle"), "{out}");

    // Without --fail-on-leak, the status is the program's own.
    let (exit, _) = s.run(&["--devices", "2", "--", "./leaky_pair"]);
    assert_eq!(exit.code(), Some(0));
}

/// The exit status is the program's own, a signal is 128 + N, a missing
/// program 127.
fn the_exit_status_is_the_programs() {
    let s = Scratch::new();
    assert_eq!(s.run(&["--", "sh", "-c", "exit 7"]).0.code(), Some(7));
    assert_eq!(s.run(&["--", "sh", "-c", "kill -9 $$"]).0.code(), Some(128 + 9));
    let (exit, out) = s.run(&["--", "./no-such-program"]);
    assert_eq!(exit.code(), Some(127), "{out}");
    assert!(out.contains("no-such-program"), "{out}");
}

/// The whole process tree is waited for: here the program exits at once,
/// leaving a background child that only then runs the leaky pair; its two
/// processes are in the report, and their leak fails the run.
fn orphans_of_the_program_are_waited_for() {
    let s = Scratch::new();
    s.compile_acl(&repo().join("conformance/tests/c/leaky_pair.c"));
    let (exit, out) =
        s.run(&["--devices", "2", "--fail-on-leak", "--", "sh", "-c", "(sleep 0.3; exec ./leaky_pair) & exit 0"]);
    assert!(out.contains("2 process(es) used the emulator"), "{out}");
    assert_eq!(exit.code(), Some(3), "{out}");
}

/// `--keep-root` keeps the machine, with the root and the journals, and says where.
fn keep_root_keeps_the_machine() {
    let s = Scratch::new();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
    cmd.arg("run").arg("--dir").arg(s.path()).args(["--keep-root", "--", "true"]);
    let (exit, out) = vmmkit_testkit::process::run(&mut cmd, DEADLINE).unwrap();
    assert!(exit.success(), "{out}");
    let kept: Vec<PathBuf> = std::fs::read_dir(s.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("vmmkit-run-"))
        .collect();
    assert_eq!(kept.len(), 1, "{out}");
    assert!(out.contains(&format!("kept {}", kept[0].display())), "{out}");
    for sub in ["root", "lib", "journal"] {
        assert!(kept[0].join(sub).is_dir(), "{sub}");
    }
    assert!(kept[0].join("lib/libacl_rt.so").exists());
}

/// The README's HIP IPC example, built against Debian's HIP headers, runs
/// as two processes on the drop-in found beside `vmmkit` under the soname
/// the program recorded.
fn hip_ipc_example_runs() {
    let headers = match vmmkit_testkit::hip::fetch(&repo(), "headers") {
        Ok(h) => h,
        Err(why) => vmmkit_testkit::hip::ignore(&why),
    };
    let s = Scratch::new();
    let src = repo().join("examples/hip/ipc_pair.cpp");
    let exe = s.path().join("ipc_pair");
    let mut cmd = Command::new(std::env::var("CXX").unwrap_or_else(|_| "g++".into()));
    cmd.args(["-std=c++17", "-D__HIP_PLATFORM_AMD__", "-I", &headers["HIP_INCLUDE"], "-o"])
        .arg(&exe)
        .arg(&src)
        .arg("-L")
        .arg(lib_dir("libamdhip64.so"))
        .arg("-lamdhip64");
    run_compiler(&mut cmd, &src);
    let (exit, out) = s.run(&["--fail-on-leak", "--", "./ipc_pair"]);
    assert_eq!(exit.code(), Some(0), "{out}");
    assert!(out.contains("2 process(es) used the emulator") && out.contains("nothing leaked"), "{out}");
    assert!(out.contains("hipIpcOpenMemHandle"), "the share is in the report:\n{out}");
}

/// On a terminal, a run longer than two seconds shows a progress line, and
/// clears it before the report. The terminal is `script(1)`'s pseudo-terminal;
/// ignored, saying so, where util-linux's `script` is absent.
fn progress_on_a_terminal() {
    let s = Scratch::new();
    let vmmkit =
        format!("{} run --dir {} -- sleep 3", env!("CARGO_BIN_EXE_vmmkit"), s.path().join("machines").display());
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &vmmkit, "/dev/null"]);
    let (exit, out) = match vmmkit_testkit::process::run(&mut cmd, DEADLINE) {
        Ok(r) => r,
        Err(e) => vmmkit_testkit::harness::skip(format!("cannot run script(1) (util-linux): {e}")),
    };
    assert!(exit.success(), "{out}");
    assert!(out.contains("\rvmmkit run: 2 s, 0 process(es) used the emulator so far"), "{out:?}");
    let cleared = out.rfind("\r\x1b[K").expect("the line is cleared");
    assert!(cleared < out.find("exit status 0").expect("the report"), "{out:?}");
}

/// `vmmkit run ARGS` started in `s`, in a process group of its own (so that
/// a program's `kill(0, …)` could not reach the test, whatever `vmmkit run`
/// does), its output logged.
fn start(s: &Scratch, args: &[&str]) -> vmmkit_testkit::process::Process {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
    cmd.arg("run").arg("--dir").arg(s.path().join("machines")).args(args).current_dir(s.path());
    cmd.env_remove("VMMKIT_ROOT").env_remove("LD_LIBRARY_PATH").process_group(0);
    vmmkit_testkit::process::Process::spawn_logged("vmmkit run", &mut cmd).expect("vmmkit run starts")
}

/// Waits (at most [`DEADLINE`]) until the program wrote each of `files`
/// in `s`, one pid a line; returns the pids.
fn pids_in(s: &Scratch, files: &[&str]) -> Vec<i32> {
    let until = std::time::Instant::now() + DEADLINE;
    let mut pids = Vec::new();
    for f in files {
        let path = s.path().join(f);
        loop {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            if text.ends_with('\n') {
                pids.extend(text.lines().map(|l| l.trim().parse::<i32>().expect("a pid")));
                break;
            }
            assert!(std::time::Instant::now() < until, "{f} was not written in {DEADLINE:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
    pids
}

/// Whether `pid` is alive (a zombie is not).
fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|s| s.rsplit_once(')').is_some_and(|(_, rest)| !rest.trim_start().starts_with(['Z', 'X'])))
}

fn signal(pid: u32, sig: &str) {
    let status = Command::new("kill").args(["-s", sig, &pid.to_string()]).status().expect("kill(1) runs");
    assert!(status.success(), "kill -s {sig} {pid}");
}

/// Ends a signal test: `vmmkit run` has exited within [`DEADLINE`], printed
/// its report, removed its machine, and left none of `pids` alive (any that
/// is, is killed here so that a failing test leaves nothing behind).
fn ended(s: &Scratch, p: &mut vmmkit_testkit::process::Process, pids: &[i32]) -> (Exit, String) {
    let exit = p.wait(DEADLINE).expect("vmmkit run ended in time");
    let out = p.output();
    println!("{out}");
    let left: Vec<i32> = pids.iter().copied().filter(|&pid| alive(pid)).collect();
    for &pid in &left {
        let _ = Command::new("kill").args(["-s", "KILL", &pid.to_string()]).status();
    }
    assert!(left.is_empty(), "processes of the tree outlived vmmkit run: {left:?}\n{out}");
    let machines: Vec<_> = std::fs::read_dir(s.path().join("machines")).unwrap().collect();
    assert!(machines.is_empty(), "the private machine outlived the run: {machines:?}\n{out}");
    assert!(out.contains("vmmkit run: sh -c") && out.contains("  gc: "), "the report was printed:\n{out}");
    (exit, out)
}

/// `timeout -s TERM` (a CI job's cancel): the program's tree gets the
/// SIGTERM, the report is printed with the exporter's memory collected, the
/// status is the program's (143), and nothing is left.
fn sigterm_from_timeout_is_passed_on_and_reported() {
    let s = Scratch::new();
    s.compile_acl(&repo().join("conformance/tests/c/held_export.c"));
    let mut cmd = Command::new("timeout");
    cmd.args(["--preserve-status", "-s", "TERM", "3"])
        .arg(env!("CARGO_BIN_EXE_vmmkit"))
        .arg("run")
        .arg("--dir")
        .arg(s.path().join("machines"))
        .args(["--", "sh", "-c", "echo $$ > sh.pid; ./held_export held.pid & wait"])
        .current_dir(s.path())
        .env_remove("VMMKIT_ROOT")
        .env_remove("LD_LIBRARY_PATH")
        .process_group(0);
    let mut p = vmmkit_testkit::process::Process::spawn_logged("timeout vmmkit run", &mut cmd).unwrap();
    let pids = pids_in(&s, &["sh.pid", "held.pid"]);
    let (exit, out) = ended(&s, &mut p, &pids);
    assert_eq!(exit.code(), Some(128 + 15), "{out}");
    assert!(out.contains("got SIGTERM: passed to the program"), "{out}");
    assert!(out.contains("killed by signal 15 (vmmkit run got SIGTERM"), "{out}");
    assert!(out.contains("held_export): ended without exit"), "{out}");
    assert!(out.contains("gc: freed 4 MiB"), "{out}");
}

/// `kill -HUP` of `vmmkit run` (its terminal hung up): passed on, 129.
fn sighup_is_passed_on_and_reported() {
    let s = Scratch::new();
    let mut p = start(&s, &["--", "sh", "-c", "sleep 60 & echo $$ $! | tr ' ' '\\n' > tree.pid; wait"]);
    let pids = pids_in(&s, &["tree.pid"]);
    signal(p.pid(), "HUP");
    let (exit, out) = ended(&s, &mut p, &pids);
    assert_eq!(exit.code(), Some(128 + 1), "{out}");
    assert!(out.contains("got SIGHUP"), "{out}");
}

/// A program that signals its own process group (`kill 0`) reaches its
/// tree, not `vmmkit run`, which reports how it ended.
fn the_programs_kill_0_does_not_reach_vmmkit() {
    let s = Scratch::new();
    let mut p = start(&s, &["--", "sh", "-c", "sleep 60 & echo $! > sleep.pid; kill 0; sleep 60"]);
    let pids = pids_in(&s, &["sleep.pid"]);
    let (exit, out) = ended(&s, &mut p, &pids);
    assert_eq!(exit.code(), Some(128 + 15), "{out}");
    assert!(out.contains("killed by signal 15;"), "{out}");
    assert!(!out.contains("got SIGTERM"), "vmmkit run itself got no signal:\n{out}");
}

/// A program that ignores SIGTERM is SIGKILLed, with all its tree, when the
/// grace period has passed (1 s here); a second signal does it at once.
fn a_tree_that_ignores_sigterm_is_killed_after_the_grace_period_or_a_second_signal() {
    let script = "trap '' TERM; sleep 60 & echo $$ $! | tr ' ' '\\n' > tree.pid; wait";
    let s = Scratch::new();
    let mut p = start(&s, &["--grace", "1", "--", "sh", "-c", script]);
    let pids = pids_in(&s, &["tree.pid"]);
    let signalled = std::time::Instant::now();
    signal(p.pid(), "TERM");
    let (exit, out) = ended(&s, &mut p, &pids);
    assert!(signalled.elapsed() < Duration::from_secs(30), "ended by the grace period, not by the sleep");
    assert_eq!(exit.code(), Some(128 + 9), "{out}");
    assert!(out.contains("did not end within 1 s of the signal: SIGKILLing it"), "{out}");
    assert!(out.contains("after the 1 s grace period, it SIGKILLed the"), "{out}");

    let s = Scratch::new();
    let mut p = start(&s, &["--", "sh", "-c", script]);
    let pids = pids_in(&s, &["tree.pid"]);
    let signalled = std::time::Instant::now();
    signal(p.pid(), "TERM");
    std::thread::sleep(Duration::from_millis(200));
    signal(p.pid(), "INT");
    let (exit, out) = ended(&s, &mut p, &pids);
    assert!(signalled.elapsed() < Duration::from_secs(9), "the second signal did not wait for the 10 s grace");
    assert_eq!(exit.code(), Some(128 + 9), "{out}");
    assert!(out.contains("got SIGINT again: SIGKILLing"), "{out}");
}

/// A grandchild that left the program's group and session (`setsid`) and
/// ignores SIGTERM is found and killed too: it gets the SIGTERM, then the
/// SIGKILL after the grace period. The status is the program's.
fn a_setsid_grandchild_is_killed_too() {
    let s = Scratch::new();
    let script = "setsid sh -c 'trap \"\" TERM; echo $$ > grandchild.pid; sleep 60; echo slept' & \
                  echo $$ > sh.pid; wait";
    let mut p = start(&s, &["--grace", "1", "--", "sh", "-c", script]);
    let pids = pids_in(&s, &["sh.pid", "grandchild.pid"]);
    signal(p.pid(), "TERM");
    let (exit, out) = ended(&s, &mut p, &pids);
    assert_eq!(exit.code(), Some(128 + 15), "the program's own status:\n{out}");
    assert!(out.contains("after the 1 s grace period"), "{out}");
    assert!(!out.lines().any(|l| l == "slept"), "the grandchild did not sleep to its end:\n{out}");
}

/// `--report` and `--trace` paths that cannot be written stop the run
/// before the program starts (status 2, saying which and why).
fn output_paths_are_checked_before_the_program_starts() {
    let s = Scratch::new();
    for flag in ["--report", "--trace"] {
        let (exit, out) = s.run(&[flag, "no-such-dir/out.json", "--", "sh", "-c", "touch ran; exit 7"]);
        assert_eq!(exit.code(), Some(2), "{out}");
        assert!(out.contains(&format!("{flag} no-such-dir/out.json: cannot be written")), "{out}");
        assert!(out.contains("nothing was run"), "{out}");
        assert!(!s.path().join("ran").exists(), "the program ran");
    }
    let (exit, out) = s.run(&["--report", "same.json", "--trace", "same.json", "--", "sh", "-c", "touch ran"]);
    assert_eq!(exit.code(), Some(2), "{out}");
    assert!(!s.path().join("ran").exists() && !s.path().join("same.json").exists(), "{out}");
}

/// Writing `--report` fails after the run (`/dev/full`): the trace is still
/// written, the report still printed, and the status stays the program's 7;
/// and the other way round.
fn a_failed_report_file_keeps_the_trace_and_the_status() {
    let s = Scratch::new();
    let (exit, out) = s.run(&["--report", "/dev/full", "--trace", "trace.json", "--", "sh", "-c", "exit 7"]);
    assert_eq!(exit.code(), Some(7), "{out}");
    assert!(out.contains("--report /dev/full: writing failed"), "{out}");
    assert!(out.contains("exit status 7"), "{out}");
    assert!(s.json("trace.json")["traceEvents"].is_array());
    // The same when the trace is what fails: the report file is written,
    // and the machine is removed all the same (`run` checks it).
    let (exit, out) = s.run(&["--report", "report.json", "--trace", "/dev/full", "--", "sh", "-c", "exit 7"]);
    assert_eq!(exit.code(), Some(7), "{out}");
    assert!(out.contains("--trace /dev/full: writing failed"), "{out}");
    assert_eq!(s.json("report.json")["status"], "exit status 7");
}

/// A program that removes `$VMMKIT_JOURNAL` is still reported on, with its
/// status, and the report says what is missing; one that renames it loses
/// nothing (the directory is read through a descriptor opened before).
fn a_removed_or_renamed_journal_directory_still_gets_a_report() {
    let s = Scratch::new();
    s.compile_acl(&repo().join("conformance/tests/c/leaky_pair.c"));
    let rm = "./leaky_pair && rm -rf \"$VMMKIT_JOURNAL\"; exit 7";
    let (exit, out) = s.run(&["--devices", "2", "--report", "report.json", "--", "sh", "-c", rm]);
    assert_eq!(exit.code(), Some(7), "{out}");
    assert!(out.contains("exit status 7; 0 process(es) used the emulator"), "{out}");
    assert!(out.contains("was removed during the run"), "{out}");
    assert!(out.contains("gc: freed 6 MiB"), "what the pair left is still collected:\n{out}");
    assert_eq!(s.json("report.json")["status"], "exit status 7");

    let mv = "./leaky_pair && mv \"$VMMKIT_JOURNAL\" \"$VMMKIT_JOURNAL.moved\"; exit 7";
    let (exit, out) = s.run(&["--devices", "2", "--", "sh", "-c", mv]);
    assert_eq!(exit.code(), Some(7), "{out}");
    assert!(out.contains("2 process(es) used the emulator") && out.contains("left 2 object(s)"), "{out}");
}

/// Writes the journal of one process making `calls` calls of
/// `aclrtGetDevice`, in the journal's format, to `path`.
fn write_call_journal(path: &Path, calls: u64) {
    use std::io::Write;
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    writeln!(w, r#"{{"ev":"start","pid":4242,"ppid":1,"ts":1000,"exe":"/bin/get_device_loop","argv":["loop"]}}"#)
        .unwrap();
    for i in 0..calls {
        writeln!(
            w,
            r#"{{"ev":"call","tid":4242,"ts":{},"dur":150,"name":"aclrtGetDevice","args":[["deviceId","0x7ffc1234abcd"]],"ret":"0"}}"#,
            2000 + i * 200
        )
        .unwrap();
    }
    writeln!(w, r#"{{"ev":"exit","ts":{},"leaks":[]}}"#, 3000 + calls * 200).unwrap();
    w.flush().unwrap();
}

/// Runs `vmmkit run --trace trace-CALLS.json` on a program that puts a
/// journal of `calls` calls in place (a copy of a file written here: a
/// million real calls would take minutes in a debug build); returns
/// vmmkit's peak RSS in KiB and its output. The figure is `ru_maxrss` of
/// `wait4`: the most of vmmkit, the processes it reaped, and this test
/// process as it was when it spawned vmmkit (the address space a child
/// shares until its `exec` counts), so this process spawns it before it
/// holds anything large.
fn trace_peak_rss(s: &Scratch, calls: u64) -> (u64, String) {
    let journal = s.path().join(format!("journal-{calls}.jsonl"));
    write_call_journal(&journal, calls);
    let copy = format!("cp {} \"$VMMKIT_JOURNAL/4242.jsonl\"", journal.display());
    let log = tempfile::tempfile().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
    cmd.arg("run").arg("--dir").arg(s.path().join("machines")).args([
        "--trace",
        &format!("trace-{calls}.json"),
        "--",
        "sh",
        "-c",
        &copy,
    ]);
    cmd.current_dir(s.path()).env_remove("VMMKIT_ROOT").env_remove("LD_LIBRARY_PATH");
    cmd.stdout(log.try_clone().unwrap()).stderr(log.try_clone().unwrap());
    let child = cmd.spawn().expect("vmmkit run starts");
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut status = 0;
        // SAFETY: all-zero is a valid rusage; wait4 fills it.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `pid` is our child, not waited for elsewhere (its `Child`
        // is never waited on); `status` and `usage` are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        let _ = tx.send((r, status, usage.ru_maxrss));
    });
    let Ok((r, status, maxrss)) = rx.recv_timeout(Duration::from_secs(600)) else {
        // SAFETY: SIGKILL to our own unreaped child.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        panic!("vmmkit run --trace of {calls} calls did not end in 600 s");
    };
    drop(child);
    let mut out = String::new();
    let mut log = log;
    use std::io::{Read, Seek};
    log.rewind().unwrap();
    log.read_to_string(&mut out).unwrap();
    println!("{calls} calls: peak RSS {maxrss} KiB\n{out}");
    assert_eq!(r, pid, "wait4");
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "status {status:#x}:\n{out}");
    let left: Vec<_> = std::fs::read_dir(s.path().join("machines")).unwrap().collect();
    assert!(left.is_empty(), "the private machine outlived the run: {left:?}");
    std::fs::remove_file(journal).unwrap();
    (maxrss as u64, out)
}

/// The trace and the report are made in bounded memory: a journal of 10^6
/// calls takes no more than one of 10^5 plus 16 MiB (the old trace held
/// ~3.8 KB a call: 380 MB and 3.8 GB), under 64 MiB in all; both traces are
/// valid JSON with every call in them.
fn trace_of_a_million_calls_in_bounded_memory() {
    let s = Scratch::new();
    let (small, out) = trace_peak_rss(&s, 100_000);
    assert!(out.contains("1 process(es) used the emulator") && out.contains("100003 event(s)"), "{out}");
    let (big, out) = trace_peak_rss(&s, 1_000_000);
    assert!(out.contains("1000003 event(s)"), "{out}");
    println!("peak RSS: 10^5 calls {small} KiB, 10^6 calls {big} KiB");
    assert!(big < small + 16 * 1024, "10^6 calls took {big} KiB, 10^5 took {small} KiB: it grows with the calls");
    assert!(big < 64 * 1024, "10^6 calls took {big} KiB");

    let file = std::fs::File::open(s.path().join("trace-1000000.json")).unwrap();
    let _: serde::de::IgnoredAny =
        serde_json::from_reader(std::io::BufReader::new(file)).expect("the trace of 10^6 calls is JSON");
    let trace = s.json("trace-100000.json");
    let events = trace["traceEvents"].as_array().unwrap();
    assert_eq!(events.iter().filter(|e| e["ph"] == "X").count(), 100_000);
    assert_eq!(events[0]["args"]["name"], "get_device_loop (4242)");
}

/// On a terminal (`script(1)`'s pseudo-terminal), the program is the
/// foreground job: it reads the terminal, and Ctrl-C reaches it (not
/// `vmmkit run`, which reports its status). Skipped, saying so, where
/// util-linux's `script` is absent.
fn on_a_terminal_the_program_reads_it_and_gets_ctrl_c() {
    use std::io::Write;
    let s = Scratch::new();
    let program = "trap 'echo got-INT; exit 5' INT; read x; echo \"read:$x\"; echo ready > ready; sleep 30 & wait";
    let vmmkit = format!(
        "{} run --dir {} -- sh -c \"{}\"",
        env!("CARGO_BIN_EXE_vmmkit"),
        s.path().join("machines").display(),
        program.replace('"', "\\\"").replace('$', "\\$")
    );
    let log = tempfile::tempfile().unwrap();
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &vmmkit, "/dev/null"]).current_dir(s.path()).stdin(std::process::Stdio::piped());
    cmd.stdout(log.try_clone().unwrap()).stderr(log.try_clone().unwrap());
    cmd.env_remove("VMMKIT_ROOT").env_remove("LD_LIBRARY_PATH").process_group(0);
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => vmmkit_testkit::harness::skip(format!("cannot run script(1) (util-linux): {e}")),
    };
    let output = || {
        use std::io::{Read, Seek};
        let mut text = String::new();
        let mut f = &log;
        let _ = f.rewind().and_then(|()| f.read_to_string(&mut text));
        text
    };
    let mut stdin = child.stdin.take().expect("script's stdin");
    stdin.write_all(b"hello\n").unwrap();
    let until = std::time::Instant::now() + DEADLINE;
    while !s.path().join("ready").exists() {
        if std::time::Instant::now() > until {
            let _ = vmmkit_testkit::wait::kill(&mut child);
            panic!("the program did not read its line:\n{}", output());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    stdin.write_all(b"\x03").unwrap();
    let exit = vmmkit_testkit::wait::exit_or_kill(&mut child, DEADLINE).expect("ended in time");
    let out = output();
    println!("{out}");
    assert!(out.contains("read:hello") && out.contains("got-INT"), "{out}");
    assert!(out.contains("exit status 5"), "{out}");
    assert!(!out.contains("vmmkit run: got SIGINT"), "the terminal's SIGINT went to the program only:\n{out}");
    assert_eq!(exit.code(), Some(5), "{out}");
    let machines: Vec<_> = std::fs::read_dir(s.path().join("machines")).unwrap().collect();
    assert!(machines.is_empty(), "{machines:?}");
}

/// The eleven-line program (stream 1 copies into x and records an event,
/// stream 2 waits on it and copies into x, the host synchronises stream 2
/// and reads) is silent under `async` and `adversarial`; without the wait
/// the run reports the unsynchronised accesses, naming both sides, and the
/// trace marks each on the tracks of its two streams; under
/// `VMMKIT_HAZARDS=error` the racing call fails.
fn ordered_copies_are_silent_and_the_race_is_reported() {
    let s = Scratch::new();
    let c = repo().join("emulator/shims/ascendcl/tests/c");
    s.compile_acl(&c.join("ordered_copies.c"));
    let run = |mode: &str, hazards: &str, args: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
        cmd.arg("run").arg("--dir").arg(s.path().join("machines")).arg("--trace").arg("trace.json").arg("--");
        cmd.arg("./ordered_copies").args(args).current_dir(s.path());
        cmd.env_remove("VMMKIT_ROOT").env_remove("LD_LIBRARY_PATH");
        cmd.env("VMMKIT_STREAMS", mode).env("VMMKIT_HAZARDS", hazards);
        let (exit, out) = vmmkit_testkit::process::run(&mut cmd, DEADLINE).expect("vmmkit run ended in time");
        println!("{out}");
        (exit, out, s.json("trace.json"))
    };
    for mode in ["async", "adversarial:5"] {
        let (exit, out, _) = run(mode, "report", &[]);
        assert_eq!(exit.code(), Some(0), "{mode}: {out}");
        assert!(out.contains("x = 2"), "{mode}: {out}");
        assert!(!out.contains("unsynchronised"), "{mode}: a correct program is reported: {out}");

        let (exit, out, trace) = run(mode, "report", &["nowait"]);
        assert_eq!(exit.code(), Some(0), "{mode}: {out}");
        assert!(out.contains("unsynchronised access(es):"), "{mode}: {out}");
        assert!(out.contains("write-after-write") && out.contains("enqueued by aclrtMemcpyAsync"), "{mode}: {out}");
        let events = trace["traceEvents"].as_array().expect("traceEvents");
        let marks: Vec<&Value> = events.iter().filter(|e| e["cat"] == "hazard" && e["ph"] == "i").collect();
        assert!(marks.len() >= 2, "{mode}: {marks:?}");
        let tracks: std::collections::BTreeSet<String> = events
            .iter()
            .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
            .filter_map(|e| e["args"]["name"].as_str().map(str::to_owned))
            .filter(|n| n.starts_with("stream "))
            .collect();
        assert!(tracks.len() >= 2, "{mode}: both streams' tracks: {tracks:?}");
    }
    let (exit, out, _) = run("adversarial:5", "error", &["nowait"]);
    assert_ne!(exit.code(), Some(0), "{out}");
    assert!(out.contains("507004"), "the racing call fails with ACL_ERROR_RT_STREAM_NOT_COMPLETE: {out}");
}

/// Two processes under one `vmmkit run` (the IPC-event pair of
/// `stream_pair.c`): A copies into memory it shares and records an IPC
/// event; B reads the memory on its own stream. With B's wait on the event
/// the run is silent; without it the run's report names the race with both
/// processes, and the trace marks it on a stream track of each.
#[test]
fn a_race_between_two_processes_names_both_in_the_report_and_the_trace() {
    let s = Scratch::new();
    let c = repo().join("emulator/shims/ascendcl/tests/c");
    s.compile_acl(&c.join("stream_pair.c"));
    let run = |b_args: &str| {
        let _ = std::fs::remove_dir_all(s.path().join("file"));
        std::fs::create_dir_all(s.path().join("file")).expect("exchange dir");
        let script = format!("./stream_pair a event & ./stream_pair b event {b_args}; wait");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_vmmkit"));
        cmd.arg("run").arg("--dir").arg(s.path().join("machines")).arg("--trace").arg("trace.json").arg("--");
        cmd.args(["sh", "-c", &script]).current_dir(s.path());
        cmd.env_remove("VMMKIT_ROOT").env_remove("LD_LIBRARY_PATH").env("VMMKIT_STREAMS", "adversarial:5");
        let (exit, out) = vmmkit_testkit::process::run(&mut cmd, DEADLINE).expect("vmmkit run ended in time");
        println!("{out}");
        (exit, out, s.json("trace.json"))
    };
    let (exit, out, _) = run("");
    assert_eq!(exit.code(), Some(0), "{out}");
    assert!(out.contains("Consistent: yes"), "{out}");
    assert!(!out.contains("unsynchronised"), "an ordered pair is reported: {out}");

    let (exit, out, trace) = run("nowait");
    assert_eq!(exit.code(), Some(0), "{out}");
    assert!(out.contains("unsynchronised access(es):"), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains(" with process "))
        .unwrap_or_else(|| panic!("no line names two processes:\n{out}"));
    assert!(line.contains("enqueued by aclrtMemcpyAsync") && line.contains("across the processes"), "{line}");
    let events = trace["traceEvents"].as_array().expect("traceEvents");
    let pids: std::collections::BTreeSet<u64> =
        events.iter().filter(|e| e["cat"] == "hazard" && e["ph"] == "i").filter_map(|e| e["pid"].as_u64()).collect();
    assert_eq!(pids.len(), 2, "a mark in each process: {pids:?}");
    for pid in &pids {
        let named = events.iter().any(|e| {
            e["ph"] == "M"
                && e["name"] == "thread_name"
                && e["pid"].as_u64() == Some(*pid)
                && e["args"]["name"].as_str().is_some_and(|n| n.starts_with("stream "))
        });
        assert!(named, "process {pid}'s stream track is named");
    }
}

/// `--soc` sets `VMMKIT_SOC` for the program; a chip vmmkit does not play is
/// refused before anything starts (status 2).
fn soc_chooses_the_chip_the_program_sees() {
    let s = Scratch::new();
    let (exit, out) = s.run(&["--soc", "Ascend910B3", "--", "sh", "-c", "echo soc=$VMMKIT_SOC"]);
    assert_eq!(exit.code(), Some(0), "{out}");
    assert!(out.contains("soc=Ascend910B3"), "{out}");
    let (exit, out) = s.run(&["--soc", "Ascend310P3", "--", "true"]);
    assert_eq!(exit.code(), Some(2), "{out}");
    assert!(out.contains("--soc"), "{out}");
}

/// A program linked against ROCm's companion libraries (as CuPy for ROCm
/// is: `librocfft.so.0`, `libroctracer64.so.4`, the latter's symbols in
/// its version nodes) does not start on a plain machine, and starts under
/// `--stand-ins`: each call returns its library's failure status, and each
/// library says once on stderr that it is a stand-in (not under
/// `VMMKIT_QUIET=1`).
fn stand_ins_let_a_program_linked_against_companion_libraries_start() {
    let s = Scratch::new();
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit"));
    let stand_ins = exe.parent().expect("profile directory").join(vmmkit_standins::DIR);
    let src = repo().join("conformance/tests/c/companions.c");
    let out = s.path().join("companions");
    let mut cmd = Command::new(c_compiler());
    cmd.args(["-std=c11", "-Wall", "-Werror", "-o"]).arg(&out).arg(&src).arg("-L").arg(&stand_ins);
    cmd.args(["-l:librocfft.so.0", "-l:libroctracer64.so.4"]);
    run_compiler(&mut cmd, &src);
    let needs = Command::new("readelf").arg("-V").arg(&out).output().expect("readelf runs");
    let needs = String::from_utf8_lossy(&needs.stdout);
    assert!(needs.contains("ROCTRACER_4.0"), "the program asks for roctracer's version node: {needs}");

    let (exit, text) = s.run(&["--", "./companions"]);
    assert_ne!(exit.code(), Some(0), "no stand-ins without --stand-ins: {text}");
    assert!(text.contains("librocfft.so.0") || text.contains("libroctracer64.so.4"), "{text}");

    let (exit, text) = s.run(&["--stand-ins", "--", "./companions"]);
    assert_eq!(exit.code(), Some(0), "{text}");
    assert!(text.contains("rocfft_setup 1 roctracer_open_pool_expl -8"), "{text}");
    assert!(text.contains("vmmkit run: stand-ins for librocfft.so.0, libroctracer64.so.4"), "{text}");
    assert_eq!(text.matches("is a stand-in").count(), 2, "one note per library: {text}");
    assert!(text.contains("vmmkit: libroctracer64.so.4 is a stand-in (vmmkit run --stand-ins): roctracer_start"));

    let (exit, text) = s.run(&["--stand-ins", "--", "sh", "-c", "VMMKIT_QUIET=1 ./companions"]);
    assert_eq!(exit.code(), Some(0), "{text}");
    assert_eq!(text.matches("is a stand-in").count(), 0, "quiet: {text}");
}

vmmkit_testkit::harness!(
    cann_sample7_pair_runs_clean_and_traces_the_share,
    leaky_pair_is_reported_and_fails_on_leak,
    the_exit_status_is_the_programs,
    orphans_of_the_program_are_waited_for,
    keep_root_keeps_the_machine,
    hip_ipc_example_runs,
    progress_on_a_terminal,
    sigterm_from_timeout_is_passed_on_and_reported,
    sighup_is_passed_on_and_reported,
    the_programs_kill_0_does_not_reach_vmmkit,
    a_tree_that_ignores_sigterm_is_killed_after_the_grace_period_or_a_second_signal,
    a_setsid_grandchild_is_killed_too,
    output_paths_are_checked_before_the_program_starts,
    a_failed_report_file_keeps_the_trace_and_the_status,
    a_removed_or_renamed_journal_directory_still_gets_a_report,
    trace_of_a_million_calls_in_bounded_memory,
    on_a_terminal_the_program_reads_it_and_gets_ctrl_c,
    ordered_copies_are_silent_and_the_race_is_reported,
    soc_chooses_the_chip_the_program_sees,
    stand_ins_let_a_program_linked_against_companion_libraries_start,
);
