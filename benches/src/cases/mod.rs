//! The bench bodies: one module per operation, each listing its entries
//! (the operation on each backend measured, and its floor) as [`Entry`]s.
//!
//! An entry's [`Case`] does its own set-up the first time it runs and its
//! clean-up when dropped, and returns only the time of the measured part,
//! so the same body serves criterion (`iter_custom`) and the test that runs
//! every body once. Bench ids are `group/function/parameter`: the group is
//! the operation, the function the backend's name (`emulator`, `emulator-hip`,
//! `emulator-cuda`, `ascend`, `hip`, `cuda`) or
//! `floor` (or `floor_*`, `direct`: references beside it), the parameter a
//! size or a count.

pub mod all_to_all;
pub mod alloc;
#[allow(unsafe_code)] // calls the vendor tables directly, as a program does
pub mod calls;
pub mod copy;
#[allow(unsafe_code)] // calls the CUDA table directly, as a program does
pub mod cuda_streams;
pub mod export;
pub mod handoff;
#[allow(unsafe_code)] // calls the vendor tables directly, as a program does
pub mod ipc_event;
pub mod lookup;
pub mod map;
pub mod reimport;
pub mod reserve;
#[allow(unsafe_code)] // ptrace and waitpid of the measured program
pub mod run_overhead;

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::backend::Bk;
use crate::error::Result;
use crate::plan::Plan;
use crate::root::BenchRoot;

/// A bench body.
pub trait Case {
    /// Runs `iters` iterations and returns the time spent in their measured part.
    ///
    /// # Errors
    /// A call failed, or a value read back was wrong.
    fn run(&mut self, iters: u64) -> Result<Duration>;
}

/// A closure as a [`Case`].
struct FnCase<F>(F);

impl<F: FnMut(u64) -> Result<Duration>> Case for FnCase<F> {
    fn run(&mut self, iters: u64) -> Result<Duration> {
        (self.0)(iters)
    }
}

/// One criterion benchmark: where it goes, and its body.
pub struct Entry<'a> {
    /// The criterion group: the operation.
    pub group: &'static str,
    /// The function: the backend's name, or `floor` (or another reference).
    pub function: String,
    /// The parameter: a size label or a count.
    pub param: String,
    /// Bytes each iteration moves, for copies (criterion reports GB/s).
    pub throughput: Option<u64>,
    /// An iteration takes 10 ms or more: fewer samples, flat sampling.
    pub slow: bool,
    /// The body.
    pub case: Box<dyn Case + 'a>,
}

impl std::fmt::Debug for Entry<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.group, self.function, self.param)
    }
}

impl<'a> Entry<'a> {
    /// An entry whose body is `f`.
    pub fn new(
        group: &'static str,
        function: impl Into<String>,
        param: impl Into<String>,
        f: impl FnMut(u64) -> Result<Duration> + 'a,
    ) -> Self {
        Self {
            group,
            function: function.into(),
            param: param.into(),
            throughput: None,
            slow: false,
            case: Box::new(FnCase(f)),
        }
    }

    /// An entry whose body is `case`.
    pub fn with_case(
        group: &'static str,
        function: impl Into<String>,
        param: impl Into<String>,
        case: impl Case + 'a,
    ) -> Self {
        Self {
            group,
            function: function.into(),
            param: param.into(),
            throughput: None,
            slow: false,
            case: Box::new(case),
        }
    }

    /// Marks it as moving `bytes` per iteration.
    pub fn bytes(mut self, bytes: usize) -> Self {
        self.throughput = Some(bytes as u64);
        self
    }

    /// Marks it as slow (10 ms or more per iteration).
    pub fn slow(mut self, slow: bool) -> Self {
        self.slow = slow;
        self
    }

    /// `group/function/param`.
    pub fn id(&self) -> String {
        format!("{self:?}")
    }
}

/// What every bench body shares: the backends, the root, the plan, the
/// peer executable, and notes for the run record (set-up costs).
pub struct Env {
    /// The backends (dropped before the root: fields drop in order).
    backends: Vec<Bk>,
    root: BenchRoot,
    /// What to measure.
    pub plan: Plan,
    peer_exe: PathBuf,
    notes: RefCell<Vec<String>>,
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Env").field("backends", &self.names()).field("plan", &self.plan).finish_non_exhaustive()
    }
}

