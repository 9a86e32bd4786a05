//! A second process for the benches that cross processes: spawned once per
//! bench group, kept warm, driven over a [`vmmkit_testkit::Channel`] (its
//! stdin).
//!
//! The peer is the `vmmkit-bench-peer` executable of this package (bench
//! and test targets find it with `env!("CARGO_BIN_EXE_vmmkit-bench-peer")`).
//! It opens the backend its bench process names (`VMMKIT_BACKEND`) and, on
//! the emulator, the same root. Shareable handles go in the request: a key
//! as a word (ACL), a POSIX fd (HIP, CUDA) with `SCM_RIGHTS` beside it. Every wait for it has a deadline; a peer that
//! dies is an error with its exit status, and one still alive when its
//! owner is dropped is asked to quit, then killed.

pub mod serve;
pub mod wire;

use std::cell::RefCell;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::error::{BenchError, Result};
use wire::Op;

/// The variable that tells the peer executable where the floors' files are.
pub const FLOOR_ENV: &str = "VMMKIT_BENCH_FLOOR_DIR";

/// How long a peer may take for one ordinary request.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A running peer process.
#[derive(Debug)]
pub struct Peer {
    peer: RefCell<vmmkit_testkit::Peer>,
    host_pid: i32,
}

impl Peer {
    /// Starts `exe` as a peer over the backend named `backend` (as
    /// `VMMKIT_BACKEND` names it) on the emulator root `root`, its channel as
    /// its stdin, with the floors' files in `floor_dir`, and waits for it to
    /// say it is ready.
    ///
    /// # Errors
    /// The peer could not be started or did not get ready within [`DEADLINE`].
    pub fn spawn(exe: &Path, backend: &str, root: &Path, floor_dir: &Path) -> Result<Self> {
        let mut cmd = Command::new(exe);
        cmd.env(vmmkit_testkit::root::ROOT_ENV, root)
            .env(FLOOR_ENV, floor_dir)
            .env(vmmkit_runtime::Backend::ENV, backend);
        // A counted bench process's peers count their own calls.
        if let Some(dir) = crate::syscalls::peer_dir() {
            cmd.env(crate::syscalls::PEER_ENV, dir);
        }
        let peer = vmmkit_testkit::Peer::spawn("bench peer", &mut cmd).map_err(|e| BenchError::Peer(e.to_string()))?;
        let mut peer = Self { peer: RefCell::new(peer), host_pid: 0 };
        let hello = peer.recv(DEADLINE)?;
        peer.host_pid = match hello.as_slice() {
            [pid] => i32::try_from(*pid).map_err(|_| BenchError::Peer(format!("hello with pid {pid}")))?,
            other => return Err(BenchError::Peer(format!("hello of {} words", other.len()))),
        };
        Ok(peer)
    }

    /// The peer's host pid, for trustlists.
    pub fn host_pid(&self) -> i32 {
        self.host_pid
    }

    /// Sends `op` with `args` and returns the values of the reply.
    ///
    /// # Errors
    /// The peer's own error, or it died or did not answer within [`DEADLINE`].
    pub fn call(&self, op: Op, args: &[u64]) -> Result<Vec<u64>> {
        self.call_with(op, args, &[])
    }

    /// [`Peer::call`] with file descriptors sent beside the request
    /// (`SCM_RIGHTS`).
    ///
    /// # Errors
    /// As [`Peer::call`].
    pub fn call_with(&self, op: Op, args: &[u64], fds: &[BorrowedFd<'_>]) -> Result<Vec<u64>> {
        self.send_with(op, args, fds)?;
        self.recv(DEADLINE)
    }

    /// Asks the peer to allocate and export `count` more allocations of
    /// `size` bytes on `device`; returns their keys.
    ///
    /// # Errors
    /// As [`Peer::call`], with `deadline` for the whole of it.
    pub fn grow(&self, count: usize, device: u32, size: usize, deadline: Duration) -> Result<Vec<u64>> {
        self.send(Op::Grow, &[count as u64, u64::from(device), size as u64])?;
        self.collect_grow(deadline)
    }

    /// Sends a request without waiting for its reply (see [`Peer::collect_grow`]).
    ///
    /// # Errors
    /// The peer is gone.
    pub fn send(&self, op: Op, args: &[u64]) -> Result<()> {
        self.send_with(op, args, &[])
    }

    fn send_with(&self, op: Op, args: &[u64], fds: &[BorrowedFd<'_>]) -> Result<()> {
        let mut words = vec![op as u64];
        words.extend_from_slice(args);
        self.peer.borrow_mut().send(&wire::encode(&words), fds).map_err(|e| BenchError::Peer(e.to_string()))
    }

    /// Sends `op` with `args` and `fds` beside it, without waiting for the
    /// reply (see [`Peer::collect`]): requests to many peers at once.
    ///
    /// # Errors
    /// The peer is gone.
    pub fn post(&self, op: Op, args: &[u64], fds: &[BorrowedFd<'_>]) -> Result<()> {
        self.send_with(op, args, fds)
    }

    /// The reply of a request sent with [`Peer::post`]: its values and the
    /// descriptors that came with it.
    ///
    /// # Errors
    /// As [`Peer::call`].
    pub fn collect(&self) -> Result<(Vec<u64>, Vec<OwnedFd>)> {
        let (bytes, fds) = self.peer.borrow_mut().recv(DEADLINE).map_err(|e| BenchError::Peer(e.to_string()))?;
        Ok((wire::reply(&bytes).map_err(BenchError::Peer)?, fds))
    }

    /// Collects the replies of a [`Op::Grow`] sent with [`Peer::send`].
    ///
    /// # Errors
    /// As [`Peer::grow`].
    pub fn collect_grow(&self, deadline: Duration) -> Result<Vec<u64>> {
        let end = Instant::now() + deadline;
        let mut keys = Vec::new();
        loop {
            let words = self.recv(end.saturating_duration_since(Instant::now()))?;
            let (&more, chunk) = words.split_first().ok_or_else(|| BenchError::Peer("an empty grow reply".into()))?;
            keys.extend_from_slice(chunk);
            if more == 0 {
                return Ok(keys);
            }
        }
    }

    /// One reply, within `timeout`.
    fn recv(&self, timeout: Duration) -> Result<Vec<u64>> {
        let (bytes, _fds) = self.peer.borrow_mut().recv(timeout).map_err(|e| BenchError::Peer(e.to_string()))?;
        wire::reply(&bytes).map_err(BenchError::Peer)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Ask it to quit; it frees what it holds, then exits. One that does
        // not is killed (by the wait, or by vmmkit_testkit::Peer's drop).
        let quit = self.send(Op::Quit, &[]).is_ok() && self.recv(DEADLINE).is_ok();
        let peer = self.peer.get_mut();
        peer.close();
        if quit {
            let _ = peer.wait(DEADLINE);
        }
    }
}
