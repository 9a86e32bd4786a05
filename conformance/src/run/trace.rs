//! `vmmkit run --trace FILE`: the journals of a run as a Chrome trace-event
//! file (the JSON object format, which Perfetto and `chrome://tracing` open).
//!
//! - a track per process (`process_name`: program and pid) and per thread;
//! - each call a complete event (`"ph": "X"`) with its arguments, the code
//!   it returned and, when it failed under a rule, the rule's id;
//! - each share an instant event (`"ph": "i"`), and from each export a flow
//!   (`"ph": "s"` … `"ph": "f"`) to every import of the same memory, so the
//!   sharing shows as arrows between the processes' tracks;
//! - each process exit an instant event with the number of objects left.
//!
//! Timestamps are microseconds after the first record of the run.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use vmmkit_emulator::journal::{Record, ShareOp};

use super::report::Journal;

fn us(ts: u64, base: u64) -> f64 {
    ts.saturating_sub(base) as f64 / 1000.0
}

fn ts_of(r: &Record) -> u64 {
    match r {
        Record::Start { ts, .. } | Record::Share { ts, .. } | Record::Call { ts, .. } | Record::Exit { ts, .. } => *ts,
    }
}

/// The trace of a run, as one JSON object.
pub fn trace(journals: &[Journal]) -> Value {
    let base = journals.iter().flat_map(|j| j.records.iter().map(ts_of)).min().unwrap_or(0);
    let mut events = Vec::new();
    // Exports by key: (pid, tid, ts).
    let mut exports: BTreeMap<(&str, u64), (u32, u32, u64)> = BTreeMap::new();
    for j in journals {
        for r in &j.records {
            if let Record::Share { op: ShareOp::Export, key, tid, ts, root, .. } = r {
                exports.insert((root.as_str(), *key), (j.pid, *tid, *ts));
            }
        }
    }
    let mut flow = 0u64;
    for j in journals {
        let pid = j.pid;
        let mut threads = BTreeSet::new();
        // One track per process, however many drop-ins it loaded (each
        // writes its own start and exit records): named at its first start,
        // ended at its last exit.
        let last_exit = j.records.iter().rposition(|r| matches!(r, Record::Exit { .. }));
        let left: usize =
            j.records.iter().map(|r| if let Record::Exit { leaks, .. } = r { leaks.len() } else { 0 }).sum();
        let mut named = false;
        for (i, r) in j.records.iter().enumerate() {
            match r {
                Record::Start { .. } if named => {}
                Record::Exit { .. } if Some(i) != last_exit => {}
                Record::Start { exe, argv, .. } => {
                    named = true;
                    let name = super::report::program_name(exe, argv);
                    events.push(json!({"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                        "args": {"name": format!("{name} ({pid})")}}));
                }
                Record::Call { tid, ts, dur, name, args, ret, rule } => {
                    threads.insert(*tid);
                    let mut a: serde_json::Map<String, Value> =
                        args.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect();
                    a.insert("returned".into(), ret.as_str().into());
                    if let Some(rule) = rule {
                        a.insert("rule".into(), rule.as_str().into());
                    }
                    events.push(json!({"ph": "X", "cat": "call", "name": name, "pid": pid, "tid": tid,
                        "ts": us(*ts, base), "dur": *dur as f64 / 1000.0, "args": a}));
                }
                Record::Share { tid, ts, op, key, bytes, place, call, root, .. } => {
                    threads.insert(*tid);
                    let what = match op {
                        ShareOp::Export => "export",
                        ShareOp::Import => "import",
                        ShareOp::Release => "release",
                    };
                    events.push(json!({"ph": "i", "s": "t", "cat": "share", "name": what, "pid": pid,
                        "tid": tid, "ts": us(*ts, base),
                        "args": {"key": format!("{key:#018x}"), "bytes": bytes, "place": place, "call": call}}));
                    if *op == ShareOp::Import
                        && let Some(&(epid, etid, ets)) = exports.get(&(root.as_str(), *key))
                    {
                        flow += 1;
                        let name = format!("share {key:#x}");
                        events.push(json!({"ph": "s", "cat": "share", "name": name, "id": flow,
                            "pid": epid, "tid": etid, "ts": us(ets, base)}));
                        events.push(json!({"ph": "f", "bp": "e", "cat": "share", "name": name, "id": flow,
                            "pid": pid, "tid": tid, "ts": us(*ts, base)}));
                    }
                }
                Record::Exit { ts, .. } => {
                    let tid = threads.first().copied().unwrap_or(pid);
                    events.push(json!({"ph": "i", "s": "p", "cat": "process", "name": "exit", "pid": pid,
                        "tid": tid, "ts": us(*ts, base), "args": {"left unreleased": left}}));
                }
            }
        }
        for tid in threads {
            let name = if tid == pid { "main".to_string() } else { format!("thread {tid}") };
            events.push(json!({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid, "args": {"name": name}}));
        }
    }
    json!({"traceEvents": events, "displayTimeUnit": "ns"})
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
