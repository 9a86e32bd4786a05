//! The two-process C program for ACL (`tests/c/stream_pair.c`): A
//! writes device memory with `aclrtMemcpyAsync` on a stream and records a
//! notify or an IPC event after it without synchronising; B waits on it on
//! its own stream and reads the memory back. It must read A's data in every
//! `VMMKIT_STREAMS` mode; the same program without B's wait must read stale
//! data every time under `adversarial`.

mod common;

use common::{Scratch, finish, value_after};

/// Runs A and B with `VMMKIT_STREAMS=schedule`; returns B's "Consistent" answer.
fn run_pair(kind: &str, schedule: &str, wait: bool) -> bool {
    let scratch = Scratch::new();
    let exe = scratch.compile("stream_pair", "ascendcl");
    let mut a = scratch.command(&exe);
    a.args(["a", kind]).env("VMMKIT_STREAMS", schedule);
    let mut b = scratch.command(&exe);
    b.args(["b", kind]).env("VMMKIT_STREAMS", schedule);
    if !wait {
        b.arg("nowait");
    }
    let mut procs = [scratch.start("a", a), scratch.start("b", b)];
    let out = finish(&mut procs);
    assert_eq!(value_after(&out[0], "Source data:"), Some("123"), "A:\n{}", out[0]);
    let consistent = value_after(&out[1], "Consistent:");
    println!(
        "{kind} {schedule} {}: B read {} (consistent: {})",
        if wait { "with the wait" } else { "without the wait" },
        value_after(&out[1], "Destination data:").unwrap_or("(nothing)"),
        consistent.unwrap_or("?")
    );
    scratch.assert_nothing_shared();
    if wait {
        for o in &out {
            assert!(!o.contains("unsynchronised"), "an ordered pair is reported ({kind}, {schedule}):\n{o}");
        }
    }
    match consistent {
        Some("yes") => true,
        Some("no") => false,
        other => panic!("B printed no `Consistent:` line ({other:?}):\n{}", out[1]),
    }
}

const SCHEDULES: [&str; 4] = ["eager", "async", "adversarial", "adversarial:12345"];

#[test]
fn a_notify_orders_b_after_a_in_every_schedule() {
    for schedule in SCHEDULES {
        assert!(run_pair("notify", schedule, true), "B read stale data with the wait under {schedule}");
    }
}

#[test]
fn an_ipc_event_orders_b_after_a_in_every_schedule() {
    for schedule in SCHEDULES {
        assert!(run_pair("event", schedule, true), "B read stale data with the wait under {schedule}");
    }
}

/// Without the wait nothing orders B's read after A's copy: `adversarial`
/// holds A's copy until someone needs it, so B reads stale data every time.
#[test]
fn without_the_wait_adversarial_reads_stale_data_every_time() {
    for kind in ["notify", "event"] {
        for seed in ["adversarial", "adversarial:1", "adversarial:99"] {
            assert!(!run_pair(kind, seed, false), "{kind}, {seed}: B read A's data without waiting");
        }
    }
}
