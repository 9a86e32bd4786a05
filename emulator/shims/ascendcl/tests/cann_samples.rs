//! The CANN samples themselves (hicann/runtime `example/`): notify 0 and 1
//! (IPC memory and an IPC notify, with and without the importer's pid),
//! ipcevent/1 (an IPC event across devices) and stream/2 (two streams and
//! an event). Built against the vendor's own headers and sources, read out
//! of the fetched hicann/runtime at run time (`VMMKIT_CANN_RUNTIME_GIT`,
//! default `/work/.mirror/hicann+runtime/repo`; nothing of it is kept in
//! the repository), with host stand-ins for their kernels that run in
//! stream order (`tests/c/kernel_stand_ins.cc`, `aclrtLaunchHostFunc`), and
//! run as the samples' `run.sh` runs them, judged as it judges. Each test
//! says it is skipped, with the reason, where no copy is at hand.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{Scratch, finish, value_after};

/// `example/` and `include/external` of the fetched hicann/runtime, in
/// `dir`; the reason when there is none.
fn vendor_tree(dir: &Path) -> Result<PathBuf, String> {
    let git = std::env::var_os("VMMKIT_CANN_RUNTIME_GIT").unwrap_or_else(|| "/work/.mirror/hicann+runtime/repo".into());
    if !Path::new(&git).is_dir() {
        return Err(format!(
            "no fetched hicann/runtime at {} (set VMMKIT_CANN_RUNTIME_GIT)",
            Path::new(&git).display()
        ));
    }
    let script = "git --git-dir \"$0\" archive HEAD example include/external | tar -x -C \"$1\"";
    let st = Command::new("sh").args(["-c", script]).arg(&git).arg(dir).status().map_err(|e| e.to_string())?;
    let tree = dir.to_path_buf();
    if st.success() && tree.join("example/utils.h").is_file() {
        Ok(tree)
    } else {
        Err(format!("{} holds no example/ and include/external", Path::new(&git).display()))
    }
}

/// Compiles `sources` (relative to the tree) with the stand-ins into `bin/<name>`.
fn build(scratch: &Scratch, tree: &Path, name: &str, sources: &[&str], includes: &[&str]) -> PathBuf {
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "g++".into());
    let exe = scratch.path().join("bin").join(name);
    let mut cmd = Command::new(cxx);
    cmd.args(["-std=c++17", "-w", "-I"]).arg(tree.join("include/external"));
    for inc in includes {
        cmd.arg("-I").arg(tree.join(inc));
    }
    cmd.arg("-o").arg(&exe);
    for s in sources {
        cmd.arg(tree.join(s));
    }
    let stand_ins = common::c_dir().join("kernel_stand_ins.cc");
    cmd.arg(&stand_ins).arg("-L").arg(scratch.lib_dir()).arg("-lascendcl").arg("-lpthread");
    common::run_compiler(&mut cmd, &stand_ins);
    exe
}

/// A scratch directory and the vendor tree; the test is ignored, saying
/// why, without the tree.
fn setup() -> (Scratch, PathBuf) {
    let scratch = Scratch::new();
    match vendor_tree(scratch.path()) {
        Ok(tree) => (scratch, tree),
        Err(why) => vmmkit_testkit::harness::skip(why),
    }
}

/// Notify sample `dir`: proc_a waits on the notify, then reads what
/// proc_b wrote before recording it; `run.sh` passes when proc_b's
/// `Source data` equals proc_a's `Destination data`.
fn notify_sample(dir: &str) {
    let (scratch, tree) = setup();
    let d = format!("example/2_advanced_features/notify/{dir}");
    let inc = ["example", "example/1_basic_features/memory"];
    let file_ops = "example/1_basic_features/memory/file_ops.cpp";
    let a = build(&scratch, &tree, "proc_a", &[&format!("{d}/proc_a.cpp"), file_ops], &inc);
    let b = build(&scratch, &tree, "proc_b", &[&format!("{d}/proc_b.cpp"), file_ops], &inc);
    std::fs::create_dir_all(scratch.path().join("file")).expect("file/");
    // The samples use devices 2 and 3.
    let run = |exe: &Path| {
        let mut cmd = scratch.command(exe);
        cmd.env("VMMKIT_DEVICES", "4");
        cmd
    };
    let mut procs = [scratch.start("proc_a", run(&a)), scratch.start("proc_b", run(&b))];
    let out = finish(&mut procs);
    print!("--- {dir} proc_a:\n{}--- {dir} proc_b:\n{}", out[0], out[1]);
    let source = value_after(&out[1], "Source data");
    let destination = value_after(&out[0], "Destination data");
    assert!(source.is_some(), "{dir}: proc_b wrote no `Source data`:\n{}", out[1]);
    assert_eq!(destination, source, "{dir}: the values differ");
    println!(
        "[SUCCESS] IPC notify for task synchronization is successful. Values at source and destination are equal: {}",
        source.unwrap_or_default()
    );
    scratch.assert_nothing_shared();
}

