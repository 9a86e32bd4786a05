//! Bounded waits: for an fd to become readable, for a child to exit. Both
//! are one `poll(2)` with a timeout (a child's exit through its pidfd), so a
//! wait ends as soon as the event happens and never later than its deadline,
//! with no sleep loop.

use std::os::fd::{AsFd, BorrowedFd};
use std::process::Child;
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::io::Errno;
use rustix::process::{Pid, PidfdFlags, pidfd_open};

use crate::exit::Exit;

/// Why a wait for a child gave no exit status.
#[derive(Debug, thiserror::Error)]
pub enum WaitError {
    /// The child ran past its deadline; it was killed and reaped.
    #[error("did not exit in {} s (killed)", .0.as_secs_f64())]
    TimedOut(Duration),
    /// Waiting failed.
    #[error("cannot be waited for: {0}")]
    Io(#[from] std::io::Error),
}

/// Whether a wait saw its fd become readable (or hung up) in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readable {
    /// It did.
    Yes,
    /// The timeout came first.
    No,
}

/// Waits until `fd` is readable (or hung up), at most `timeout`.
pub fn wait_readable(fd: BorrowedFd<'_>, timeout: Duration) -> std::io::Result<Readable> {
    // A timeout past what `Instant` can hold is no deadline at all.
    let deadline = Instant::now().checked_add(timeout);
    loop {
        let ts = deadline.map(|d| {
            let left = d.saturating_duration_since(Instant::now());
            Timespec { tv_sec: left.as_secs().try_into().unwrap_or(i64::MAX), tv_nsec: left.subsec_nanos().into() }
        });
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        match poll(&mut fds, ts.as_ref()) {
            Ok(0) => return Ok(Readable::No),
            Ok(_) => return Ok(Readable::Yes),
            Err(Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Waits at most `timeout` for `child` to exit and reaps it; `None` if it is
/// still running then (it is left running).
pub fn exit_within(child: &mut Child, timeout: Duration) -> std::io::Result<Option<Exit>> {
    if let Some(s) = child.try_wait()? {
        return Ok(Some(Exit(s)));
    }
    let pid = i32::try_from(child.id())
        .ok()
        .and_then(Pid::from_raw)
        .ok_or_else(|| std::io::Error::other(format!("pid {} out of range", child.id())))?;
    // The child is not reaped (try_wait said so), so its pid is still its own:
    // a zombie's pidfd is readable at once.
    let pidfd = pidfd_open(pid, PidfdFlags::empty())?;
    if wait_readable(pidfd.as_fd(), timeout)? == Readable::No {
        return Ok(None);
    }
    Ok(child.try_wait()?.map(Exit))
}

/// Waits at most `timeout` for `child` to exit; past it, kills it (`SIGKILL`),
/// reaps it and says how long it was given.
pub fn exit_or_kill(child: &mut Child, timeout: Duration) -> Result<Exit, WaitError> {
    match exit_within(child, timeout) {
        Ok(Some(e)) => Ok(e),
        Ok(None) => {
            kill(child);
            Err(WaitError::TimedOut(timeout))
        }
        Err(e) => {
            kill(child);
            Err(e.into())
        }
    }
}

/// Kills `child` (`SIGKILL`) unless it was reaped already, and reaps it.
pub fn kill(child: &mut Child) -> Option<Exit> {
    let _ = child.kill();
    child.wait().ok().map(Exit)
}

#[cfg(test)]
mod tests {
    use std::process::Command;

    use super::*;

    #[test]
    fn an_exit_is_seen_and_a_hang_is_killed() {
        let mut quick = Command::new("sh").args(["-c", "exit 3"]).spawn().unwrap();
        assert_eq!(exit_or_kill(&mut quick, Duration::from_secs(10)).unwrap().code(), Some(3));
        let mut slow = Command::new("sleep").arg("30").spawn().unwrap();
        let started = Instant::now();
        let e = exit_or_kill(&mut slow, Duration::from_millis(100)).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(20), "the deadline ended the wait");
        assert_eq!(e.to_string(), "did not exit in 0.1 s (killed)");
        assert!(slow.try_wait().unwrap().is_some(), "killed and reaped");
    }
}
