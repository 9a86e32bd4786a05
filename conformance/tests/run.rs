//! `vmmkit run`, as a user runs it: C programs of ours built against our
//! ACL headers (the CANN sample-7 pair, a deliberately leaky pair), and the
//! README's HIP IPC example built against Debian's HIP headers, each run as
//! real processes on a private machine; the report, the JSON report, the
//! trace and the exit status are checked.

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
#[test]
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
#[test]
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
#[test]
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
#[test]
fn orphans_of_the_program_are_waited_for() {
    let s = Scratch::new();
    s.compile_acl(&repo().join("conformance/tests/c/leaky_pair.c"));
    let (exit, out) =
        s.run(&["--devices", "2", "--fail-on-leak", "--", "sh", "-c", "(sleep 0.3; exec ./leaky_pair) & exit 0"]);
    assert!(out.contains("2 process(es) used the emulator"), "{out}");
    assert_eq!(exit.code(), Some(3), "{out}");
}

/// `--keep-root` keeps the machine, with the root and the journals, and says where.
#[test]
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
#[test]
fn hip_ipc_example_runs() {
    let headers = match vmmkit_testkit::hip::fetch(&repo(), "headers") {
        Ok(h) => h,
        Err(why) => return vmmkit_testkit::hip::skip("hip_ipc_example_runs", &why),
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
/// skipped, saying so, where util-linux's `script` is absent.
#[test]
fn progress_on_a_terminal() {
    let s = Scratch::new();
    let vmmkit =
        format!("{} run --dir {} -- sleep 3", env!("CARGO_BIN_EXE_vmmkit"), s.path().join("machines").display());
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &vmmkit, "/dev/null"]);
    let (exit, out) = match vmmkit_testkit::process::run(&mut cmd, DEADLINE) {
        Ok(r) => r,
        Err(e) => return println!("SKIPPED progress_on_a_terminal: cannot run script(1): {e}"),
    };
    assert!(exit.success(), "{out}");
    assert!(out.contains("\rvmmkit run: 2 s, 0 process(es) used the emulator so far"), "{out:?}");
    let cleared = out.rfind("\r\x1b[K").expect("the line is cleared");
    assert!(cleared < out.find("exit status 0").expect("the report"), "{out:?}");
}

/// `--soc` sets `VMMKIT_SOC` for the program; a chip vmmkit does not play is
/// refused before anything starts (status 2).
#[test]
fn soc_chooses_the_chip_the_program_sees() {
    let s = Scratch::new();
    let (exit, out) = s.run(&["--soc", "Ascend910B3", "--", "sh", "-c", "echo soc=$VMMKIT_SOC"]);
    assert_eq!(exit.code(), Some(0), "{out}");
    assert!(out.contains("soc=Ascend910B3"), "{out}");
    let (exit, out) = s.run(&["--soc", "Ascend310P3", "--", "true"]);
    assert_eq!(exit.code(), Some(2), "{out}");
    assert!(out.contains("--soc"), "{out}");
}
