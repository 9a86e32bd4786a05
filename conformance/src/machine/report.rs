//! What `vmmkit run` reports when the program ends: per process, what it
//! left unreleased at exit; across processes, who exported what to whom and
//! who held it to the end; then what gc collected. Made from the journals
//! the processes wrote ([`vmmkit_emulator::journal`]), one record at a time
//! ([`Builder`]): what it keeps grows with the processes, the exported keys
//! and their imports, and the objects left at exit, not with the calls.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use vmmkit_emulator::journal::{LeakRecord, Record, ShareOp};

use crate::ops::size;

/// The journal of one process, in memory (tests; `vmmkit run` streams the
/// files through a [`Builder`] instead).
#[derive(Debug, Clone, Default)]
pub struct Journal {
    /// Its pid.
    pub pid: u32,
    /// Its records, in the order written.
    pub records: Vec<Record>,
}

/// One process of the run that used the emulator.
#[derive(Debug, Clone, Serialize)]
pub struct Process {
    /// Its pid.
    pub pid: u32,
    /// Its parent's pid.
    pub ppid: u32,
    /// Its program's name (the executable's file name).
    pub name: String,
    /// Its arguments.
    pub argv: Vec<String>,
    /// Whether it was forked from its parent without an `exec`.
    pub forked: bool,
    /// Whether it exited through `exit` (it wrote its exit record); `false`:
    /// killed by a signal, or ended with `_exit`.
    pub exited: bool,
    /// What it left unreleased at exit.
    pub leaks: Vec<LeakRecord>,
}

/// A process's part in one shared allocation.
#[derive(Debug, Clone, Serialize)]
pub struct Holder {
    /// The process.
    pub pid: u32,
    /// The entry point it exported or imported in.
    pub call: String,
    /// Whether it still held the memory when it ended.
    pub held_at_end: bool,
}

/// Memory one process exported, and who imported it.
#[derive(Debug, Clone, Serialize)]
pub struct Shared {
    /// The emulator root it was shared in (empty: not recorded). A run's
    /// processes may use different roots, and a key is unique only within one.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub root: String,
    /// The shareable key (registry key).
    pub key: String,
    /// Bytes.
    pub bytes: u64,
    /// Where it lives.
    pub place: String,
    /// The exporter, if its journal was written (else it was exported
    /// outside this run).
    pub exporter: Option<Holder>,
    /// The importers, in the order they imported.
    pub importers: Vec<Holder>,
}

/// What gc collected after the run.
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
pub struct Collected {
    /// Dead processes whose charges were collected.
    pub processes: usize,
    /// Exported entries nobody held.
    pub entries: usize,
    /// Bytes given back.
    pub bytes: u64,
}

/// The report of one run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The command that was run.
    pub command: Vec<String>,
    /// How it ended (`exit status 0`, `killed by signal 9`).
    pub status: String,
    /// Every process that used the emulator, by pid.
    pub processes: Vec<Process>,
    /// Every allocation shared between processes.
    pub shared: Vec<Shared>,
    /// What gc collected afterwards.
    pub gc: Collected,
    /// Whether anything was left: an object at exit, or memory or an
    /// exported handle that gc had to collect.
    pub leaked: bool,
    /// The unsynchronised accesses the processes found, in their order.
    pub hazards: Vec<RunHazard>,
}

/// An unsynchronised access one process of the run found.
#[derive(Debug, Clone, Serialize)]
pub struct RunHazard {
    /// The process.
    pub pid: u32,
    /// `read-after-write`, `write-after-read`, `write-after-write`.
    pub kind: String,
    /// Both sides and what would order them, as the process printed it.
    pub text: String,
    /// The other process, when the other side was another process's
    /// access to shared memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub with: Option<u32>,
}

