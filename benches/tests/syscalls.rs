//! The system calls of each control operation per iteration, counted with
//! `ptrace` (`vmmkit_benches::syscalls`), beside its reference's (the floor,
//! or the direct call): each operation makes exactly the same calls every
//! iteration, and, call by call, at most its reference's plus the extra
//! calls named in `syscalls::EXTRA` with the reason each is unavoidable. A test without
//! libtest's harness: the process has one thread when it forks the counted
//! child.

use std::path::PathBuf;

use vmmkit_benches::syscalls::{self, Tally};

fn every_operation_makes_its_references_calls() {
    if let Some(why) = syscalls::available() {
        vmmkit_testkit::harness::skip(format!("this process may not trace its child: {why}"));
    }
    let peer = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit-bench-peer"));
    let tallies = syscalls::count_benches(peer).unwrap_or_else(|e| panic!("syscalls: {e}"));
    let mut failures = Vec::new();
    for t in &tallies {
        println!("{:<50} {:>5.2}  {}", t.label, t.per_window(), t.breakdown());
        failures.extend(check(t, &tallies));
    }
    let ops = tallies.iter().filter(|t| reference(t, &tallies).is_some()).count();
    if ops < syscalls::TARGETS.len() - 1 {
        failures.push(format!("only {ops} operations had a reference to compare with"));
    }
    assert!(failures.is_empty(), "syscalls:\n{}", failures.join("\n"));
    println!("syscalls: {} bench bodies counted, {ops} beside their reference", tallies.len());
}

/// The entry an operation is compared with: `group/floor/param`, else
/// `group/direct/param`.
fn reference<'a>(t: &Tally, all: &'a [Tally]) -> Option<&'a Tally> {
    let mut parts = t.label.splitn(3, '/');
    let (group, function, param) = (parts.next()?, parts.next()?, parts.next()?);
    if function.starts_with("floor") || function == "direct" {
        return None;
    }
    [format!("floor_{function}"), "floor".into(), "direct".into()]
        .iter()
        .find_map(|f| all.iter().find(|x| x.label == format!("{group}/{f}/{param}")))
}

fn check(t: &Tally, all: &[Tally]) -> Vec<String> {
    let mut out = Vec::new();
    // The two peers of an all-to-all each count its iterations (`all_to_all_export`, `all_to_all_import`).
    let counters = if t.label.starts_with("all_to_all_") { 2 } else { 1 };
    if t.windows != syscalls::ITERS * counters {
        out.push(format!("{}: {} windows counted, not {}", t.label, t.windows, syscalls::ITERS * counters));
    }
    if t.min != t.max {
        out.push(format!("{}: between {} and {} calls per iteration", t.label, t.min, t.max));
    }
    if let Some(r) = reference(t, all) {
        let mut parts = t.label.split('/');
        let (group, function) = (parts.next().unwrap_or_default(), parts.next().unwrap_or_default());
        let count = |x: &Tally, name: &str| x.calls.get(name).copied().unwrap_or(0);
        for (name, &n) in &t.calls {
            let instead: u64 = syscalls::INSTEAD
                .iter()
                .filter(|i| i.0 == group && i.1 == name)
                .map(|i| count(r, i.2).saturating_sub(count(t, i.2)))
                .sum();
            let allowed = count(r, name) + instead + syscalls::extra(group, function, name) * t.windows;
            if n > allowed {
                out.push(format!(
                    "{}: {name} ×{:.2} per iteration ({}), its reference {} makes {} ({}), and syscalls::EXTRA allows {} more",
                    t.label,
                    n as f64 / t.windows as f64,
                    t.breakdown(),
                    r.label,
                    r.per_window(),
                    r.breakdown(),
                    syscalls::extra(group, function, name)
                ));
            }
        }
    }
    out
}

// One thread when the counted child is forked.
fn main() {
    vmmkit_testkit::harness::main_single_thread(&[(
        "every_operation_makes_its_references_calls",
        every_operation_makes_its_references_calls,
    )])
}
