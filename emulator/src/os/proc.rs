//! Process identity: a pid and the time it started, so that a recycled pid is
//! not taken for the process that had it before.

use std::fs;
use std::io;

/// A process, identified by pid and start time (clock ticks after boot, as in
/// `/proc/<pid>/stat` field 22).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProcessId {
    /// The host pid (TGID).
    pub pid: u32,
    /// Start time in clock ticks after boot.
    pub start: u64,
}

impl ProcessId {
    /// The calling process.
    pub fn current() -> Self {
        let pid = std::process::id();
        Self { pid, start: start_time(pid).unwrap_or(0) }
    }

    /// Whether this process is still running (the pid exists and started at
    /// the same time). When `/proc` cannot be read (no file descriptor or
    /// memory left) it counts as running: what a live process holds must
    /// never be collected because of a failure to look.
    pub fn is_alive(&self) -> bool {
        match stat_of(self.pid) {
            Ok(stat) => parse_start(&stat) == Some(self.start),
            Err(e) => !matches!(e.kind(), io::ErrorKind::NotFound) && e.raw_os_error() != Some(libc::ESRCH),
        }
    }
}

fn stat_of(pid: u32) -> io::Result<String> {
    fs::read_to_string(format!("/proc/{pid}/stat"))
}

/// The start time of `pid` in clock ticks after boot, or `None` if there is
/// no such process (or it cannot be read).
pub fn start_time(pid: u32) -> Option<u64> {
    parse_start(&stat_of(pid).ok()?)
}

/// Field 22 of a `/proc/<pid>/stat` text; `None` for a zombie.
fn parse_start(stat: &str) -> Option<u64> {
    // The command name (field 2) is in parentheses and may contain spaces or
    // parentheses itself; fields after the last ')' are plain.
    let rest = &stat[stat.rfind(')')? + 1..];
    // rest starts at field 3 (state); field 22 is the 20th of rest.
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    if state == "Z" || state == "X" {
        return None; // a zombie has exited: its memory is gone
    }
    fields.nth(18)?.parse().ok()
}

/// Clock ticks per second of `/proc` start times (`sysconf(_SC_CLK_TCK)`).
pub fn ticks_per_second() -> u64 {
    rustix::param::clock_ticks_per_second()
}

/// Nanoseconds after boot (`CLOCK_BOOTTIME`, the clock of `/proc` start times).
pub fn boot_time_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

/// The start of `p`, in nanoseconds after boot (rounded down to a tick).
pub fn start_ns(p: &ProcessId) -> u64 {
    p.start.saturating_mul(1_000_000_000 / ticks_per_second().max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_process_is_alive() {
        let me = ProcessId::current();
        assert!(me.start > 0);
        assert!(me.is_alive());
        assert!(!ProcessId { start: me.start + 1, ..me }.is_alive());
        assert!(start_ns(&me) <= boot_time_ns());
    }

    #[test]
    fn dead_process_is_not_alive() {
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let p = ProcessId { pid: child.id(), start: start_time(child.id()).unwrap_or(1) };
        child.wait().unwrap();
        assert!(!p.is_alive());
    }
}