/// The file name of a process's executable (else of its `argv[0]`).
pub(super) fn program_name(exe: &str, argv: &[String]) -> String {
    let path = if exe.is_empty() { argv.first().map_or("", String::as_str) } else { exe };
    Path::new(path).file_name().map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// Builds the report from the journals, and what gc collected.
pub fn build(command: Vec<String>, status: String, journals: &[Journal], gc: Collected) -> Report {
    let mut b = Builder::default();
    for j in journals {
        b.process(j.pid);
        for r in &j.records {
            b.record(r);
        }
    }
    b.finish(command, status, gc)
}

/// Where a shared allocation is: its root and its key (a key is unique
/// only within one root).
type At = (String, u64);

/// The report, made from the journals one record at a time: the
/// [`Builder::process`] of each journal, then each of its records.
#[derive(Debug, Default)]
pub struct Builder {
    processes: Vec<Process>,
    /// key → shared allocation.
    shared: BTreeMap<At, Shared>,
    /// The process being read, and its holds by key (imports and exports
    /// not yet released).
    current: Option<(Process, BTreeMap<At, i64>)>,
    /// Whether the current process's start was read: a process that loads
    /// several drop-ins writes a start and an exit from each, and is one
    /// process, started at its first and ended at its last.
    started: bool,
    /// The unsynchronised accesses read so far.
    hazards: Vec<RunHazard>,
}

impl Builder {
    /// The records that follow are those of process `pid`.
    pub fn process(&mut self, pid: u32) {
        self.end_process();
        let p = Process {
            pid,
            ppid: 0,
            name: String::new(),
            argv: Vec::new(),
            forked: false,
            exited: false,
            leaks: Vec::new(),
        };
        self.current = Some((p, BTreeMap::new()));
    }

    /// One record of the current process.
    pub fn record(&mut self, r: &Record) {
        let Some((p, holds)) = self.current.as_mut() else { return };
        match r {
            Record::Start { .. } if self.started => {}
            Record::Start { ppid, exe, argv, forked, .. } => {
                self.started = true;
                p.ppid = *ppid;
                p.name = program_name(exe, argv);
                p.argv.clone_from(argv);
                p.forked = *forked;
            }
            Record::Share { op, key, bytes, place, call, root, .. } => {
                let at = (root.clone(), *key);
                let s = self.shared.entry(at.clone()).or_insert_with(|| Shared {
                    root: root.clone(),
                    key: format!("{key:#018x}"),
                    bytes: *bytes,
                    place: place.clone(),
                    exporter: None,
                    importers: Vec::new(),
                });
                let holder = Holder { pid: p.pid, call: call.clone(), held_at_end: true };
                match op {
                    ShareOp::Export => s.exporter = Some(holder),
                    ShareOp::Import => s.importers.push(holder),
                    ShareOp::Release => {}
                }
                *holds.entry(at).or_default() += if *op == ShareOp::Release { -1 } else { 1 };
            }
            Record::Call { .. } => {}
            Record::Hazard { kind, text, first, second, .. } => {
                let with = [first.pid, second.pid].into_iter().find(|&o| o != 0 && o != p.pid);
                self.hazards.push(RunHazard { pid: p.pid, kind: kind.clone(), text: text.clone(), with });
            }
            Record::Exit { leaks, .. } => {
                p.exited = true;
                p.leaks.extend(leaks.iter().cloned());
            }
        }
    }

    fn end_process(&mut self) {
        let Some((p, holds)) = self.current.take() else { return };
        self.started = false;
        for (key, n) in holds {
            let Some(s) = self.shared.get_mut(&key) else { continue };
            let mine = s.exporter.iter_mut().chain(s.importers.iter_mut()).filter(|h| h.pid == p.pid);
            for h in mine {
                h.held_at_end = n > 0;
            }
        }
        self.processes.push(p);
    }

    /// The report, with what gc collected.
    pub fn finish(mut self, command: Vec<String>, status: String, gc: Collected) -> Report {
        self.end_process();
        let processes = self.processes;
        let leaked = processes.iter().any(|p| !p.leaks.is_empty()) || gc.bytes > 0 || gc.entries > 0;
        let hazards = self.hazards;
        Report { command, status, processes, shared: self.shared.into_values().collect(), gc, leaked, hazards }
    }
}

impl Report {
    fn name_of(&self, pid: u32) -> String {
        match self.processes.iter().find(|p| p.pid == pid) {
            Some(p) => format!("{pid} ({})", p.name),
            None => pid.to_string(),
        }
    }

    /// The report for people.
    pub fn render(&self) -> String {
        let mut o = String::new();
        let n = self.processes.len();
        let _ =
            writeln!(o, "vmmkit run: {}: {}; {n} process(es) used the emulator", self.command.join(" "), self.status);
        for p in &self.processes {
            let who = format!("process {}", self.name_of(p.pid));
            let forked = if p.forked { format!(", forked from {}", p.ppid) } else { String::new() };
            if !p.exited {
                let _ =
                    writeln!(o, "  {who}{forked}: ended without exit (a signal, or _exit); gc collects what it held");
            } else if p.leaks.is_empty() {
                let _ = writeln!(o, "  {who}{forked}: released everything");
            } else {
                let bytes: u64 = p.leaks.iter().map(|l| l.bytes).sum();
                let _ = writeln!(
                    o,
                    "  {who}{forked}: left {} object(s) unreleased at exit ({} in all):",
                    p.leaks.len(),
                    size(bytes)
                );
                for l in &p.leaks {
                    let by = if l.created_by.is_empty() { "(not through an entry point)" } else { &l.created_by };
                    let _ = writeln!(o, "      {:<11} {} ({}), from {by}", l.kind, l.what, size(l.bytes));
                }
            }
        }
        if !self.shared.is_empty() {
            let _ = writeln!(o, "  shared memory:");
        }
        let several_roots = self.shared.iter().any(|s| s.root != self.shared[0].root);
        for s in &self.shared {
            let exporter = match &s.exporter {
                Some(h) => format!("exported by {} in {}", self.name_of(h.pid), h.call),
                None => "exported outside this run".into(),
            };
            let root = if several_roots { format!(" in root {}", s.root) } else { String::new() };
            let _ = writeln!(o, "    {}{root} ({} on {}): {exporter}", s.key, size(s.bytes), s.place);
            for h in &s.importers {
                let _ = writeln!(o, "      imported by {} in {}", self.name_of(h.pid), h.call);
            }
            let held: Vec<String> =
                s.exporter.iter().chain(&s.importers).filter(|h| h.held_at_end).map(|h| self.name_of(h.pid)).collect();
            if held.is_empty() {
                let _ = writeln!(o, "      released by every holder");
            } else {
                let _ = writeln!(o, "      still held at the end by {}", held.join(", "));
            }
        }
        let g = &self.gc;
        if g.bytes == 0 && g.entries == 0 {
            let _ = writeln!(o, "  gc: nothing left to collect");
        } else {
            let _ = writeln!(
                o,
                "  gc: freed {} from {} dead process(es) and {} unheld exported handle(s)",
                size(g.bytes),
                g.processes,
                g.entries
            );
        }
        if !self.hazards.is_empty() {
            let _ = writeln!(o, "  {} unsynchronised access(es):", self.hazards.len());
        }
        for h in &self.hazards {
            match h.with {
                Some(w) => {
                    let _ =
                        writeln!(o, "    process {} with process {}: {}", self.name_of(h.pid), self.name_of(w), h.text);
                }
                None => {
                    let _ = writeln!(o, "    process {}: {}", self.name_of(h.pid), h.text);
                }
            }
        }
        let verdict = if self.leaked { "something was left unreleased" } else { "nothing leaked" };
        let _ = writeln!(o, "vmmkit run: {verdict}");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(op: ShareOp, key: u64, call: &str) -> Record {
        Record::Share {
            tid: 1,
            ts: 1,
            op,
            key,
            bytes: 2 << 20,
            place: "device 0".into(),
            exporter: None,
            call: call.into(),
            root: "/r".into(),
        }
    }

    fn start(pid: u32) -> Record {
        Record::Start { pid, ppid: 1, ts: 0, exe: format!("/bin/p{pid}"), argv: vec![], forked: false }
    }

    /// The journal of `pid`: it starts, shares key 7 by `op` in `call`, and,
    /// when `exits`, releases it and exits (else it was killed).
    fn journal(pid: u32, op: ShareOp, call: &str, exits: bool) -> Journal {
        let mut records = vec![start(pid), share(op, 7, call)];
        if exits {
            records.extend([share(ShareOp::Release, 7, "aclrtFreePhysical"), Record::Exit { ts: 2, leaks: vec![] }]);
        }
        Journal { pid, records }
    }

    /// The exporter released, one importer released, the other held to its
    /// (killed) end: the report says so, per holder, and counts the leak.
    #[test]
    fn who_held_what_at_the_end() {
        let journals = [
            journal(10, ShareOp::Export, "aclrtMemExportToShareableHandle", true),
            journal(11, ShareOp::Import, "aclrtMemImportFromShareableHandle", true),
            journal(12, ShareOp::Import, "aclrtMemImportFromShareableHandle", false),
        ];
        let gc = Collected { processes: 1, entries: 1, bytes: 2 << 20 };
        let r = build(vec!["prog".into()], "exit status 0".into(), &journals, gc);
        assert_eq!(r.shared.len(), 1);
        let s = &r.shared[0];
        assert!(!s.exporter.as_ref().unwrap().held_at_end);
        let held: Vec<(u32, bool)> = s.importers.iter().map(|h| (h.pid, h.held_at_end)).collect();
        assert_eq!(held, [(11, false), (12, true)]);
        assert!(r.leaked, "gc had to collect");
        let text = r.render();
        assert!(text.contains("process 12 (p12): ended without exit"), "{text}");
        assert!(text.contains("still held at the end by 12 (p12)"), "{text}");
        assert!(text.contains("gc: freed 2 MiB from 1 dead process(es)"), "{text}");
        let clean = build(vec![], String::new(), &journals[..2], Collected::default());
        assert!(!clean.leaked && clean.render().contains("released by every holder"));
    }

    /// A process that loaded both drop-ins wrote two starts and two exits:
    /// it is one process, with the leaks of both.
    #[test]
    fn one_process_however_many_drop_ins() {
        let leak = |by: &str| LeakRecord {
            kind: "Physical".into(),
            what: "h".into(),
            bytes: 1,
            key: None,
            created_by: by.into(),
        };
        let records = vec![
            start(20),
            start(20),
            Record::Exit { ts: 3, leaks: vec![leak("aclrtMallocPhysical")] },
            Record::Exit { ts: 4, leaks: vec![leak("hipMalloc")] },
        ];
        let r = build(vec![], String::new(), &[Journal { pid: 20, records }], Collected::default());
        assert_eq!(r.processes.len(), 1);
        let by: Vec<&str> = r.processes[0].leaks.iter().map(|l| l.created_by.as_str()).collect();
        assert_eq!(by, ["aclrtMallocPhysical", "hipMalloc"]);
        assert_eq!(r.processes[0].name, "p20");
    }

    /// The same key in two roots is two shared allocations, each named by its root.
    #[test]
    fn shared_memory_is_keyed_by_root_and_key() {
        let in_root = |root: &str, op, call: &str| match share(op, 7, call) {
            Record::Share { tid, ts, op, key, bytes, place, exporter, call, .. } => {
                Record::Share { tid, ts, op, key, bytes, place, exporter, call, root: root.into() }
            }
            r => r,
        };
        let journals = [
            Journal { pid: 1, records: vec![start(1), in_root("/a", ShareOp::Export, "hipIpcGetMemHandle")] },
            Journal { pid: 2, records: vec![start(2), in_root("/b", ShareOp::Export, "hipIpcGetMemHandle")] },
            Journal { pid: 3, records: vec![start(3), in_root("/b", ShareOp::Import, "hipIpcOpenMemHandle")] },
        ];
        let r = build(vec![], String::new(), &journals, Collected::default());
        let got: Vec<(&str, u32, usize)> =
            r.shared.iter().map(|s| (s.root.as_str(), s.exporter.as_ref().unwrap().pid, s.importers.len())).collect();
        assert_eq!(got, [("/a", 1, 0), ("/b", 2, 1)]);
        assert!(r.render().contains("0x0000000000000007 in root /b"), "{}", r.render());
    }
}
