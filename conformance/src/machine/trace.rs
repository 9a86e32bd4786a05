//! `vmmkit run --trace FILE`: the journals of a run as a Chrome trace-event
//! file (the JSON object format, which Perfetto and `chrome://tracing` open).
//!
//! - a track per process (`process_name`: program and pid) and per thread;
//! - each call a complete event (`"ph": "X"`) with its arguments, the code
//!   it returned and, when it failed under a rule, the rule's id;
//! - each share an instant event (`"ph": "i"`), and from each export a flow
//!   (`"ph": "s"` … `"ph": "f"`) to every import of the same memory, so the
//!   sharing shows as arrows between the processes' tracks;
//! - each unsynchronised access an instant event on the track of each of
//!   its two sides (a stream's own track, or the host thread's), joined by
//!   an arrow;
//! - each process exit an instant event with the number of objects left.
//!
//! Timestamps are microseconds after the program started.
//!
//! The file is written as the journals are read ([`Writer`]), so building it
//! takes memory for the exports and imports, not for the calls.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Value, json};
use vmmkit_emulator::journal::{Record, ShareOp};

/// Tracks of streams (where an unsynchronised access is marked) are
/// numbered past every thread id (`pid_max` is at most 2²²).
const STREAM_TRACK: u32 = 1 << 30;

use super::report::Journal;

fn us(ts: u64, base: u64) -> f64 {
    ts.saturating_sub(base) as f64 / 1000.0
}

fn ts_of(r: &Record) -> u64 {
    match r {
        Record::Start { ts, .. }
        | Record::Share { ts, .. }
        | Record::Call { ts, .. }
        | Record::Hazard { ts, .. }
        | Record::Exit { ts, .. } => *ts,
    }
}

/// The trace of in-memory journals, as one JSON object, timed from their
/// first record.
pub fn trace(journals: &[Journal]) -> Value {
    let base = journals.iter().flat_map(|j| j.records.iter().map(ts_of)).min().unwrap_or(0);
    let mut w = Writer::new(Vec::new(), base).expect("writing to memory");
    for j in journals {
        w.process(j.pid).expect("writing to memory");
        for r in &j.records {
            w.record(r).expect("writing to memory");
        }
    }
    let (bytes, _) = w.finish().expect("writing to memory");
    serde_json::from_slice(&bytes).expect("the trace is JSON")
}

/// A call's event (`"ph": "X"`), written without building a JSON value:
/// there is one per call.
#[derive(Serialize)]
struct CallEvent<'a> {
    ph: &'static str,
    cat: &'static str,
    name: &'a str,
    pid: u32,
    tid: u32,
    ts: f64,
    dur: f64,
    args: CallArgs<'a>,
}

/// A call's arguments by name, then `returned` and `rule`.
struct CallArgs<'a> {
    args: &'a [(String, String)],
    ret: &'a str,
    rule: Option<&'a str>,
}

impl Serialize for CallArgs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.args {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("returned", self.ret)?;
        if let Some(rule) = self.rule {
            m.serialize_entry("rule", rule)?;
        }
        m.end()
    }
}

/// An export's place on the tracks: (pid, tid, ts).
type Place = (u32, u32, u64);

/// Writes the trace as the journals are read, one event at a time: the
/// [`Writer::process`] of each journal, then each of its records, then
/// [`Writer::finish`].
///
/// What it keeps: the place of each export (for the flows), the imports
/// read before their export (their flows are written at the end), and the
/// threads of the current process; nothing per call.
#[derive(Debug)]
pub struct Writer<W: Write> {
    out: W,
    base: u64,
    events: u64,
    /// Exports by root and key: a key is unique only within one root.
    exports: BTreeMap<(String, u64), Place>,
    /// Imports whose export was not read yet: (root and key, where the import is).
    waiting: Vec<((String, u64), Place)>,
    flow: u64,
    pid: u32,
    threads: BTreeSet<u32>,
    /// Whether the current process was named (its first start record).
    named: bool,
    /// The current process's last exit so far, and the objects all its
    /// exits left: a process that loaded several drop-ins writes a start
    /// and an exit from each, and is one track with one exit.
    exit: Option<(u64, usize)>,
}

