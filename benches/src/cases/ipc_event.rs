//! A cross-process event from signal to wake: a ping-pong between this
//! process and a peer over two events shared across processes (the core's
//! interprocess events, `vmmkit_emulator::core`), each side recording its
//! event once the other's has woken it. One iteration is one round trip:
//! two signals, two wakes. Both processes run the `eager` schedule, so a
//! record completes in the recording thread (under `async` it completes on
//! the stream's worker thread: one more thread hop, the streams' benches).
//!
//! Floor: the same ping-pong on two words of a page both processes map
//! (a file of the root's file system), with `FUTEX_WAKE` and `FUTEX_WAIT`:
//! per round trip two wakes, and two waits that sleep.
//!
//! The peer is the bench peer executable started with
//! [`ROLE_ENV`] set; it follows until its stdin closes.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use rustix::thread::futex;
use vmmkit_emulator::Schedule;
use vmmkit_emulator::core::{Emulator, EventFlags, EventId, StreamId, StreamKind, cell::Cell, emulator};

use super::{Entry, Env};
use crate::error::{BenchError, Result};

/// The group.
pub const GROUP: &str = "ipc_event";
/// Set on the bench peer executable to make it this bench's peer:
/// `event:<schedule>` or `futex:<path>`.
pub const ROLE_ENV: &str = "VMMKIT_BENCH_IPC_EVENT_ROLE";
/// How long one wait may take before the bench fails.
const PATIENCE: Duration = Duration::from_secs(10);

/// The entries: round trips over shared events, and the floor.
///
/// # Errors
/// None here; the peers start at the first run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    if !env.backends().iter().any(|b| b.rt().backend().is_emulator()) {
        return Ok(Vec::new()); // the core's events exist only on the emulator
    }
    let mut out = Vec::new();
    let mut pair: Option<EventPair> = None;
    out.push(Entry::new(GROUP, "emulator", "round trip", move |n| {
        if pair.is_none() {
            pair = Some(EventPair::start(env.peer_exe(), env.root(), "eager")?);
        }
        pair.as_mut().expect("set above").round_trips(n)
    }));
    let mut floor: Option<FutexPair> = None;
    out.push(Entry::new(GROUP, "floor", "round trip", move |n| {
        if floor.is_none() {
            floor = Some(FutexPair::start(env.peer_exe(), env.root(), env.floor_dir())?);
        }
        floor.as_mut().expect("set above").round_trips(n)
    }));
    Ok(out)
}

fn peer_err(what: impl std::fmt::Display) -> BenchError {
    BenchError::Peer(format!("ipc_event peer: {what}"))
}

/// A peer process and the pipes to it.
struct PeerProc {
    child: Child,
    to: ChildStdin,
    from: BufReader<ChildStdout>,
}

impl PeerProc {
    fn spawn(exe: &Path, root: &Path, role: &str) -> Result<Self> {
        let mut child = Command::new(exe)
            .env(ROLE_ENV, role)
            .env("VMMKIT_ROOT", root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| peer_err(format!("start {}: {e}", exe.display())))?;
        let to = child.stdin.take().ok_or_else(|| peer_err("no stdin"))?;
        let from = BufReader::new(child.stdout.take().ok_or_else(|| peer_err("no stdout"))?);
        Ok(Self { child, to, from })
    }

    fn line(&mut self, out: &str) -> Result<String> {
        writeln!(self.to, "{out}").and_then(|()| self.to.flush()).map_err(peer_err)?;
        let mut got = String::new();
        self.from.read_line(&mut got).map_err(peer_err)?;
        if got.is_empty() {
            return Err(peer_err("ended"));
        }
        Ok(got.trim().to_string())
    }
}

