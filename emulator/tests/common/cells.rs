//! A worker protocol over the core's shared events and notifies (role
//! `cells`), for the tests with real processes: `shared_events.rs` and the
//! crash matrix. Each command is one line, each reply `ok [VALUES]` or
//! `err <CoreError>`; the memory that copies write is a file both map.

use std::os::fd::AsRawFd;
use std::sync::Mutex;
use std::time::Duration;

use vmmkit_emulator::core::{Emulator, EventFlags, EventId, StreamId, StreamKind, ValueCmp, Work, emulator};

/// The role name.
pub const ROLE: &str = "cells";

/// Bytes of the memory A writes and B reads (a file both map).
pub const LEN: usize = 4096;

/// Memory and buffers a worker keeps until it exits (work on its streams
/// points into them).
static KEEP: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());
/// A word no one writes: a wait on it never ends.
static NEVER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Maps `LEN` bytes of the file `path` shared; returns its address (kept mapped).
fn map_shared(path: &str) -> usize {
    let f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).expect("open");
    f.set_len(LEN as u64).expect("size");
    let m = memmap2::MmapOptions::new().len(LEN).map_raw(f.as_raw_fd()).expect("map");
    let addr = m.as_mut_ptr() as usize;
    std::mem::forget(m);
    addr
}

fn id(s: &str) -> EventId {
    EventId(s.parse().expect("event id"))
}

fn answer(r: Result<String, vmmkit_emulator::core::CoreError>) -> String {
    match r {
        Ok(s) if s.is_empty() => "ok".into(),
        Ok(s) => format!("ok {s}"),
        Err(e) => format!("err {e:?}"),
    }
}

/// One command of the worker protocol.
fn command(e: &Emulator, stream: StreamId, line: &str) -> String {
    let w: Vec<&str> = line.split_whitespace().collect();
    let timeout = |s: &str| Some(Duration::from_millis(s.parse().expect("ms")));
    answer(match w.as_slice() {
        ["event"] => {
            let flags = EventFlags { interprocess: true, ..EventFlags::default() };
            e.event_create(flags).and_then(|id| Ok(format!("{} {}", id.0, e.event_export(id)?)))
        }
        ["local-event"] => e.event_create(EventFlags::default()).map(|id| id.0.to_string()),
        ["export", ev] => e.event_export(id(ev)).map(|k| k.to_string()),
        ["open", key] => e.event_open(key.parse().expect("key")).map(|id| id.0.to_string()),
        ["notify"] => e.notify_create().and_then(|id| Ok(format!("{} {}", id.0, e.notify_export(id, false)?))),
        ["trust", ev, pid] => e.notify_trust(id(ev), &[pid.parse().expect("pid")]).map(|()| String::new()),
        ["nopen", key] => e.notify_open(key.parse().expect("key")).map(|id| id.0.to_string()),
        ["destroy", ev] => e.event_destroy(id(ev)).map(|()| String::new()),
        // Copies BYTE into the shared memory on the stream, then records event EV after it.
        ["write", path, byte, ev] => {
            let dst = map_shared(path);
            let src = vec![byte.parse::<u8>().expect("byte"); LEN].leak();
            KEEP.lock().unwrap().push((dst, src.as_ptr() as usize));
            let w = Work::Copy { dst, src: src.as_ptr() as usize, len: LEN };
            // SAFETY: both ranges stay mapped (leaked) until the process exits.
            unsafe { e.enqueue(stream, w) }.and_then(|()| e.event_record(id(ev), stream)).map(|()| String::new())
        }
        // Records EV behind work that never ends (the record never completes).
        ["stuck-record", ev] => {
            let w = Work::WaitValue {
                addr: NEVER.as_ptr() as usize,
                value: 1,
                mask: u64::MAX,
                width: 8,
                cmp: ValueCmp::Eq,
            };
            let s = e.stream_create(0, StreamKind::NonBlocking);
            // SAFETY: NEVER is a static.
            unsafe { e.enqueue(s, w) }.and_then(|()| e.event_record(id(ev), s)).map(|()| String::new())
        }
        ["read", path] => {
            let at = map_shared(path);
            // SAFETY: `at` maps LEN ≥ 1 bytes (kept mapped).
            Ok(unsafe { std::ptr::read_volatile(at as *const u8) }.to_string())
        }
        ["wait", ev, ms] => e.event_synchronize(id(ev), timeout(ms)).map(|()| String::new()),
        ["nwait", ev, ms] => e
            .notify_wait_reset(id(ev), stream, timeout(ms))
            .and_then(|()| e.stream_synchronize(stream, Some(Duration::from_secs(30))))
            .map(|()| String::new()),
        ["query", ev] => e.event_query(id(ev)).map(|done| u8::from(done).to_string()),
        // A stream of this worker waits for EV, then a synchronize of it (bounded by MS).
        ["swait", ev, ms] => {
            let s = e.stream_create(0, StreamKind::NonBlocking);
            e.stream_wait_event(s, id(ev)).and_then(|()| e.stream_synchronize(s, timeout(ms))).map(|()| String::new())
        }
        ["pid"] => Ok(std::process::id().to_string()),
        _ => panic!("unknown command {line}"),
    })
}

pub fn serve() {
    let e = emulator().expect("emulator");
    let stream = e.stream_create(0, StreamKind::NonBlocking);
    while let Some(line) = super::next_command() {
        super::reply(command(e, stream, &line));
    }
}
