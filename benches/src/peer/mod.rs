//! A second process for the benches that cross processes: spawned once per
//! bench group, kept warm, driven over a `SOCK_SEQPACKET` socketpair.
//!
//! The peer is the `vmmkit-bench-peer` executable of this package (bench
//! and test targets find it with `env!("CARGO_BIN_EXE_vmmkit-bench-peer")`).
//! It inherits the environment, so it opens the same backend and, on the
//! emulator, the same root. Every wait for it has a deadline; a peer that
//! dies is an error with its exit status, and one still alive when its
//! owner is dropped is asked to quit, then killed.

pub mod serve;
pub mod wire;

use std::cell::RefCell;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec};
use rustix::io::FdFlags;
use rustix::net::{AddressFamily, RecvFlags, SendFlags, SocketFlags, SocketType};

use crate::error::{BenchError, Result};
use wire::Op;

/// The variable that tells the peer executable which fd is its socket.
pub const FD_ENV: &str = "VMMKIT_BENCH_PEER_FD";
/// The variable that tells it where the floors' files are.
pub const FLOOR_ENV: &str = "VMMKIT_BENCH_FLOOR_DIR";

/// How long a peer may take for one ordinary request.
pub const DEADLINE: Duration = Duration::from_secs(30);

/// A running peer process.
#[derive(Debug)]
pub struct Peer {
    sock: OwnedFd,
    child: RefCell<Child>,
    host_pid: i32,
}

impl Peer {
    /// Starts `exe` as a peer, with the floors' files in `floor_dir`, and
    /// waits for it to say it is ready.
    ///
    /// The child's end of the socketpair is made inheritable only for the
    /// spawn; the bench processes spawn from one thread, so no other child
    /// inherits it.
    ///
    /// # Errors
    /// The peer could not be started or did not get ready within [`DEADLINE`].
    pub fn spawn(exe: &Path, floor_dir: &Path) -> Result<Self> {
        let (mine, theirs) =
            rustix::net::socketpair(AddressFamily::UNIX, SocketType::SEQPACKET, SocketFlags::CLOEXEC, None)
                .map_err(|e| BenchError::io("socketpair", e))?;
        rustix::io::fcntl_setfd(&theirs, FdFlags::empty()).map_err(|e| BenchError::io("fcntl(F_SETFD)", e))?;
        let child = Command::new(exe)
            .env(FD_ENV, theirs.as_raw_fd().to_string())
            .env(FLOOR_ENV, floor_dir)
            .stdin(Stdio::null())
            .spawn()
            .map_err(|e| BenchError::io(format!("spawning {}", exe.display()), e))?;
        drop(theirs);
        let mut peer = Self { sock: mine, child: RefCell::new(child), host_pid: 0 };
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
        self.send(op, args)?;
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
    /// The socket failed.
    pub fn send(&self, op: Op, args: &[u64]) -> Result<()> {
        let mut words = vec![op as u64];
        words.extend_from_slice(args);
        let bytes = wire::encode(&words);
        match rustix::net::send(&self.sock, &bytes, SendFlags::NOSIGNAL) {
            Ok(n) if n == bytes.len() => Ok(()),
            Ok(n) => Err(BenchError::Peer(format!("sent {n} of {} bytes", bytes.len()))),
            Err(e) => Err(self.died(&format!("send: {e}"))),
        }
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
        let mut fds = [PollFd::new(&self.sock, PollFlags::IN)];
        let ts = Timespec { tv_sec: timeout.as_secs() as i64, tv_nsec: i64::from(timeout.subsec_nanos()) };
        loop {
            match rustix::event::poll(&mut fds, Some(&ts)) {
                Ok(0) => return Err(self.died(&format!("no reply in {:.1} s", timeout.as_secs_f64()))),
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(BenchError::io("poll", e)),
            }
        }
        let mut buf = vec![0u8; wire::MAX_MESSAGE];
        let (n, _) = rustix::net::recv(&self.sock, &mut buf[..], RecvFlags::empty())
            .map_err(|e| self.died(&format!("recv: {e}")))?;
        if n == 0 {
            return Err(self.died("it closed the socket"));
        }
        wire::reply(&buf[..n]).map_err(BenchError::Peer)
    }

    /// Whether the peer closed its end (it exits right after) within `timeout`.
    fn closed_within(&self, timeout: Duration) -> bool {
        let mut fds = [PollFd::new(&self.sock, PollFlags::IN | PollFlags::HUP)];
        let ts = Timespec { tv_sec: timeout.as_secs() as i64, tv_nsec: i64::from(timeout.subsec_nanos()) };
        loop {
            match rustix::event::poll(&mut fds, Some(&ts)) {
                Ok(0) => return false,
                Ok(_) => break,
                Err(rustix::io::Errno::INTR) => continue,
                Err(_) => return false,
            }
        }
        let mut b = [0u8; 8];
        matches!(rustix::net::recv(&self.sock, &mut b[..], RecvFlags::DONTWAIT), Ok((0, _)))
    }

    /// The error for a peer that stopped answering, with its exit status if it exited.
    fn died(&self, what: &str) -> BenchError {
        let status = match self.child.borrow_mut().try_wait() {
            Ok(Some(s)) => format!(" (it exited: {s})"),
            Ok(None) => String::new(),
            Err(e) => format!(" (its status is unknown: {e})"),
        };
        BenchError::Peer(format!("{what}{status}"))
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Ask it to quit; it frees what it holds, then closes its end.
        let quit = self.send(Op::Quit, &[]).is_ok() && self.recv(DEADLINE).is_ok() && self.closed_within(DEADLINE);
        let mut child = self.child.borrow_mut();
        if !quit {
            let _ = child.kill();
        }
        let _ = child.wait();
    }
}