impl Env {
    /// Opens the backends to measure (see [`crate::backend::open_all`]) over
    /// `root`, which must already be the process's `VMMKIT_ROOT`
    /// ([`BenchRoot::install`]).
    ///
    /// # Errors
    /// [`crate::BenchError::Unsupported`] when no backend has a device, or
    /// the failure to open one.
    pub fn new(root: BenchRoot, plan: Plan, peer_exe: PathBuf) -> Result<Self> {
        let backends = crate::backend::open_all()?;
        Ok(Self { backends, root, plan, peer_exe, notes: RefCell::new(Vec::new()) })
    }

    /// The backends measured, in the order of the report.
    pub fn backends(&self) -> &[Bk] {
        &self.backends
    }

    /// Their names, joined with `, `.
    pub fn names(&self) -> String {
        self.backends.iter().map(Bk::name).collect::<Vec<_>>().join(", ")
    }

    /// The floors' directory (on the root's file system).
    pub fn floor_dir(&self) -> &Path {
        self.root.floor_dir()
    }

    /// The root.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The peer executable.
    pub fn peer_exe(&self) -> &Path {
        &self.peer_exe
    }

    /// Adds a line to the run record (a set-up cost, a skipped case).
    pub fn note(&self, line: impl Into<String>) {
        let line = line.into();
        eprintln!("note: {line}");
        self.notes.borrow_mut().push(line);
    }

    /// The notes so far.
    pub fn notes(&self) -> Vec<String> {
        self.notes.borrow().clone()
    }

    /// Closes the backend and removes the root.
    ///
    /// # Errors
    /// The root could not be removed.
    pub fn close(self) -> Result<()> {
        let Self { backends, root, .. } = self;
        drop(backends);
        root.remove()
    }
}

/// The entries of one bench target.
pub type Builder = for<'a> fn(&'a Env) -> Result<Vec<Entry<'a>>>;

/// Every bench target's name and entries, in the order of the report.
pub const ALL: &[(&str, Builder)] = &[
    ("alloc", alloc::entries),
    ("reserve", reserve::entries),
    ("map", map::entries),
    ("export", export::entries),
    ("handoff", handoff::entries),
    ("reimport", reimport::entries),
    ("copy", copy::entries),
    ("lookup", lookup::entries),
    ("calls", calls::entries),
    ("ipc_event", ipc_event::entries),
    ("cuda_streams", cuda_streams::entries),
    ("all_to_all", all_to_all::entries),
    ("run_overhead", run_overhead::entries),
];

/// Times `iters` runs of `f` as one stretch (for bodies with nothing to
/// leave out of the measurement). Each run is a window of
/// [`crate::syscalls`] (the markers cost nothing unless counting).
///
/// # Errors
/// The first error of `f`.
pub fn timed(iters: u64, mut f: impl FnMut(u64) -> Result<()>) -> Result<Duration> {
    let t = Instant::now();
    for i in 0..iters {
        crate::syscalls::begin();
        let r = f(i);
        crate::syscalls::end();
        r?;
    }
    Ok(t.elapsed())
}

/// Times only `body` of each iteration: `setup` before it and `teardown`
/// after it are left out (two clock reads per iteration, some 40 ns, are in).
///
/// # Errors
/// The first error of any of them.
pub fn timed_each<S, R>(
    iters: u64,
    mut setup: impl FnMut(u64) -> Result<S>,
    mut body: impl FnMut(&mut S) -> Result<R>,
    mut teardown: impl FnMut(S, R) -> Result<()>,
) -> Result<Duration> {
    let mut total = Duration::ZERO;
    for i in 0..iters {
        let mut s = setup(i)?;
        crate::syscalls::begin();
        let t = Instant::now();
        let r = body(&mut s);
        total += t.elapsed();
        crate::syscalls::end();
        match r {
            Ok(r) => teardown(s, r)?,
            Err(e) => return Err(e),
        }
    }
    Ok(total)
}
