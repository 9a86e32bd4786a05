//! Criterion benches of vmmkit over any backend, each operation beside its
//! floor: the raw system calls it cannot avoid.
//!
//! | module | what |
//! |---|---|
//! | [`backend`] | the backends measured: every emulated dialect (ACL, HIP, CUDA) and a real library with a device, or the one `VMMKIT_BACKEND` names; the bodies use the runtime's owners |
//! | [`floor`] | the floors: the system calls themselves |
//! | [`cases`] | the bench bodies, one module per operation, as entries (`group/function/param`) |
//! | [`peer`] | the second process of the cross-process benches |
//! | [`plan`] | sizes and times: full, quick (`VMMKIT_BENCH_QUICK=1`), smoke (the test) |
//! | [`root`] | a fresh `VMMKIT_ROOT` per bench process, removed at its end |
//! | [`record`] | what each bench process records beside criterion's results (load, machine, set-up costs) |
//! | [`syscalls`] | system calls per iteration of the measured parts, counted with `ptrace` |
//! | [`report`] | criterion's results read back, ratios and targets; `bench-report` prints them |
//!
//! The backends: the one `VMMKIT_BACKEND` names, else a real library with a
//! device (the runtime's selection) and the emulator's three dialects. Run everything with
//! `cargo bench -p vmmkit-benches`, then
//! `cargo run -p vmmkit-benches --bin bench-report`.
//!
//! # Example
//!
//! One bench body, run once, outside criterion:
//!
//! ```no_run
//! use vmmkit_benches::{cases, plan::Plan, root::BenchRoot};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let root = BenchRoot::install()?;
//! let env = cases::Env::new(root, Plan::Smoke, "target/debug/vmmkit-bench-peer".into())?;
//! for mut e in cases::alloc::entries(&env)? {
//!     let t = e.case.run(1)?;
//!     println!("{}: {t:?}", e.id());
//! }
//! env.close()?;
//! # Ok(()) }
//! ```

#![deny(unsafe_code)]

pub mod backend;
pub mod cases;
mod error;
// The floor: the raw system calls the operations are compared with.
#[allow(unsafe_code)]
pub mod floor;
pub mod peer;
pub mod plan;
pub mod record;
pub mod report;
pub mod root;
// Counting system calls: ptrace of a forked child.
#[allow(unsafe_code)]
pub mod syscalls;

pub use error::{BenchError, Result};
