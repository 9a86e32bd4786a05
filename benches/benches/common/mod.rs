//! The main of every bench target: a fresh root, the selected backend, the
//! plan's criterion settings, the entries run group by group, a run record.

use std::path::PathBuf;

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use vmmkit_benches::BenchError;
use vmmkit_benches::cases::{Builder, Env};
use vmmkit_benches::plan::Plan;
use vmmkit_benches::record::{Run, criterion_dir};
use vmmkit_benches::root::BenchRoot;

/// Runs the entries of `build` as the bench target `target`.
pub fn main(target: &str, build: Builder) {
    if let Err(e) = run(target, build) {
        eprintln!("{target}: {e}");
        std::process::exit(1);
    }
}

fn run(target: &str, build: Builder) -> Result<(), BenchError> {
    let plan = Plan::from_env();
    let dir = criterion_dir();
    // The arguments first: `--help` and a bad option end the process here,
    // before there is a root to leave behind in /dev/shm.
    let mut c = Criterion::default()
        .output_directory(&dir)
        .without_plots()
        .warm_up_time(plan.warm_up())
        .measurement_time(plan.measurement())
        .sample_size(plan.samples())
        .configure_from_args();
    let root = BenchRoot::install()?;
    let peer = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit-bench-peer"));
    let env = match Env::new(root, plan, peer) {
        Ok(env) => env,
        Err(BenchError::Unsupported(why)) => {
            eprintln!("{target}: skipped: {why}");
            return Ok(());
        }
        Err(e) => return Err(e),
    };
    let mut record = Run::start(target, &env.names(), plan.name());
    let mut entries = build(&env)?.into_iter().peekable();
    while let Some(first) = entries.peek() {
        let name = first.group;
        let mut g = c.benchmark_group(name);
        while let Some(mut e) = entries.next_if(|e| e.group == name) {
            if e.slow {
                g.sample_size(plan.samples_slow())
                    .measurement_time(plan.measurement_slow())
                    .sampling_mode(SamplingMode::Flat);
            } else {
                g.sample_size(plan.samples()).measurement_time(plan.measurement()).sampling_mode(SamplingMode::Auto);
            }
            if let Some(b) = e.throughput {
                g.throughput(Throughput::Bytes(b));
            }
            let id = e.id();
            // The first run sets the entry up (seconds, for 100,000 exports
            // or 1 GiB buffers) and touches everything once. Criterion's
            // warm-up estimates an iteration from the wall time of its calls,
            // so that run happens here, before it (even for an entry that a
            // filter then skips).
            e.case.run(1).map_err(|err| BenchError::Check(format!("{id}: {err}")))?;
            g.bench_function(BenchmarkId::new(e.function.clone(), e.param.clone()), |b| {
                b.iter_custom(|n| e.case.run(n).unwrap_or_else(|err| panic!("{id}: {err}")))
            });
            drop(e); // frees what its set-up made before the next one's
        }
        g.finish();
    }
    drop(entries);
    c.final_summary();
    // Profiling, test and list runs measure nothing: the record of the
    // last measuring run stays.
    let measuring = !std::env::args()
        .any(|a| a == "--test" || a == "--list" || a == "--profile-time" || a.starts_with("--profile-time="));
    if measuring {
        record.finish(env.notes());
        record.write(&dir)?;
    }
    env.close()
}
