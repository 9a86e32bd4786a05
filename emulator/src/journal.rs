//! The journal of a process under `vmmkit run`: one JSON record a line in
//! `$VMMKIT_JOURNAL/<pid>.jsonl`, from which `vmmkit run` makes its leak
//! report and its trace.
//!
//! | record | when |
//! |---|---|
//! | [`Record::Start`] | the first entry point a process calls (and the first after a `fork`) |
//! | [`Record::Share`] | an export, an import (a new hold on another process's memory), the release of either |
//! | [`Record::Call`] | every entry point, with arguments, code, duration and rule, when `VMMKIT_JOURNAL_CALLS=1` |
//! | [`Record::Hazard`] | an unsynchronised access: both sides, their streams, the calls that enqueued them |
//! | [`Record::Exit`] | process exit (`atexit`), with what the process never released |
//!
//! Each record is one `write(2)` to a file opened with `O_APPEND`, so lines
//! of several threads never interleave and a process killed with SIGKILL
//! leaves whole lines (a missing `exit` record says it was killed).
//! Timestamps are `CLOCK_MONOTONIC` nanoseconds, one clock for all processes.
//!
//! Without `VMMKIT_JOURNAL` nothing is written, and an entry point pays one
//! relaxed load.

use std::cell::Cell;
use std::fmt::Debug;
use std::fs::File;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use vmmkit_sys::rule::Rule;

use crate::registry::Place;

/// The directory the journal is written to (`vmmkit run` sets it).
pub const DIR_ENV: &str = "VMMKIT_JOURNAL";
/// `1`: the journal also records every call (`vmmkit run --trace`).
pub const CALLS_ENV: &str = "VMMKIT_JOURNAL_CALLS";

/// One line of a journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "ev", rename_all = "snake_case")]
pub enum Record {
    /// The process started using the emulator.
    Start {
        /// Its pid.
        pid: u32,
        /// Its parent's pid.
        ppid: u32,
        /// When.
        ts: u64,
        /// Its executable (`/proc/self/exe`).
        exe: String,
        /// Its arguments.
        argv: Vec<String>,
        /// Set when this process was forked from `ppid` after that one
        /// started using the emulator (it has a copy of the parent's tables).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        forked: bool,
    },
    /// Memory was shared or a share released.
    Share {
        /// The thread.
        tid: u32,
        /// When.
        ts: u64,
        /// What happened.
        op: ShareOp,
        /// The registry key (shareable handle) of the memory.
        key: u64,
        /// Its size.
        bytes: u64,
        /// Where it lives (`device 0`, `host 0`).
        place: String,
        /// For an import: the exporting process.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exporter: Option<u32>,
        /// The entry point it happened in.
        call: String,
        /// The emulator root it happened in (a run may give its processes
        /// different roots; a key is unique only within one).
        #[serde(default, skip_serializing_if = "String::is_empty")]
        root: String,
    },
    /// An entry point returned.
    Call {
        /// The thread.
        tid: u32,
        /// When it was entered.
        ts: u64,
        /// How long it took, in nanoseconds.
        dur: u64,
        /// Its C name.
        name: String,
        /// Its arguments, by name, as the emulator's log prints them.
        args: Vec<(String, String)>,
        /// What it returned.
        ret: String,
        /// The rule it reported broken, if it failed under one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
    },
    /// Two accesses raced: neither was ordered before the other
    /// (`core/hazard.rs`). Each side names its stream (0: the host), the
    /// entry point that enqueued it and what it did.
    Hazard {
        /// The thread that found it.
        tid: u32,
        /// When.
        ts: u64,
        /// `read-after-write`, `write-after-read`, `write-after-write`.
        kind: String,
        /// The first byte both touch.
        addr: u64,
        /// The access made (or enqueued) first.
        first: HazardSide,
        /// The access that found it.
        second: HazardSide,
        /// The whole report, as printed.
        text: String,
    },
    /// The process exited (through `exit`, not a signal).
    Exit {
        /// When.
        ts: u64,
        /// What it held and never released.
        leaks: Vec<LeakRecord>,
    },
}

/// One side of a [`Record::Hazard`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HazardSide {
    /// The stream (0: the host).
    pub stream: u64,
    /// The process.
    pub pid: u32,
    /// Whether it wrote.
    pub write: bool,
    /// The first address.
    pub addr: u64,
    /// Bytes.
    pub len: u64,
    /// The entry point that enqueued it (or made it, for the host).
    pub call: String,
    /// What it did (`copy`, `fill`, `host read`, …).
    pub what: String,
}

