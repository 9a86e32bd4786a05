//! Crash matrix, for each dialect (ACL, HIP, CUDA): the export/import flow
//! between two real processes, with the exporter or the importer killed
//! (`SIGKILL`) at each step the dialect has, either just after the step (an
//! explicit kill once the worker reported it done) or inside the call that
//! does it (`VMMKIT_FAULTS=FUNCTION#N=kill`, the function and N from the
//! dialect's table and the calls the victim made before).
//!
//! After each kill the survivor must keep working and keep reading its data
//! (checksums). A dead exporter's shareable handle that nobody holds must be
//! gone (ACL: 107017); a POSIX fd still open in the test (in flight) keeps
//! the memory, so the importer imports it and reads the data (HIP-VMM-030,
//! CUDA-VMM-016/020). After `gc` the root must hold exactly what the
//! survivors hold: the same entries with the same holders (`flock` owners
//! in `/proc/<pid>/fdinfo`), the same device usage, no other file. Then the
//! survivors release everything and the root must be empty.
//!
//! Beside it, a matrix for events and notifies shared across processes: the
//! creator or the opener killed while it holds one or waits on one
//! (`crash_matrix_shared_events`).
//!
//! Run `cargo test -p vmmkit-emulator --test reliability_crash -- --nocapture`
//! to see the matrices.

mod common;

use std::fmt::Write as _;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::audit;
use common::dialect::{Acl, Call, Cuda, Dialect, Hip};
use common::worker::{Worker, err_code};

/// Size of the shared allocation: two granules.
const S: usize = 4 << 20;
/// Size of a survivor's own allocation after the crash.
const OWN: usize = 2 << 20;
/// Devices and capacity of every cell's root.
const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "64M")];

/// The peers: this binary run as a driver worker of a dialect.
#[test]
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some("driver-acl") => common::driver::serve::<Acl>(),
        Some("driver-hip") => common::driver::serve::<Hip>(),
        Some("driver-cuda") => common::driver::serve::<Cuda>(),
        Some(common::cells::ROLE) => common::cells::serve(),
        Some(other) => panic!("unknown role {other}"),
    }
}