fn cann_notify_sample_0_with_pid() {
    notify_sample("0_ipc_notify_withpid");
}

fn cann_notify_sample_1_without_pid() {
    notify_sample("1_ipc_notify_withoutpid");
}

/// ipcevent/1: the producer on device 0, one consumer on device 1, as
/// `run.sh` starts them (after its device-count precheck); it passes when
/// the producer says `finished successfully`.
fn cann_ipcevent_sample_1_multi_device() {
    let (scratch, tree) = setup();
    let d = "example/2_advanced_features/ipcevent/1_ipcevent_multi_device";
    let inc = ["example"];
    let pre = build(&scratch, &tree, "precheck", &[&format!("{d}/precheck.cpp")], &inc);
    let a = build(&scratch, &tree, "proc_a", &[&format!("{d}/proc_a.cpp")], &inc);
    let b = build(&scratch, &tree, "proc_b", &[&format!("{d}/proc_b.cpp")], &inc);
    let mut check = scratch.command(&pre);
    check.arg("2");
    let out = finish(&mut [scratch.start("precheck", check)]);
    print!("--- precheck 2:\n{}", out[0]);
    let mut producer = scratch.command(&a);
    producer.arg("1");
    let mut consumer = scratch.command(&b);
    consumer.args(["1", "1"]);
    let mut procs = [scratch.start("proc_a", producer), scratch.start("proc_b", consumer)];
    let out = finish(&mut procs);
    print!("--- producer (device 0):\n{}--- consumer 1 (device 1):\n{}", out[0], out[1]);
    assert!(out[0].contains("finished successfully"), "the producer did not finish successfully:\n{}", out[0]);
    println!("[SUCCESS] IPC event multi-device synchronization works correctly.");
    scratch.assert_nothing_shared();
}

/// stream/2: a long task on one stream, an event, a short task on the
/// other; each synchronisation mode (stream, event, notify) must give
/// (0 + 1) * 2 = 2.
fn cann_stream_sample_2_multi_stream() {
    let (scratch, tree) = setup();
    let d = "example/1_basic_features/stream/2_multi_stream";
    let exe = build(&scratch, &tree, "main", &[&format!("{d}/main.cpp")], &["example"]);
    // Every scheduling mode: the sample orders its streams correctly, so the
    // unsynchronised-access check (async, adversarial) reports nothing.
    for mode in ["eager", "async", "adversarial"] {
        let mut cmd = scratch.command(&exe);
        cmd.env("VMMKIT_STREAMS", mode);
        let out = finish(&mut [scratch.start("main", cmd)]).remove(0);
        print!("--- stream/2 main, VMMKIT_STREAMS={mode}:\n{out}");
        let answers: Vec<&str> = out.lines().filter(|l| l.contains("The answer is")).collect();
        assert_eq!(answers.len(), 3, "one answer per mode (stream, event, notify synchronize):\n{out}");
        assert!(answers.iter().all(|l| l.contains("The answer is 2.")), "in stream order the answer is 2:\n{out}");
        assert!(!out.contains("unsynchronised access"), "no race in a correctly ordered sample ({mode}):\n{out}");
    }
}

vmmkit_testkit::harness!(
    cann_notify_sample_0_with_pid,
    cann_notify_sample_1_without_pid,
    cann_ipcevent_sample_1_multi_device,
    cann_stream_sample_2_multi_stream,
);