impl HazardSide {
    fn of(a: &crate::core::hazard::Access) -> Self {
        Self {
            stream: match a.agent {
                crate::core::hazard::Agent::Host => 0,
                crate::core::hazard::Agent::Stream(s) => s.0,
            },
            pid: a.pid,
            write: a.write,
            addr: a.addr as u64,
            len: a.len as u64,
            call: a.call.into(),
            what: a.what.into(),
        }
    }
}

/// The journal as the core's observer: registered by [`init`].
struct Journal;

impl crate::core::Observer for Journal {
    fn share(&self, op: ShareOp, key: u64, bytes: u64, place: Place, exporter: Option<u32>) {
        share(op, key, bytes, place, exporter);
    }

    fn hazard(&self, h: &crate::core::Hazard) {
        hazard(h);
    }
}

/// Records an unsynchronised access.
fn hazard(h: &crate::core::Hazard) {
    write(|| {
        Some(Record::Hazard {
            tid: tid(),
            ts: now(),
            kind: h.kind().into(),
            addr: h.addr as u64,
            first: HazardSide::of(&h.first),
            second: HazardSide::of(&h.second),
            text: h.to_string(),
        })
    });
}

pub use crate::core::ShareOp;

/// One object a process left unreleased, in a journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeakRecord {
    /// Its kind (`Physical`, `Export`, `Import`, `Retain`, `IpcOpen`, …).
    pub kind: String,
    /// Address or handle, size, place, references.
    pub what: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The shareable key, for exported or imported memory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<u64>,
    /// The entry point that created it.
    pub created_by: String,
}

/// Whether records are written. Set once, by [`init`].
static ON: AtomicBool = AtomicBool::new(false);
/// Whether calls are recorded too.
static CALLS: AtomicBool = AtomicBool::new(false);
/// The directory, and the file of the process that opened it (a forked
/// child opens its own).
static SINK: Mutex<Option<Sink>> = Mutex::new(None);

#[derive(Debug)]
struct Sink {
    dir: PathBuf,
    file: Option<(u32, File)>,
}

thread_local! {
    /// The rule the calling thread's last failing call named.
    static RULE: Cell<Option<&'static Rule>> = const { Cell::new(None) };
}

/// Reads `VMMKIT_JOURNAL` and `VMMKIT_JOURNAL_CALLS`, and starts the journal
/// when the first is set. Called once per process, before its first call.
pub(crate) fn init() {
    let Some(dir) = std::env::var_os(DIR_ENV).filter(|d| !d.is_empty()) else { return };
    *lock() = Some(Sink { dir: dir.into(), file: None });
    CALLS.store(std::env::var(CALLS_ENV).is_ok_and(|v| v == "1"), Ordering::Relaxed);
    ON.store(true, Ordering::Release);
    crate::core::observe(&Journal);
    write_exit_at_exit();
    write(|| None);
}

fn lock() -> std::sync::MutexGuard<'static, Option<Sink>> {
    SINK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Nanoseconds of `CLOCK_MONOTONIC`.
pub fn now() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

fn tid() -> u32 {
    rustix::thread::gettid().as_raw_nonzero().get() as u32
}

/// Appends the record `make` gives (nothing if `None`), after the `start`
/// record of this process if its file is not open yet. Failures to write
/// are ignored: the journal must never change what a call returns.
fn write(make: impl FnOnce() -> Option<Record>) {
    if !ON.load(Ordering::Relaxed) {
        return;
    }
    let pid = std::process::id();
    let mut sink = lock();
    let Some(sink) = sink.as_mut() else { return };
    let mut lines = String::new();
    let fresh = !matches!(&sink.file, Some((p, _)) if *p == pid);
    if fresh {
        let forked = sink.file.is_some();
        let path = sink.dir.join(format!("{pid}.jsonl"));
        let Ok(file) = File::options().create(true).append(true).open(&path) else { return };
        sink.file = Some((pid, file));
        push(&mut lines, &start(pid, forked));
    }
    if let Some(r) = make() {
        push(&mut lines, &r);
    }
    if let Some((_, file)) = sink.file.as_mut()
        && !lines.is_empty()
    {
        let _ = file.write_all(lines.as_bytes());
    }
}

fn push(lines: &mut String, r: &Record) {
    if let Ok(s) = serde_json::to_string(r) {
        lines.push_str(&s);
        lines.push('\n');
    }
}

fn start(pid: u32, forked: bool) -> Record {
    Record::Start {
        pid,
        ppid: rustix::process::getppid().map_or(0, |p| p.as_raw_nonzero().get() as u32),
        ts: now(),
        exe: std::fs::read_link("/proc/self/exe").map(|p| p.display().to_string()).unwrap_or_default(),
        argv: std::env::args_os().map(|a| a.to_string_lossy().into_owned()).collect(),
        forked,
    }
}

