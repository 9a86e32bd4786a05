//! The system calls of `cuda_stream_copy` per iteration (a 4 KiB
//! `cuMemcpyDtoDAsync` + `cuStreamSynchronize`), counted with `ptrace`
//! under `VMMKIT_STREAMS=eager`, where the copy runs on the calling thread
//! (the only one counted): into memory shared with other processes
//! (`shared`, and `shared_peer`, where a peer process has accessed it too)
//! it makes exactly the calls it makes into memory of this process only
//! (`local`). The unsynchronised-access check writes each
//! access into the memory's shared history and reads the other processes'
//! from it through a mapping made once, at the first copy (left out of the
//! count). A test without libtest's harness: the process has one thread
//! when it forks the counted child.

use std::path::PathBuf;

use vmmkit_benches::syscalls;

const SCHEDULE: &str = "VMMKIT_STREAMS";

// One thread when the counted child is forked.
fn main() {
    vmmkit_testkit::harness::main_single_thread(&[(
        "a_copy_into_shared_memory_makes_the_calls_of_a_local_one",
        a_copy_into_shared_memory_makes_the_calls_of_a_local_one,
    )])
}

fn a_copy_into_shared_memory_makes_the_calls_of_a_local_one() {
    if let Some(why) = syscalls::available() {
        vmmkit_testkit::harness::skip(format!("this process may not trace its child: {why}"));
    }
    if std::env::var(SCHEDULE).ok().as_deref() != Some("eager") {
        // Again, with the schedule that runs the copy on this thread.
        let exe = std::env::current_exe().expect("this test's executable");
        let status = std::process::Command::new(exe).env(SCHEDULE, "eager").status().expect("run again");
        assert!(status.success(), "stream_syscalls under the eager schedule: {status}");
        return;
    }
    let peer = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit-bench-peer"));
    let tallies =
        syscalls::count_benches_of(peer, &["cuda_streams"]).unwrap_or_else(|e| panic!("stream_syscalls: {e}"));
    for t in &tallies {
        println!("{:<50} {:>5.2}  {}", t.label, t.per_window(), t.breakdown());
    }
    let find =
        |param: &str| tallies.iter().find(|t| t.label.starts_with("cuda_stream_copy/") && t.label.ends_with(param));
    let (Some(local), Some(shared), Some(peer)) = (find("/local"), find("/shared"), find("/shared_peer")) else {
        panic!("stream_syscalls: the cuda_stream_copy entries were not all counted");
    };
    let mut failures = Vec::new();
    for t in [local, shared, peer] {
        if t.windows != syscalls::ITERS || t.min != t.max {
            failures.push(format!("{}: {} windows, {} to {} calls each", t.label, t.windows, t.min, t.max));
        }
    }
    for t in [shared, peer] {
        if t.calls != local.calls {
            failures.push(format!("{} makes {} where local copies make {}", t.label, t.breakdown(), local.breakdown()));
        }
    }
    assert!(failures.is_empty(), "stream_syscalls:\n{}", failures.join("\n"));
    println!("stream_syscalls: a copy into shared memory makes the calls of a local one ({:.0})", local.per_window());
}