impl Drop for PeerProc {
    fn drop(&mut self) {
        // Ours: the peer we started, by its own handle.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// This side of the event ping-pong: our `ping`, the peer's `pong`.
struct EventPair {
    e: &'static Emulator,
    stream: StreamId,
    ping: EventId,
    pong: EventId,
    pong_cell: Arc<Cell>,
    _peer: PeerProc,
}

fn core_err(e: vmmkit_emulator::core::CoreError) -> BenchError {
    BenchError::Check(format!("ipc_event: {e}"))
}

fn schedule_of(name: &str) -> Schedule {
    if name == "eager" { Schedule::Eager } else { Schedule::Async }
}

impl EventPair {
    fn start(exe: &Path, root: &Path, schedule: &str) -> Result<Self> {
        let e = emulator().map_err(|x| BenchError::Unsupported(x.to_string()))?;
        e.set_schedule(schedule_of(schedule));
        let stream = e.stream_create(0, StreamKind::NonBlocking);
        let ping = e.event_create(EventFlags { interprocess: true, ..EventFlags::default() }).map_err(core_err)?;
        let key = e.event_export(ping).map_err(core_err)?;
        let mut peer = PeerProc::spawn(exe, root, &format!("event:{schedule}"))?;
        let pong_key: u64 = peer.line(&key.to_string())?.parse().map_err(peer_err)?;
        let pong = e.event_open(pong_key).map_err(core_err)?;
        let pong_cell = e.event(pong).map_err(core_err)?.cell.clone();
        Ok(Self { e, stream, ping, pong, pong_cell, _peer: peer })
    }

    fn round_trips(&mut self, n: u64) -> Result<Duration> {
        let t = Instant::now();
        for _ in 0..n {
            self.e.event_record(self.ping, self.stream).map_err(core_err)?;
            let seq = self.e.event(self.ping).map_err(core_err)?.cell.last();
            self.e.wait_for(&self.pong_cell, seq, Some(PATIENCE)).map_err(core_err)?;
        }
        Ok(t.elapsed())
    }
}

impl Drop for EventPair {
    fn drop(&mut self) {
        let _ = self.e.event_destroy(self.pong);
        let _ = self.e.event_destroy(self.ping);
        let _ = self.e.stream_destroy(self.stream, vmmkit_emulator::core::Ending::Discard);
    }
}

/// Two words of a shared page, a cache line apart.
#[repr(C, align(64))]
struct Line(AtomicU32);

/// This side of the futex ping-pong.
struct FutexPair {
    map: *mut Line,
    path: std::path::PathBuf,
    next: u32,
    _peer: PeerProc,
}

/// Maps the first page of `path` shared.
fn map_page(path: &Path) -> Result<*mut Line> {
    let f = std::fs::OpenOptions::new().read(true).write(true).open(path).map_err(peer_err)?;
    // SAFETY: a fresh shared mapping of one page of a file we opened; the
    // kernel chooses the address; it is unmapped by the owner's Drop.
    let p = unsafe {
        rustix::mm::mmap(
            std::ptr::null_mut(),
            4096,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::SHARED,
            &f,
            0,
        )
    }
    .map_err(|e| peer_err(format!("mmap: {e}")))?;
    Ok(p.cast())
}

/// The word `i` (0 or 1) of a mapped page.
fn word<'a>(map: *mut Line, i: usize) -> &'a AtomicU32 {
    // SAFETY: `map` is a live shared page of 4096 bytes (two 64-byte lines
    // used); an AtomicU32 is valid for any bits and only used atomically.
    unsafe { &(*map.add(i)).0 }
}

/// Sets word `mine` to `v` and wakes its waiter.
fn signal(map: *mut Line, mine: usize, v: u32) {
    let w = word(map, mine);
    w.store(v, Ordering::Release);
    let _ = futex::wake(w, futex::Flags::empty(), 1);
}

/// Waits until word `theirs` is `v`.
fn wait_until(map: *mut Line, theirs: usize, v: u32) -> Result<()> {
    let w = word(map, theirs);
    let deadline = Instant::now() + PATIENCE;
    loop {
        let cur = w.load(Ordering::Acquire);
        if cur == v {
            return Ok(());
        }
        if Instant::now() >= deadline {
            return Err(peer_err("futex ping-pong stalled"));
        }
        let ts = rustix::time::Timespec { tv_sec: 1, tv_nsec: 0 };
        let _ = futex::wait(w, futex::Flags::empty(), cur, Some(&ts));
    }
}

impl FutexPair {
    fn start(exe: &Path, root: &Path, dir: &Path) -> Result<Self> {
        let path = dir.join("ipc_event_futex");
        std::fs::write(&path, vec![0u8; 4096]).map_err(peer_err)?;
        let map = map_page(&path)?;
        let mut peer = PeerProc::spawn(exe, root, &format!("futex:{}", path.display()))?;
        peer.line("go")?;
        Ok(Self { map, path, next: 0, _peer: peer })
    }

    fn round_trips(&mut self, n: u64) -> Result<Duration> {
        let t = Instant::now();
        for _ in 0..n {
            self.next = self.next.wrapping_add(1);
            signal(self.map, 0, self.next);
            wait_until(self.map, 1, self.next)?;
        }
        Ok(t.elapsed())
    }
}

impl Drop for FutexPair {
    fn drop(&mut self) {
        // SAFETY: our mapping of one page, unmapped once.
        let _ = unsafe { rustix::mm::munmap(self.map.cast(), 4096) };
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The peer's side, when [`ROLE_ENV`] is set; `None` otherwise (the caller
/// serves as the ordinary bench peer).
pub fn serve_peer() -> Option<std::process::ExitCode> {
    let role = std::env::var(ROLE_ENV).ok()?;
    let r = match role.split_once(':') {
        Some(("event", schedule)) => event_peer(schedule),
        Some(("futex", path)) => futex_peer(Path::new(path)),
        _ => Err(peer_err(format!("unknown role {role}"))),
    };
    Some(match r {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            std::process::ExitCode::FAILURE
        }
    })
}

fn read_line() -> Option<String> {
    let mut s = String::new();
    match std::io::stdin().read_line(&mut s) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(s.trim().to_string()),
    }
}

fn reply(s: &str) -> Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{s}").and_then(|()| out.flush()).map_err(peer_err)
}

/// Follows the pings until the bench goes away (its event's wait is abandoned).
fn event_peer(schedule: &str) -> Result<()> {
    let e = emulator().map_err(peer_err)?;
    e.set_schedule(schedule_of(schedule));
    let key: u64 = read_line().ok_or_else(|| peer_err("no key"))?.parse().map_err(peer_err)?;
    let ping = e.event_open(key).map_err(core_err)?;
    let ping_cell = e.event(ping).map_err(core_err)?.cell.clone();
    let stream = e.stream_create(0, StreamKind::NonBlocking);
    let pong = e.event_create(EventFlags { interprocess: true, ..EventFlags::default() }).map_err(core_err)?;
    // The count before the reply: the bench records as soon as it has it.
    let mut seq = ping_cell.last();
    reply(&e.event_export(pong).map_err(core_err)?.to_string())?;
    loop {
        seq = seq.wrapping_add(1);
        // Ends (Abandoned) once the bench process is gone.
        if e.wait_for(&ping_cell, seq, None).is_err() {
            break;
        }
        e.event_record(pong, stream).map_err(core_err)?;
    }
    let _ = e.event_destroy(pong);
    let _ = e.event_destroy(ping);
    Ok(())
}

/// Follows the futex pings until the bench goes away.
fn futex_peer(path: &Path) -> Result<()> {
    let map = map_page(path)?;
    read_line().ok_or_else(|| peer_err("no go"))?;
    reply("ready")?;
    let mut v = 0u32;
    loop {
        v = v.wrapping_add(1);
        // The bench may be busy with other entries: wait on, unless it is gone.
        while wait_until(map, 0, v).is_err() {
            if std::os::unix::process::parent_id() == 1 {
                return Ok(());
            }
        }
        signal(map, 1, v);
    }
}
