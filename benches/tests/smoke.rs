//! Every bench body, set up and run for one iteration on the smoke plan,
//! in one process with one fresh root, which must be gone at the end. A
//! test without libtest's harness: the root is set in the environment
//! before any other thread exists.

use std::path::PathBuf;
use std::time::Instant;

use vmmkit_benches::cases::{ALL, Env, calls};
use vmmkit_benches::plan::Plan;
use vmmkit_benches::root::BenchRoot;

/// Bench targets that may have no entries on the backends measured.
/// (`run_overhead` has none where the `vmmkit` executable was not built.)
const ONE_VENDORS: &[&str] = &["reimport", "lookup", "calls", "run_overhead"];

// One thread when the root is set in the environment.
fn main() {
    vmmkit_testkit::harness::main_single_thread(&[("every_bench_body_runs_once", every_bench_body_runs_once)])
}

fn every_bench_body_runs_once() {
    match run() {
        Ok(n) => println!("smoke: {n} bench bodies ran once each"),
        Err(e) => panic!("smoke: {e}"),
    }
}

fn run() -> Result<usize, Box<dyn std::error::Error>> {
    let root = BenchRoot::install()?;
    let path = root.path().to_path_buf();
    let peer = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit-bench-peer"));
    let env = match Env::new(root, Plan::Smoke, peer) {
        Ok(env) => env,
        // As the benches do: a forced backend that is not there is skipped.
        Err(vmmkit_benches::BenchError::Unsupported(why)) => vmmkit_testkit::harness::skip(why),
        Err(e) => return Err(e.into()),
    };
    let t = Instant::now();
    let mut ran = 0;
    for (target, build) in ALL {
        let entries = build(&env)?;
        // One vendor's benches (lookup: keys; calls: the ACL table) and the
        // one that needs two devices may have nothing on the backends measured.
        if entries.is_empty() && !ONE_VENDORS.contains(target) {
            return Err(format!("bench {target} has no entries").into());
        }
        for mut e in entries {
            let d = e.case.run(1).map_err(|err| format!("{}: {err}", e.id()))?;
            println!("{:<50} {d:?}", e.id());
            ran += 1;
        }
    }
    // The log variant's ids come from VMMKIT_LOG (read here, not by the emulator).
    assert_eq!(calls::log_suffix(), "", "VMMKIT_LOG is set for this test");
    env.close()?;
    if path.exists() {
        return Err(format!("{} was not removed", path.display()).into());
    }
    let leftovers: Vec<_> = std::fs::read_dir("/dev/shm")
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    let ours: Vec<_> = leftovers
        .iter()
        .filter(|n| n.to_string_lossy().contains(&*path.file_name().unwrap().to_string_lossy()))
        .collect();
    if !ours.is_empty() {
        return Err(format!("left in /dev/shm: {ours:?}").into());
    }
    println!("smoke: {:.1} s", t.elapsed().as_secs_f64());
    Ok(ran)
}
