//! Pid steering: starting a peer under a pid that an exited process had, so
//! that a trustlist entry made for the old process meets a new one
//! ([ACL-PID-010](vmmkit_sys::acl::rules::PID_010), [ACL-IMP-012](vmmkit_sys::acl::rules::IMP_012)).
//!
//! Linux gives the next process `ns_last_pid + 1` when that pid is free;
//! `/proc/sys/kernel/ns_last_pid` is writable by root of the pid namespace.
//! Another process may fork between the write and our spawn, so a spawn that
//! missed is killed and tried again a few times; if it never lands, the rule
//! is not-supported with that reason.
//!
//! Two checks steering at once would rewind the counter under each other
//! and hand the pid one waits for to the other's processes; a [`Steering`]
//! holds an exclusive `flock` on `ns_last_pid` itself (one lock for the
//! whole pid namespace, whichever run or test the check belongs to) from the
//! pid's release to the spawn that reuses it.
#![forbid(unsafe_code)]

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::time::Duration;

use super::{Launcher, Peer};
use crate::outcome::Failure;

/// The kernel's "last pid handed out" of this pid namespace.
pub const NS_LAST_PID: &str = "/proc/sys/kernel/ns_last_pid";
/// How many spawns to try before giving up.
pub const TRIES: u32 = 8;

/// Whether pids can be steered here.
///
/// # Errors
/// Why not, as a reason for a not-supported outcome.
pub fn available() -> Result<(), String> {
    OpenOptions::new()
        .write(true)
        .open(NS_LAST_PID)
        .map(drop)
        .map_err(|e| format!("pid steering needs write access to {NS_LAST_PID} (root in the pid namespace): {e}"))
}

/// Exclusive use of pid steering in this pid namespace, while it lives.
///
/// Taking it waits for another check's steering to end (a few hundred
/// milliseconds at most); the rule's own deadline bounds that wait.
#[derive(Debug)]
pub struct Steering {
    _lock: File,
}

impl Steering {
    /// Takes the lock.
    ///
    /// # Errors
    /// [`Failure::NotSupported`] when pids cannot be steered here.
    pub fn begin() -> Result<Self, Failure> {
        available().map_err(Failure::NotSupported)?;
        let lock = File::open(NS_LAST_PID).map_err(|e| Failure::NotSupported(format!("{NS_LAST_PID}: {e}")))?;
        rustix::fs::flock(&lock, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| Failure::NotSupported(format!("flock({NS_LAST_PID}): {e}")))?;
        Ok(Self { _lock: lock })
    }

    /// The pid of a peer that was started, asked to exit and reaped: a pid
    /// no process has now.
    pub fn exited_pid(&self, launcher: &Launcher) -> Result<i32, Failure> {
        let p = Peer::spawn(launcher, "short-lived")?;
        let pid = p.pid();
        p.exit()?;
        i32::try_from(pid).map_err(|_| Failure::Setup(format!("setup: pid {pid} out of range")))
    }

    /// Starts a peer named `name` whose pid is `pid`.
    ///
    /// # Errors
    /// [`Failure::NotSupported`] when another process took the pid [`TRIES`] times.
    pub fn spawn_with_pid(&self, launcher: &Launcher, name: &str, pid: i32) -> Result<Peer, Failure> {
        let mut got = Vec::new();
        for _ in 0..TRIES {
            let mut f = OpenOptions::new()
                .write(true)
                .open(NS_LAST_PID)
                .map_err(|e| Failure::NotSupported(format!("{NS_LAST_PID}: {e}")))?;
            write!(f, "{}", pid - 1).map_err(|e| Failure::NotSupported(format!("writing {NS_LAST_PID}: {e}")))?;
            drop(f);
            let peer = Peer::spawn(launcher, name)?;
            if i64::from(peer.pid()) == i64::from(pid) {
                return Ok(peer);
            }
            got.push(peer.pid());
            drop(peer);
        }
        Err(Failure::NotSupported(format!(
            "could not start a process with pid {pid} through {NS_LAST_PID} in {TRIES} tries (got {got:?}): \
             other processes took it first"
        )))
    }
}

/// Lets two ticks of the clock that `/proc/<pid>/stat` start times count
/// in (1/`CLK_TCK` s, 10 ms on Linux) pass, so that the next process starts
/// measurably after what was done before, whatever the resolution at which
/// a backend learns process start times.
///
/// This is no synchronisation between processes: the rules under test are
/// about an entry *older* than a process, and a real pid reuse takes far
/// longer than 20 ms.
pub fn let_start_clock_tick() {
    let ticks = u32::try_from(rustix::param::clock_ticks_per_second()).unwrap_or(100).max(1);
    std::thread::sleep(2 * (Duration::from_secs(1) / ticks));
}