/// Records a share operation on `key`.
fn share(op: ShareOp, key: u64, bytes: u64, place: Place, exporter: Option<u32>) {
    write(|| {
        Some(Record::Share {
            tid: tid(),
            ts: now(),
            op,
            key,
            bytes,
            place: place.to_string(),
            exporter,
            call: crate::core::thread::current_call().into(),
            root: crate::core::running().map(|e| e.config().root.display().to_string()).unwrap_or_default(),
        })
    });
}

/// Notes the rule a failing call named, for its `call` record.
pub(crate) fn note_rule(rule: Option<&'static Rule>) {
    if CALLS.load(Ordering::Relaxed) {
        RULE.with(|r| r.set(rule));
    }
}

/// A call being recorded: made by [`begin`] when calls are journaled.
#[derive(Debug)]
pub struct CallRecord {
    ts: u64,
}

/// Starts recording a call, when calls are journaled (one relaxed load
/// otherwise, inlined into every entry point).
#[inline]
pub fn begin() -> Option<CallRecord> {
    if CALLS.load(Ordering::Relaxed) { Some(CallRecord::start()) } else { None }
}

impl CallRecord {
    #[cold]
    fn start() -> Self {
        RULE.with(|r| r.set(None));
        Self { ts: now() }
    }

    /// Writes the `call` record of entry point `name`.
    pub fn end(self, name: &str, args: &[(&str, &dyn Debug)], ret: &dyn Debug) {
        let dur = now().saturating_sub(self.ts);
        write(|| {
            Some(Record::Call {
                tid: tid(),
                ts: self.ts,
                dur,
                name: name.into(),
                args: args.iter().map(|(n, v)| ((*n).into(), format!("{v:?}"))).collect(),
                ret: format!("{ret:?}"),
                rule: RULE.with(Cell::take).map(|r| r.id.as_str().into()),
            })
        });
    }
}

/// Writes the `exit` record when the process exits.
fn write_exit_at_exit() {
    extern "C" fn at_exit() {
        // A child forked after its parent started has a copy of the parent's
        // tables: what they hold is the parent's to release (and every call
        // it made was refused, crate::fork). One that never called an entry
        // point itself is not a user of the emulator.
        let me = std::process::id();
        let own = crate::core::running().is_some() && !crate::core::is_fork_of_started();
        if !own && !lock().as_ref().is_some_and(|s| matches!(&s.file, Some((p, _)) if *p == me)) {
            return;
        }
        write(|| {
            let leaks = if own { crate::leaks::report() } else { Vec::new() };
            let leaks = leaks
                .into_iter()
                .map(|l| LeakRecord {
                    kind: format!("{:?}", l.kind),
                    what: l.what,
                    bytes: l.bytes,
                    key: l.key,
                    created_by: l.created_by.into(),
                })
                .collect();
            Some(Record::Exit { ts: now(), leaks })
        });
    }
    #[allow(unsafe_code)] // the exit handler
    // SAFETY: `at_exit` is a plain function with no arguments; registering
    // it has no other effect.
    let _ = unsafe { libc::atexit(at_exit) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The records read back as they were written (the format `vmmkit run`
    /// parses), with optional fields left out when empty.
    #[test]
    fn records_round_trip() {
        let records = [
            Record::Start { pid: 7, ppid: 1, ts: 5, exe: "/bin/a".into(), argv: vec!["a".into()], forked: false },
            Record::Share {
                tid: 7,
                ts: 6,
                op: ShareOp::Import,
                key: 0x1_0000_0002,
                bytes: 2 << 20,
                place: "device 1".into(),
                exporter: Some(8),
                call: "aclrtMemImportFromShareableHandle".into(),
                root: "/dev/shm/r".into(),
            },
            Record::Call {
                tid: 7,
                ts: 6,
                dur: 100,
                name: "aclrtMapMem".into(),
                args: vec![("virPtr".into(), "0x1000".into())],
                ret: "507899".into(),
                rule: Some("ACL-MAP-009".into()),
            },
            Record::Exit {
                ts: 9,
                leaks: vec![LeakRecord {
                    kind: "Physical".into(),
                    what: "handle 0x1".into(),
                    bytes: 2 << 20,
                    key: None,
                    created_by: "aclrtMallocPhysical".into(),
                }],
            },
        ];
        for r in records {
            let line = serde_json::to_string(&r).unwrap();
            assert!(!line.contains("forked") && !line.contains("\"key\":null"), "{line}");
            assert_eq!(serde_json::from_str::<Record>(&line).unwrap(), r, "{line}");
        }
    }
}