/// The worker role that drives dialect `D`.
fn role<D: Dialect>() -> String {
    format!("driver-{}", D::NAME)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Step {
    Alloc,
    Map,
    Export,
    SetPid,
    Import,
    ImporterMap,
    Copy,
    ExporterFree,
}

impl Step {
    const ALL: [Step; 8] = [
        Step::Alloc,
        Step::Map,
        Step::Export,
        Step::SetPid,
        Step::Import,
        Step::ImporterMap,
        Step::Copy,
        Step::ExporterFree,
    ];

    fn label(self) -> &'static str {
        match self {
            Step::Alloc => "alloc",
            Step::Map => "map + fill",
            Step::Export => "export",
            Step::SetPid => "set-pid",
            Step::Import => "import",
            Step::ImporterMap => "importer map + read",
            Step::Copy => "copy",
            Step::ExporterFree => "exporter free",
        }
    }

    /// The steps dialect `D` has: all but set-pid where it has no trustlist.
    fn of<D: Dialect>() -> Vec<Step> {
        Step::ALL.into_iter().filter(|s| *s != Step::SetPid || D::trustlist()).collect()
    }

    /// The calls each side makes in this step, in order; `true` marks the
    /// step's own call, where a fault kills its maker.
    fn calls(self) -> &'static [(Victim, Call, bool)] {
        use Victim::*;
        match self {
            Step::Alloc => &[(Exporter, Call::Alloc, true)],
            Step::Map => &[(Exporter, Call::Map, true), (Exporter, Call::Write, false)],
            Step::Export => &[(Exporter, Call::Export, true)],
            Step::SetPid => &[(Exporter, Call::SetPids, true)],
            Step::Import => &[(Importer, Call::Import, true)],
            Step::ImporterMap => &[(Importer, Call::Map, true), (Importer, Call::Read, false)],
            Step::Copy => &[(Exporter, Call::Read, true), (Importer, Call::Read, true)],
            Step::ExporterFree => &[(Exporter, Call::Free, true), (Importer, Call::Read, false)],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Victim {
    Exporter,
    Importer,
}

/// When the victim dies.
#[derive(Clone, Copy, Debug)]
enum Kill {
    /// SIGKILL from the test once the step is reported done (for `Copy`:
    /// while the victim copies in a loop).
    After(Step),
    /// SIGKILL by fault injection inside the Nth call of a C function,
    /// which does the step.
    InCall(Step, &'static str, usize),
}

impl Kill {
    fn step(self) -> Step {
        match self {
            Kill::After(s) | Kill::InCall(s, ..) => s,
        }
    }

    /// The `VMMKIT_FAULTS` rule of an in-call kill.
    fn rule(self) -> Option<String> {
        match self {
            Kill::After(_) => None,
            Kill::InCall(_, f, n) => Some(format!("{f}#{n}=kill")),
        }
    }
}

/// Everything one cell of the matrix showed.
#[derive(Debug, Default)]
struct Outcome {
    ended: String,
    survivor: String,
    gc: String,
    after_gc: String,
    final_state: String,
}

/// The flow's state: which steps completed, and what they produced.
struct Flow {
    root: std::path::PathBuf,
    e: Worker,
    i: Worker,
    /// The export's wire text (ACL: the key; an fd handle: `fd`).
    key: Option<String>,
    /// An exported fd in flight: received from the exporter, not yet
    /// handed to an importer.
    fd: Option<OwnedFd>,
    sum: Option<u64>,
    done: Vec<Step>,
    victim: Victim,
    kill: Kill,
}

impl Flow {
    fn victim_worker(&mut self) -> &mut Worker {
        match self.victim {
            Victim::Exporter => &mut self.e,
            Victim::Importer => &mut self.i,
        }
    }

    /// Sends a command to the exporter or importer; `Err` if it died doing it
    /// (which only the fault-injection victim may).
    fn cmd(&mut self, who: Victim, line: &str) -> Result<String, String> {
        self.cmd_fd(who, line, None)
    }

    /// As [`Flow::cmd`], with `fd` attached to the command; an fd that
    /// comes with the reply (an export) is kept in flight.
    fn cmd_fd(&mut self, who: Victim, line: &str, fd: Option<OwnedFd>) -> Result<String, String> {
        let w = if who == Victim::Exporter { &mut self.e } else { &mut self.i };
        w.send_fds(line, &fd.as_ref().map(|f| f.as_fd()).into_iter().collect::<Vec<_>>());
        drop(fd); // the receiver has its own copy now
        match w.recv_fds_within(common::TIMEOUT) {
            Ok((r, mut fds)) if r == "ok" || r.starts_with("ok ") => {
                if let Some(fd) = fds.pop() {
                    self.fd = Some(fd);
                }
                Ok(r.get(3..).unwrap_or("").to_string())
            }
            Ok((r, _)) => panic!("{}: `{line}` replied `{r}`", w.name),
            Err(ended) => {
                assert!(
                    matches!(self.kill, Kill::InCall(..)) && who == self.victim,
                    "{} died unexpectedly at `{line}`: {ended}",
                    w.name
                );
                Err(ended)
            }
        }
    }

    /// Runs `step`; `Err(how it ended)` if the fault-injection victim died in it.
    fn run(&mut self, step: Step) -> Result<(), String> {
        use Victim::*;
        match step {
            Step::Alloc => {
                self.cmd(Exporter, &format!("alloc a 0 {S}"))?;
            }
            Step::Map => {
                self.cmd(Exporter, "map a 0")?;
                self.sum = Some(self.cmd(Exporter, "fill a 7")?.parse().expect("sum"));
            }
            Step::Export => self.key = Some(self.cmd(Exporter, "export a 1")?),
            Step::SetPid => {
                let pid = self.cmd(Importer, "pid")?;
                self.cmd(Exporter, &format!("setpid a {pid}"))?;
            }
            Step::Import => {
                let key = self.key.clone().expect("exported");
                let fd = self.fd.take();
                self.cmd_fd(Importer, &format!("import b {key} 0 {S}"), fd)?;
            }
            Step::ImporterMap => {
                self.cmd(Importer, "map b 0")?;
                let got: u64 = self.cmd(Importer, "sum b")?.parse().expect("sum");
                assert_eq!(Some(got), self.sum, "importer reads the exporter's pattern");
            }
            Step::Copy => {
                // The victim copies the shared memory in a loop; everyone else
                // does one copy (a read) of it.
                let is_kill_step = self.kill.step() == Step::Copy;
                for who in [Exporter, Importer] {
                    let name = if who == Exporter { "a" } else { "b" };
                    let line = if is_kill_step && who == self.victim { "copyloop" } else { "sum" };
                    let got: u64 = self.cmd(who, &format!("{line} {name}"))?.parse().expect("sum");
                    assert_eq!(Some(got), self.sum, "{line} of {name}");
                }
            }
            Step::ExporterFree => {
                self.cmd(Exporter, "unmap a")?;
                self.cmd(Exporter, "free a")?;
                let got: u64 = self.cmd(Importer, "sum b")?.parse().expect("sum");
                assert_eq!(
                    Some(got),
                    self.sum,
                    "ACL-LIFE-002, HIP-VMM-030, CUDA-VMM-020: the importer keeps the data after the exporter's free"
                );
            }
        }
        self.done.push(step);
        Ok(())
    }

    fn did(&self, s: Step) -> bool {
        self.done.contains(&s)
    }
}

fn census_is_empty(w: &mut Worker) {
    assert_eq!(w.ok("census"), "0 0 0 0 0", "{}: handles reservations mappings window-maps root-fds", w.name);
}

/// The entries a root holds after gc, with their holders: by key where
/// the flow knows it (ACL's wire text is the key); an fd handle names no
/// key, so its entries are compared by holders alone.
fn entries_after<D: Dialect>(root: &Path, pids: &[u32]) -> Vec<(Option<u64>, Vec<u32>)> {
    let known = !D::SHAREABLE_HOLDS_MEMORY;
    audit::holders_among(root, pids).into_iter().map(|(k, h)| (known.then_some(k), h)).collect()
}

/// The key an export's wire text names, where it names one.
fn key_of<D: Dialect>(text: &str) -> Option<u64> {
    if D::SHAREABLE_HOLDS_MEMORY { None } else { Some(u64::from_str_radix(text, 16).expect("hex key")) }
}

/// One cell: returns what it saw, or panics with what went wrong.
fn run_cell<D: Dialect>(victim: Victim, kill: Kill, dir: &Path) -> Outcome {
    let root = dir.join("root");
    let env = |who: Victim| {
        let mut env: Vec<(&str, String)> = ENV.iter().map(|(k, v)| (*k, v.to_string())).collect();
        if let Some(rule) = kill.rule().filter(|_| who == victim) {
            env.push(("VMMKIT_FAULTS", rule));
        }
        env
    };
    let start = |name: &str, who: Victim| {
        let env = env(who);
        let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let mut w = Worker::start(name, &role::<D>(), &root, &env);
        w.ok("device 0");
        w
    };
    let e = start("exporter", Victim::Exporter);
    let i = start("importer", Victim::Importer);
    let mut f = Flow { root: root.clone(), e, i, key: None, fd: None, sum: None, done: vec![], victim, kill };
    let mut out = Outcome::default();

    // The flow up to the kill.
    for step in Step::of::<D>() {
        if let Kill::InCall(s, ..) = kill
            && s == step
        {
            let ended = f.run(step).expect_err("the fault kills the victim in this step");
            out.ended = ended;
            break;
        }
        f.run(step).expect("only the fault victim dies");
        if let Kill::After(s) = kill
            && s == step
        {
            out.ended = f.victim_worker().kill();
            break;
        }
    }
    assert_eq!(out.ended, "killed by signal 9", "the victim died of SIGKILL");

    // What the kill left, collected at once: the capacity the victim held
    // alone (its own allocation, or the entry it was the last holder of).
    // An exported fd in flight holds the memory too (HIP-VMM-030, CUDA-VMM-016).
    let left = audit::gc(&f.root);
    let in_flight = f.fd.is_some();
    let alone = match victim {
        Victim::Exporter if f.did(Step::Alloc) && !f.did(Step::ExporterFree) && !f.did(Step::Import) && !in_flight => {
            S as u64
        }
        Victim::Importer if f.did(Step::ExporterFree) => S as u64,
        _ => 0,
    };
    assert_eq!(left.bytes, alone, "gc right after the kill gives back what the victim held alone: {left:?}");
    out.gc = format!("{} slot(s), {} entr(y/ies), {} MiB", left.processes, left.entries, left.bytes >> 20);

    // The survivor keeps working.
    let mut extra: Vec<Worker> = Vec::new();
    let mut expect_keys: Vec<(Option<u64>, Vec<u32>)> = Vec::new();
    let expect_used: u64;
    let mut notes = Vec::new();
    match victim {
        Victim::Exporter => {
            let mut holds = f.did(Step::Import);
            if holds {
                if !f.did(Step::ImporterMap) {
                    f.i.ok("map b 0");
                }
                let got: u64 = f.i.ok("sum b").parse().expect("sum");
                assert_eq!(Some(got), f.sum, "the importer still reads the data after the exporter died");
                notes.push("importer reads its data (checksum ok)".to_string());
            } else if let Some(fd) = f.fd.take() {
                // HIP-VMM-030, CUDA-VMM-016: the fd keeps the memory; the dead
                // exporter's data is still there for whoever imports it.
                let key = f.key.clone().expect("exported");
                f.i.ok_fds(&format!("import b {key} 0 {S}"), &[fd.as_fd()]);
                drop(fd);
                f.i.ok("map b 0");
                let got: u64 = f.i.ok("sum b").parse().expect("sum");
                assert_eq!(Some(got), f.sum, "the importer reads the dead exporter's data through its fd");
                notes.push("import of its fd (in flight) → 0, importer reads its data (checksum ok)".to_string());
                holds = true;
            } else if let Some(key) = f.key.clone() {
                let r = f.i.ask(&format!("import b {key} 0 {S}"));
                assert_eq!(
                    err_code(&r),
                    Some(D::UNKNOWN_SHAREABLE),
                    "ACL-LIFE-003/004: import of a dead exporter's handle that nobody holds: {r}"
                );
                notes.push(format!("import of its handle → {}", D::UNKNOWN_SHAREABLE));
            }
            if holds {
                expect_keys.push((f.key.as_deref().and_then(key_of::<D>), vec![f.i.pid()]));
            }
            f.i.ok(&format!("alloc c 0 {OWN}"));
            f.i.ok("map c 0");
            let s: String = f.i.ok("fill c 9");
            assert_eq!(f.i.ok("sum c"), s);
            notes.push("importer allocates, maps, writes, reads".into());
            expect_used = if holds { (S + OWN) as u64 } else { OWN as u64 };
        }
        Victim::Importer => {
            if !f.did(Step::Alloc) {
                f.e.ok(&format!("alloc a 0 {S}"));
            }
            if !f.did(Step::Map) {
                f.e.ok("map a 0");
                f.sum = Some(f.e.ok("fill a 7").parse().expect("sum"));
            }
            // An fd handle is shared anew for every importer (HIP-VMM-025:
            // each export is a new fd) unless one is still in flight.
            let fd_gone = D::SHAREABLE_HOLDS_MEMORY && f.fd.is_none();
            if !f.did(Step::ExporterFree) && (!f.did(Step::Export) || fd_gone) {
                let (key, fd) = f.e.ok_fds("export a 1", &[]);
                f.key = Some(key);
                f.fd = fd;
            }
            let key = f.key.clone().expect("exported");
            let mut i2 = Worker::start("importer2", &role::<D>(), &root, ENV);
            i2.ok("device 0");
            if f.did(Step::ExporterFree) {
                // The dead importer was the last holder.
                if D::SHAREABLE_HOLDS_MEMORY {
                    // Its fd went with it: nothing is left to import from.
                    notes.push("nothing left to import (the fd died with the importer)".into());
                } else {
                    let r = i2.ask(&format!("import b {key} 0 {S}"));
                    assert_eq!(
                        err_code(&r),
                        Some(D::UNKNOWN_SHAREABLE),
                        "ACL-LIFE-003/004: import after the last holder died: {r}"
                    );
                    notes.push(format!("new importer: import → {}", D::UNKNOWN_SHAREABLE));
                }
                f.e.ok(&format!("alloc c 0 {OWN}"));
                f.e.ok("map c 0");
                let s = f.e.ok("fill c 9");
                assert_eq!(f.e.ok("sum c"), s);
                notes.push("exporter allocates, maps, writes, reads".into());
                expect_used = OWN as u64;
            } else {
                let got: u64 = f.e.ok("sum a").parse().expect("sum");
                assert_eq!(Some(got), f.sum, "the exporter still reads its data");
                if D::trustlist() {
                    let pid = i2.ok("pid");
                    f.e.ok(&format!("setpid a {pid}"));
                }
                let fd = f.fd.take();
                i2.ok_fds(
                    &format!("import b {key} 0 {S}"),
                    &fd.as_ref().map(|f| f.as_fd()).into_iter().collect::<Vec<_>>(),
                );
                drop(fd);
                i2.ok("map b 0");
                let got: u64 = i2.ok("sum b").parse().expect("sum");
                assert_eq!(Some(got), f.sum, "a new importer reads the data");
                notes.push("exporter reads its data; a new importer imports and reads it (checksums ok)".into());
                let mut hold = vec![f.e.pid(), i2.pid()];
                hold.sort_unstable();
                expect_keys.push((key_of::<D>(&key), hold));
                expect_used = S as u64;
            }
            extra.push(i2);
        }
    }
    out.survivor = notes.join("; ");
    assert!(f.fd.is_none(), "no fd left in flight");

    // After gc the root holds exactly what the survivors hold.
    let report = audit::gc(&f.root);
    assert_eq!(report.bytes, 0, "nothing more to collect after the survivors' work: {report:?}");
    let mut pids = vec![f.e.pid(), f.i.pid()];
    pids.extend(extra.iter().map(Worker::pid));
    assert_eq!(entries_after::<D>(&f.root, &pids), expect_keys, "entries and their holders after gc");
    let used = audit::used(&f.root);
    assert_eq!(used, vec![expect_used, 0], "device usage after gc = what the survivors hold");
    let keys = audit::entry_keys(&f.root);
    assert_eq!(keys.len(), expect_keys.len(), "entries after gc");
    audit::assert_files(&f.root, &keys, "after gc");
    assert!(audit::registry(&f.root).processes().iter().all(|p| p.alive), "no slot of a dead process");
    out.after_gc =
        format!("{} entr(y/ies), usage {} MiB = survivors' {} MiB", keys.len(), used[0] >> 20, expect_used >> 20);

    // The survivors release everything; then nothing is left.
    let mut survivors: Vec<&mut Worker> = Vec::new();
    let victim_is_e = victim == Victim::Exporter;
    if !victim_is_e {
        survivors.push(&mut f.e);
    } else {
        survivors.push(&mut f.i);
    }
    survivors.extend(extra.iter_mut());
    for w in survivors {
        w.ok("teardown");
        census_is_empty(w);
        w.ok("exit");
        w.finish();
    }
    let report = audit::gc(&f.root);
    assert_eq!((report.entries, report.bytes), (0, 0), "nothing left for gc after clean exits: {report:?}");
    audit::assert_clean(&f.root, "after the survivors exited");
    out.final_state = "clean".into();
    out
}

/// The cells of dialect `D`: a kill of each side after each step it has,
/// then a kill inside each step's own call (its C function from the
/// dialect's table, N counted over the calls the victim made before).
fn cells<D: Dialect>() -> Vec<(Victim, Kill)> {
    use Victim::*;
    let steps = Step::of::<D>();
    let mut v = Vec::new();
    for &s in &steps {
        v.push((Exporter, Kill::After(s)));
        v.push((Importer, Kill::After(s)));
    }
    let name = |c: Call| D::function(c).expect("a step the dialect has");
    for (k, &s) in steps.iter().enumerate() {
        for (j, &(who, call, own)) in s.calls().iter().enumerate() {
            if !own {
                continue;
            }
            let f = name(call);
            let before = steps[..k].iter().flat_map(|p| p.calls().iter()).chain(&s.calls()[..j]);
            let n = 1 + before.filter(|&&(w, c, _)| w == who && name(c) == f).count();
            v.push((who, Kill::InCall(s, f, n)));
        }
    }
    v
}

/// Every cell of dialect `D`, two at a time, each in its own root; prints the matrix.
fn crash_matrix<D: Dialect>() {
    if common::worker::role().is_some() {
        return;
    }
    let cells = cells::<D>();
    let results: Mutex<Vec<Option<Result<Outcome, String>>>> = Mutex::new((0..cells.len()).map(|_| None).collect());
    let next = AtomicUsize::new(0);
    let started = std::time::Instant::now();
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(victim, kill)) = cells.get(n) else { return };
                    let dir = tempfile::tempdir().expect("tempdir");
                    let t = std::time::Instant::now();
                    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        run_cell::<D>(victim, kill, dir.path())
                    }))
                    .map_err(|p| {
                        p.downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default()
                    });
                    if t.elapsed().as_secs() >= 5 {
                        eprintln!("slow cell {n} ({victim:?}, {kill:?}): {:.1} s", t.elapsed().as_secs_f64());
                    }
                    results.lock().expect("results")[n] = Some(r);
                }
            });
        }
    });
    let results = results.into_inner().expect("results");
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| step | victim | killed | victim ended | gc right after the kill | survivor afterwards | after the survivor's work and gc | after survivors exit |"
    );
    let _ = writeln!(table, "|---|---|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    for ((victim, kill), r) in cells.iter().zip(&results) {
        let how = match kill {
            Kill::After(Step::Copy) => "SIGKILL while copying in a loop".to_string(),
            Kill::After(_) => "SIGKILL after the step".to_string(),
            Kill::InCall(..) => format!("`VMMKIT_FAULTS={}`", kill.rule().unwrap_or_default()),
        };
        let victim_name = if *victim == Victim::Exporter { "exporter" } else { "importer" };
        match r.as_ref().expect("every cell ran") {
            Ok(o) => {
                let _ = writeln!(
                    table,
                    "| {} | {victim_name} | {how} | {} | {} | {} | {} | {} |",
                    kill.step().label(),
                    o.ended,
                    o.gc,
                    o.survivor,
                    o.after_gc,
                    o.final_state
                );
            }
            Err(msg) => {
                let first = msg.lines().next().unwrap_or_default();
                let _ =
                    writeln!(table, "| {} | {victim_name} | {how} | **FAIL**: {first} | | | | |", kill.step().label());
                failures.push(format!("{} / {victim_name} / {how}: {msg}", kill.step().label()));
            }
        }
    }
    println!(
        "\nCrash matrix, {} ({} cells, {:.1} s):\n\n{table}",
        D::NAME,
        cells.len(),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{} cell(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}

// One test per dialect, each running the same body.
per_dialect!(crash_matrix; crash_matrix_acl: Acl, crash_matrix_hip: Hip, crash_matrix_cuda: Cuda);

// ---------------------------------------------------------------------------
// Shared events and notifies: a process killed while it holds one, or while
// it waits on one (common/cells.rs, the core's two-process protocol).

/// A shared event or a notify.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shared {
    Event,
    Notify,
}

