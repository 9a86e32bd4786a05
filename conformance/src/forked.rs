//! A child forked (without `exec`) from the rule's own process, for the
//! `*-FORK-001` rules: what a vendor library answers in a process forked
//! after it was initialised.
//!
//! The rule's process (`vmmkit __rule`) has one thread, so a fork there is
//! sound; the helper checks that before it forks. The child makes the
//! calls it is given, writes one line per call (`CODE STEP`) to a pipe and
//! leaves with `_exit`; the parent reads the lines under a deadline, and a
//! child that hangs (CANN documents hangs) is killed and reported.

use std::os::fd::{AsFd, OwnedFd};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::pipe::{PipeFlags, pipe_with};

use crate::outcome::Failure;

/// How long the child may take for all its calls.
pub const CHILD_TIMEOUT: Duration = Duration::from_secs(10);

/// One call the child made: its description and the code it returned.
pub type Call = (String, i64);

/// Runs `body` in a child forked from this process and returns the calls it
/// reported, in order.
///
/// # Errors
/// [`Failure::Setup`] when this process has more than one thread or the
/// fork fails; [`Failure::Peer`] when the child dies, hangs, or reports
/// garbage.
pub fn in_child(body: impl FnOnce() -> Vec<Call>) -> Result<Vec<Call>, Failure> {
    let threads = thread_count();
    if threads != Some(1) {
        return Err(Failure::Setup(format!("setup: fork needs a process of one thread, this one has {threads:?}")));
    }
    let (r, w) = pipe_with(PipeFlags::CLOEXEC).map_err(|e| Failure::Setup(format!("setup: pipe: {e}")))?;
    // SAFETY: the process has one thread (checked above), so the child gets
    // every lock in a consistent state; it only runs `body`, writes to the
    // pipe and calls `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(Failure::Setup(format!("setup: fork: {}", std::io::Error::last_os_error())));
    }
    if pid == 0 {
        drop(r);
        let status = match catch_unwind(AssertUnwindSafe(body)) {
            Ok(calls) => {
                let text: String = calls.iter().map(|(step, code)| format!("{code} {step}\n")).collect();
                i32::from(write_all(&w, text.as_bytes()).is_err())
            }
            Err(_) => 101,
        };
        // SAFETY: leaving the child without running the parent's atexit
        // handlers or destructors, which are the parent's.
        unsafe { libc::_exit(status) }
    }
    drop(w);
    let read = read_to_end(&r, CHILD_TIMEOUT);
    let exit = reap(pid, read.is_err());
    let text = read?;
    if exit != 0 {
        return Err(Failure::Peer(format!("forked child (pid {pid}) ended with status {exit:#x}; it wrote {text:?}")));
    }
    text.lines()
        .map(|l| {
            let (code, step) = l.split_once(' ').unwrap_or((l, ""));
            let code = code.parse().map_err(|_| Failure::Peer(format!("forked child wrote {l:?}")))?;
            Ok((step.to_string(), code))
        })
        .collect()
}

/// Threads of this process, from `/proc/self/status`.
fn thread_count() -> Option<u32> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status.lines().find_map(|l| l.strip_prefix("Threads:")).and_then(|n| n.trim().parse().ok())
}

fn write_all(fd: &OwnedFd, mut bytes: &[u8]) -> rustix::io::Result<()> {
    while !bytes.is_empty() {
        let n = rustix::io::write(fd, bytes)?;
        bytes = &bytes[n..];
    }
    Ok(())
}

/// Everything the child writes until it closes the pipe, within `timeout`.
fn read_to_end(fd: &OwnedFd, timeout: Duration) -> Result<String, Failure> {
    let deadline = Instant::now() + timeout;
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(Failure::Peer(format!("forked child: no answer in {} s (killed)", timeout.as_secs())));
        }
        let mut fds = [PollFd::new(fd, PollFlags::IN)];
        let ts = rustix::time::Timespec { tv_sec: left.as_secs() as i64, tv_nsec: i64::from(left.subsec_nanos()) };
        match poll(&mut fds, Some(&ts)) {
            Ok(0) | Err(rustix::io::Errno::INTR) => continue,
            Ok(_) => {}
            Err(e) => return Err(Failure::Peer(format!("forked child: poll: {e}"))),
        }
        match rustix::io::read(fd.as_fd(), &mut buf) {
            Ok(0) => return Ok(String::from_utf8_lossy(&out).into_owned()),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(Failure::Peer(format!("forked child: read: {e}"))),
        }
    }
}

/// Waits for the child (killing it first when `kill`), and returns its raw wait status.
fn reap(pid: libc::pid_t, kill: bool) -> i32 {
    if kill {
        // SAFETY: `pid` is our own child, not yet reaped.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let mut status = 0;
    // SAFETY: waits for our own child; `status` is a valid out-pointer.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        if std::io::Error::last_os_error().raw_os_error() != Some(libc::EINTR) {
            return -1;
        }
    }
    status
}
