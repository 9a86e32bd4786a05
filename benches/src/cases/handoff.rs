//! The cross-process handoff: a peer process, kept warm, is sent a
//! shareable handle, imports it, reserves and maps it, reads its first byte
//! (a device-to-host copy) and answers with it. The time is from sending the
//! handle to having the answer; releasing the peer's side afterwards is not
//! measured. The exporter allocated, wrote, exported and added the peer to
//! the trustlist once, beforehand (export has its own bench).
//!
//! Floor: the same socketpair round trip, in which the peer opens a file
//! of the root's file system by name, maps it shared and reads its first
//! byte: `sendmsg` + `recvmsg` each way, `open`, `mmap`, a page fault.
//!
//! ACL sends the 64-bit key in the request; HIP and CUDA send the exported
//! POSIX fd beside it with `SCM_RIGHTS`, and the peer imports from the fd
//! it receives (and closes it with the import, after the reply, as the
//! floor closes its file). Each backend has its own peer, over the same
//! backend.
//!
//! `floor_fd`, beside the floor, is the same round trip with the floor's
//! file passed as a descriptor (`SCM_RIGHTS`) instead of opened by name:
//! the peer maps the descriptor it receives and reads its first byte. It
//! shows what passing a descriptor costs, which the fd vendors cannot
//! avoid; the target stays against the floor.

use super::{Entry, Env};
use crate::backend::Bk;
use crate::error::{BenchError, Result};
use crate::floor;
use crate::peer::Peer;
use crate::peer::wire::Op;
use crate::plan::size_label;
use rustix::fs::{Mode, OFlags};
use std::cell::Cell;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::rc::Rc;
use std::time::{Duration, Instant};
use vmmkit_runtime::{Access, Exported, Location, Mapping, PhysicalMemory, Reservation};

/// The group.
pub const GROUP: &str = "handoff";
/// The floor's file, in the floor directory.
pub use crate::floor::HANDOFF_FILE as FLOOR_FILE;
/// The byte the exporter writes first, and the peer must read.
const FIRST: u8 = 0xa5;
/// The size handed off: 2 MiB, a granule of every backend.
const SIZE: usize = 2 << 20;

/// The entries: each backend's handoff of 2 MiB (its own peer, over the
/// same backend), and the floor (with the first backend's peer).
///
/// # Errors
/// A peer could not be started.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let g = SIZE;
    let l = size_label(g);
    let mut out = Vec::new();
    let mut first_peer: Option<Rc<Peer>> = None;
    for b in env.backends() {
        let peer = Rc::new(Peer::spawn(env.peer_exe(), b.name(), env.root(), env.floor_dir())?);
        first_peer.get_or_insert_with(|| peer.clone());
        let mut shared: Option<Shared> = None;
        out.push(Entry::new(GROUP, b.name(), &l, move |n| {
            if shared.is_none() {
                shared = Some(Shared::new(b, g, peer.host_pid())?);
            }
            let s = shared.as_ref().expect("set above");
            let (key, fd) = (s.ex.key().unwrap_or(0), s.ex.fd());
            round_trips(n, &peer, Op::ImportMapRead, &[key, g as u64], fd, Op::ReleaseImport)
        }));
    }
    let Some(p2) = first_peer else { return Ok(out) };
    let made = Rc::new(Cell::new(false));
    let floor_file = move || -> Result<std::path::PathBuf> {
        let path = env.floor_dir().join(FLOOR_FILE);
        if !made.replace(true) {
            floor::named_file(&path, g, FIRST)?;
        }
        Ok(path)
    };
    let (p3, file2) = (p2.clone(), floor_file.clone());
    out.push(Entry::new(GROUP, "floor", &l, move |n| {
        file2()?;
        round_trips(n, &p2, Op::OpenMapRead, &[g as u64], None, Op::CloseFloor)
    }));
    let mut fd: Option<OwnedFd> = None;
    out.push(Entry::new(GROUP, "floor_fd", &l, move |n| {
        if fd.is_none() {
            let path = floor_file()?;
            let opened = rustix::fs::open(&path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())
                .map_err(|e| BenchError::io(format!("open {}", path.display()), e))?;
            fd = Some(opened);
        }
        let fd = fd.as_ref().map(AsFd::as_fd);
        round_trips(n, &p3, Op::MapReadFd, &[g as u64], fd, Op::CloseFloor)
    }));
    Ok(out)
}

/// `n` times: `op` (with `fd` beside it, `SCM_RIGHTS`) measured, then `undo` not.
fn round_trips(n: u64, peer: &Peer, op: Op, args: &[u64], fd: Option<BorrowedFd<'_>>, undo: Op) -> Result<Duration> {
    let fds: Vec<BorrowedFd<'_>> = fd.into_iter().collect();
    let mut total = Duration::ZERO;
    for _ in 0..n {
        crate::syscalls::begin();
        let t = Instant::now();
        let got = peer.call_with(op, args, &fds);
        total += t.elapsed();
        crate::syscalls::end();
        let got = got?;
        if got != [u64::from(FIRST)] {
            return Err(BenchError::Check(format!("{op:?}: the peer read {got:?}, not [{FIRST}]")));
        }
        peer.call(undo, &[])?;
    }
    Ok(total)
}

/// The exporter's memory: mapped, written, exported, the peer trusted (ACL).
struct Shared {
    ex: Exported,
    _held: (Mapping, Reservation, PhysicalMemory),
}

impl Shared {
    fn new(b: &Bk, size: usize, peer: i32) -> Result<Self> {
        let d = b.dev(0);
        let mem = d.alloc_physical(size)?;
        let va = d.reserve(size)?;
        let m = va.map(0, &mem)?;
        m.set_access(Location::Device(0), Access::ReadWrite)?;
        m.write(0, &[FIRST])?;
        let ex = mem.export(b.sharing())?;
        if b.shares_by_key() {
            ex.set_pids(&[peer])?;
        }
        Ok(Self { ex, _held: (m, va, mem) })
    }
}