/// Which side of a shared cell dies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Creator,
    Opener,
}

/// What the victim was doing when it was killed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Doing {
    /// It held the cell (made or opened it), nothing else pending.
    Holding,
    /// It waited on the cell for a record that had not come.
    Waiting,
}

/// One shared-cell crash cell: make, open, (wait), SIGKILL the victim; the
/// survivor keeps working (or, waiting on a dead creator's record, is told
/// `Abandoned` within a bound); only the survivor holds the cell; gc frees
/// nothing it holds; the survivor destroys it and the root is clean.
fn run_shared_cell(kind: Shared, victim: Side, doing: Doing, dir: &Path) -> Outcome {
    let root = dir.join("root");
    let mem = dir.join("memory").to_string_lossy().into_owned();
    let mut a = Worker::start("creator", common::cells::ROLE, &root, ENV);
    let mut b = Worker::start("opener", common::cells::ROLE, &root, ENV);
    let mut out = Outcome::default();
    let (made, key) = {
        let r = a.ok(if kind == Shared::Event { "event" } else { "notify" });
        let mut w = r.split_whitespace().map(str::to_owned);
        (w.next().expect("id"), w.next().expect("key"))
    };
    if kind == Shared::Notify {
        let pid = b.ok("pid");
        a.ok(&format!("trust {made} {pid}"));
    }
    let opened = b.ok(&format!("{} {key}", if kind == Shared::Event { "open" } else { "nopen" }));
    let (vw, sw, vid, sid) = match victim {
        Side::Creator => (&mut a, &mut b, made.clone(), opened.clone()),
        Side::Opener => (&mut b, &mut a, opened.clone(), made.clone()),
    };
    let survivor_pid = sw.pid();
    let wait = |id: &str, ms: u32| match kind {
        Shared::Event => format!("wait {id} {ms}"),
        Shared::Notify => format!("nwait {id} {ms}"),
    };
    let mut notes = Vec::new();
    match doing {
        Doing::Waiting => {
            if kind == Shared::Event {
                // The survivor records behind work that never ends: the victim's wait cannot end.
                sw.ok(&format!("stuck-record {sid}"));
            }
            vw.send(&wait(&vid, 60_000));
            std::thread::sleep(std::time::Duration::from_millis(150));
            out.ended = vw.kill();
        }
        Doing::Holding => {
            if victim == Side::Creator && kind == Shared::Event {
                // The dead creator leaves a record that will never complete.
                vw.ok(&format!("stuck-record {vid}"));
            }
            out.ended = vw.kill();
        }
    }
    assert_eq!(out.ended, "killed by signal 9", "the victim died of SIGKILL");
    let held: Vec<Vec<u32>> = audit::registry(&root).cells().into_iter().map(|c| c.holders).collect();
    assert_eq!(held, vec![vec![survivor_pid]], "the victim's hold went with it");
    let left = audit::gc(&root);
    assert_eq!((left.cells, left.entries, left.bytes), (0, 0, 0), "gc frees nothing the survivor holds: {left:?}");
    out.gc = "nothing (the survivor holds it)".into();

    // The survivor: a waiter on a dead creator's pending record is told, in bounded time.
    if victim == Side::Creator && doing == Doing::Holding {
        let t = std::time::Instant::now();
        let r = sw.ask(&wait(&sid, 60_000));
        assert_eq!(r, "err Abandoned", "a wait on the dead creator's cell");
        assert!(t.elapsed() < std::time::Duration::from_secs(5), "ended after {:?}", t.elapsed());
        notes.push(format!("its wait → Abandoned in {} ms", t.elapsed().as_millis()));
    } else {
        sw.ok(&format!("write {mem} 5 {sid}"));
        sw.ok(&wait(&sid, 10_000));
        assert_eq!(sw.ok(&format!("read {mem}")), "5", "the survivor's record and wait work");
        notes.push("records after a copy, waits, reads its data".into());
    }
    sw.ok(&format!("destroy {sid}"));
    notes.push("destroys it (the last holder: its file goes)".into());
    out.survivor = notes.join("; ");
    let report = audit::gc(&root);
    assert_eq!((report.cells, report.entries, report.bytes), (0, 0, 0), "nothing left for gc: {report:?}");
    out.after_gc = "no shared cell, no entry".into();
    sw.ok("pid");
    sw.finish();
    audit::assert_clean(&root, "after the survivor exited");
    out.final_state = "clean".into();
    out
}