impl<W: Write> Writer<W> {
    /// Starts the trace in `out`; timestamps are taken from `base`
    /// (`CLOCK_MONOTONIC` nanoseconds).
    pub fn new(mut out: W, base: u64) -> io::Result<Self> {
        out.write_all(br#"{"displayTimeUnit":"ns","traceEvents":["#)?;
        Ok(Self {
            out,
            base,
            events: 0,
            exports: BTreeMap::new(),
            waiting: Vec::new(),
            flow: 0,
            pid: 0,
            threads: BTreeSet::new(),
            named: false,
            exit: None,
        })
    }

    /// Events written so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    fn event(&mut self, e: &Value) -> io::Result<()> {
        if self.events > 0 {
            self.out.write_all(b",\n")?;
        }
        serde_json::to_writer(&mut self.out, e)?;
        self.events += 1;
        Ok(())
    }

    /// The records that follow are those of process `pid`.
    pub fn process(&mut self, pid: u32) -> io::Result<()> {
        self.end_process()?;
        self.pid = pid;
        Ok(())
    }

    fn end_process(&mut self) -> io::Result<()> {
        let pid = self.pid;
        self.named = false;
        if let Some((ts, left)) = self.exit.take() {
            let tid = self.threads.first().copied().unwrap_or(pid);
            self.event(&json!({"ph": "i", "s": "p", "cat": "process", "name": "exit", "pid": pid,
                "tid": tid, "ts": us(ts, self.base), "args": {"left unreleased": left}}))?;
        }
        for tid in std::mem::take(&mut self.threads) {
            let name = if tid == pid {
                "main".to_string()
            } else if tid > STREAM_TRACK {
                format!("stream {}", tid - STREAM_TRACK)
            } else {
                format!("thread {tid}")
            };
            self.event(&json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}))?;
        }
        Ok(())
    }

    fn flow(&mut self, key: u64, from: Place, to: Place) -> io::Result<()> {
        self.flow += 1;
        let (id, base, name) = (self.flow, self.base, format!("share {key:#x}"));
        self.event(&json!({"ph": "s", "cat": "share", "name": name, "id": id,
            "pid": from.0, "tid": from.1, "ts": us(from.2, base)}))?;
        self.event(&json!({"ph": "f", "bp": "e", "cat": "share", "name": name, "id": id,
            "pid": to.0, "tid": to.1, "ts": us(to.2, base)}))
    }

    /// One record of the current process.
    pub fn record(&mut self, r: &Record) -> io::Result<()> {
        let (pid, base) = (self.pid, self.base);
        match r {
            Record::Start { .. } if self.named => {}
            Record::Start { exe, argv, .. } => {
                self.named = true;
                let name = super::report::program_name(exe, argv);
                self.event(&json!({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                    "args": {"name": format!("{name} ({pid})")}}))?;
            }
            Record::Call { tid, ts, dur, name, args, ret, rule } => {
                self.threads.insert(*tid);
                let args = CallArgs { args, ret, rule: rule.as_deref() };
                let e = CallEvent {
                    ph: "X",
                    cat: "call",
                    name,
                    pid,
                    tid: *tid,
                    ts: us(*ts, base),
                    dur: *dur as f64 / 1000.0,
                    args,
                };
                if self.events > 0 {
                    self.out.write_all(b",\n")?;
                }
                serde_json::to_writer(&mut self.out, &e)?;
                self.events += 1;
            }
            Record::Share { tid, ts, op, key, bytes, place, call, root, .. } => {
                self.threads.insert(*tid);
                let what = match op {
                    ShareOp::Export => "export",
                    ShareOp::Import => "import",
                    ShareOp::Release => "release",
                };
                self.event(&json!({"ph": "i", "s": "t", "cat": "share", "name": what, "pid": pid,
                    "tid": tid, "ts": us(*ts, base),
                    "args": {"key": format!("{key:#018x}"), "bytes": bytes, "place": place, "call": call}}))?;
                let here = (pid, *tid, *ts);
                let at = (root.clone(), *key);
                match op {
                    ShareOp::Export => {
                        self.exports.insert(at, here);
                    }
                    ShareOp::Import => match self.exports.get(&at) {
                        Some(&from) => self.flow(*key, from, here)?,
                        None => self.waiting.push((at, here)),
                    },
                    ShareOp::Release => {}
                }
            }
            Record::Hazard { tid, ts, kind, first, second, text, .. } => {
                // Marked on the track of each side (a stream's own track,
                // or for the host the thread that found it), with an arrow
                // from the first to the second. A side in another process
                // (shared memory) is marked on that process's stream track,
                // or on its main thread for its host.
                self.flow += 1;
                let id = self.flow;
                for (i, side) in [first, second].into_iter().enumerate() {
                    let side_pid = if side.pid == 0 { pid } else { side.pid };
                    let track = match (side.stream, side_pid == pid) {
                        (0, true) => *tid,
                        (0, false) => side_pid,
                        (s, _) => STREAM_TRACK + s as u32,
                    };
                    if side_pid == pid {
                        self.threads.insert(track);
                    } else {
                        let name =
                            if side.stream == 0 { "main".to_string() } else { format!("stream {}", side.stream) };
                        self.event(&json!({"ph": "M", "name": "thread_name", "pid": side_pid, "tid": track,
                            "args": {"name": name}}))?;
                    }
                    self.event(
                        &json!({"ph": "i", "s": "t", "cat": "hazard", "name": format!("unsynchronised {kind}"),
                        "pid": side_pid, "tid": track, "ts": us(*ts, base),
                        "args": {"call": side.call, "what": side.what, "pid": side_pid, "text": text}}),
                    )?;
                    self.event(&json!({"ph": if i == 0 { "s" } else { "f" }, "bp": "e", "cat": "hazard",
                        "name": "unsynchronised", "id": id, "pid": side_pid, "tid": track, "ts": us(*ts, base)}))?;
                }
            }
            Record::Exit { ts, leaks } => {
                let left = self.exit.map_or(0, |(_, n)| n) + leaks.len();
                self.exit = Some((*ts, left));
            }
        }
        Ok(())
    }

    /// Ends the trace: the flows to imports read before their export, the
    /// closing bracket; returns the output, flushed, and the number of events.
    pub fn finish(mut self) -> io::Result<(W, u64)> {
        self.end_process()?;
        for (at, to) in std::mem::take(&mut self.waiting) {
            if let Some(&from) = self.exports.get(&at) {
                self.flow(at.1, from, to)?;
            }
        }
        self.out.write_all(b"]}\n")?;
        self.out.flush()?;
        Ok((self.out, self.events))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share(op: ShareOp, tid: u32, ts: u64) -> Record {
        Record::Share {
            tid,
            ts,
            op,
            key: 5,
            bytes: 1,
            place: "device 0".into(),
            exporter: None,
            call: String::new(),
            root: String::new(),
        }
    }

    /// Two imports of one export make two flows, each starting at the export
    /// and ending at its import, on the right tracks.
    #[test]
    fn a_flow_from_the_export_to_each_import() {
        let journals = [
            Journal { pid: 1, records: vec![share(ShareOp::Export, 1, 1000)] },
            Journal { pid: 2, records: vec![share(ShareOp::Import, 2, 3000)] },
            Journal { pid: 3, records: vec![share(ShareOp::Import, 3, 5000)] },
        ];
        let t = trace(&journals);
        let events = t["traceEvents"].as_array().unwrap();
        let of = |ph: &str| -> Vec<(u64, u64, f64)> {
            events
                .iter()
                .filter(|e| e["ph"] == ph)
                .map(|e| (e["id"].as_u64().unwrap(), e["pid"].as_u64().unwrap(), e["ts"].as_f64().unwrap()))
                .collect()
        };
        assert_eq!(of("s"), [(1, 1, 0.0), (2, 1, 0.0)]);
        assert_eq!(of("f"), [(1, 2, 2.0), (2, 3, 4.0)]);
    }
}
