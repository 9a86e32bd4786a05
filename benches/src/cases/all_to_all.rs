//! All-to-all start-up, as a collective library or an inference engine
//! with N ranks opens every peer's buffer (RCCL, HCCL, vLLM's custom
//! all-reduce): N peer processes (2, 8, 32, 64), each allocates 2 MiB on
//! device 0 and exports it (ACL: a shareable handle whose trustlist lists
//! the N − 1 others; HIP and CUDA: a POSIX fd), and sends its handle to
//! every other; each then imports, reserves, maps and grants access to the
//! N − 1 others. The time is from the first request to the last process's
//! answer that all its imports are mapped: time to the last process ready.
//! Releasing everything afterwards is not measured.
//!
//! The handles go through this process (a hub): it asks every peer to
//! export at once, collects the N handles (keys, or fds with `SCM_RIGHTS`),
//! and sends each peer the N − 1 others in one message, again to all at
//! once. Floor: the same processes, the same hub and messages, passing
//! tmpfs fds (`open(O_TMPFILE)` + `ftruncate` in the root's file system)
//! and making the same N − 1 shared `mmap`s each.
//!
//! The peers are started at an entry's first run (not measured) and kept
//! until the entry is dropped; the floor uses the first backend's peers.

use std::cell::RefCell;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::{Duration, Instant};

use super::{Entry, Env};
use crate::backend::Bk;
use crate::error::{BenchError, Result};
use crate::peer::Peer;
use crate::peer::wire::Op;

/// The group.
pub const GROUP: &str = "all_to_all";
/// The size each process exports: 2 MiB, a granule of every backend.
const SIZE: usize = 2 << 20;

/// The entries: per backend and process count, and the floor at each count.
///
/// # Errors
/// None; the peers start when an entry first runs.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out = Vec::new();
    let Some(first) = env.backends().first() else { return Ok(out) };
    for &n in env.plan.all_to_all_counts() {
        for b in env.backends() {
            let mut mesh: Option<Mesh> = None;
            out.push(
                Entry::new(GROUP, b.name(), n.to_string(), move |iters| {
                    let m = match &mut mesh {
                        Some(m) => m,
                        None => mesh.insert(Mesh::start(env, b, n)?),
                    };
                    m.run(iters, false)
                })
                .slow(n >= 32),
            );
        }
        let mut mesh: Option<Mesh> = None;
        out.push(
            Entry::new(GROUP, "floor", n.to_string(), move |iters| {
                let m = match &mut mesh {
                    Some(m) => m,
                    None => mesh.insert(Mesh::start(env, first, n)?),
                };
                m.run(iters, true)
            })
            .slow(n >= 32),
        );
    }
    Ok(out)
}

/// N peers over one backend.
struct Mesh {
    peers: Vec<Peer>,
    by_key: bool,
    /// The descriptors of the last round (closed after it, not measured).
    fds: RefCell<Vec<OwnedFd>>,
}

impl Mesh {
    fn start(env: &Env, b: &Bk, n: usize) -> Result<Self> {
        let peers = (0..n)
            .map(|_| Peer::spawn(env.peer_exe(), b.name(), env.root(), env.floor_dir()))
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { peers, by_key: b.shares_by_key(), fds: RefCell::new(Vec::new()) })
    }

    /// `iters` rounds: each measured from the first export request to the
    /// last import's answer, then everything released (not measured).
    fn run(&mut self, iters: u64, floor: bool) -> Result<Duration> {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            crate::syscalls::begin();
            let t = Instant::now();
            let r = self.round(floor);
            total += t.elapsed();
            crate::syscalls::end();
            r?;
            self.fds.borrow_mut().clear();
            for p in &self.peers {
                p.post(Op::MeshRelease, &[], &[])?;
            }
            for p in &self.peers {
                p.collect()?;
            }
        }
        Ok(total)
    }

    fn round(&self, floor: bool) -> Result<()> {
        let size = SIZE as u64;
        let pids: Vec<u64> = self.peers.iter().map(|p| p.host_pid() as u64).collect();
        let n = self.peers.len() as u64;
        for (i, p) in self.peers.iter().enumerate() {
            if floor {
                p.post(Op::MeshFloorExport, &[size, n], &[])?;
            } else {
                let mut args = vec![size, n];
                // ACL: the trustlist of the others; HIP and CUDA send the fd.
                if self.by_key {
                    args.extend(pids.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &pid)| pid));
                }
                p.post(Op::MeshExport, &args, &[])?;
            }
        }
        let mut keys = Vec::with_capacity(self.peers.len());
        let mut fds: Vec<Option<OwnedFd>> = Vec::with_capacity(self.peers.len());
        for p in &self.peers {
            let (values, mut got) = p.collect()?;
            keys.push(values.first().copied().unwrap_or(0));
            match got.len() {
                0 if !floor && self.by_key => fds.push(None),
                1 => fds.push(got.pop()),
                k => return Err(BenchError::Check(format!("an export answered with {k} descriptors"))),
            }
        }
        for (i, p) in self.peers.iter().enumerate() {
            let others: Vec<BorrowedFd<'_>> = fds
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .filter_map(|(_, f)| f.as_ref().map(AsFd::as_fd))
                .collect();
            let mut args = vec![size];
            if floor {
                p.post(Op::MeshFloorMap, &args, &others)?;
            } else {
                args.extend(keys.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &k)| k));
                p.post(Op::MeshImport, &args, &others)?;
            }
        }
        let want = self.peers.len() as u64 - 1;
        let mut bad = None;
        for p in &self.peers {
            let (values, _) = p.collect()?;
            if values != [want] {
                bad = Some(values);
            }
        }
        self.fds.borrow_mut().extend(fds.into_iter().flatten());
        match bad {
            None => Ok(()),
            Some(v) => Err(BenchError::Check(format!("a peer mapped {v:?} of the {want} others"))),
        }
    }
}