#[test]
fn crash_matrix_shared_events() {
    if common::worker::role().is_some() {
        return;
    }
    let mut table = String::from(
        "| kind | victim | killed while | victim ended | gc right after the kill | survivor afterwards | after gc | after the survivor exits |\n|---|---|---|---|---|---|---|---|\n",
    );
    let mut failures = Vec::new();
    for kind in [Shared::Event, Shared::Notify] {
        for victim in [Side::Creator, Side::Opener] {
            for doing in [Doing::Holding, Doing::Waiting] {
                let dir = tempfile::tempdir().expect("tempdir");
                let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    run_shared_cell(kind, victim, doing, dir.path())
                }));
                let name = format!("{kind:?} | {victim:?} | {doing:?}").to_lowercase();
                match r {
                    Ok(o) => {
                        let _ = writeln!(
                            table,
                            "| {name} | {} | {} | {} | {} | {} |",
                            o.ended, o.gc, o.survivor, o.after_gc, o.final_state
                        );
                    }
                    Err(p) => {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_default();
                        let _ = writeln!(table, "| {name} | **FAIL**: {} | | | | |", msg.lines().next().unwrap_or(""));
                        failures.push(format!("{name}: {msg}"));
                    }
                }
            }
        }
    }
    println!("\nCrash matrix, shared events and notifies:\n\n{table}");
    assert!(failures.is_empty(), "{} cell(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}
