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

/// The text of `/proc/<pid>/stat`: `open`, one `read`, `close`. The kernel
/// makes the whole line at the first read and hands over as much as the
/// buffer takes, so a read shorter than the buffer ends it; only a line as
/// long as the buffer (none is: 52 numbers and a name of at most 64 bytes)
/// reads on. (`fs::read_to_string` made 9 calls: the open, a `statx` for
/// a size hint, six `read`s from a 32-byte probe up through doubling
/// buffers to the empty one at the end, the close; counted by
/// `cargo test -p vmmkit-benches --test syscalls`, one batch per pid a
/// trustlist names.)
fn stat_of(pid: u32) -> io::Result<String> {
    use rustix::fs::{Mode, OFlags};
    let fd = rustix::fs::open(format!("/proc/{pid}/stat"), OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty())?;
    let mut buf = vec![0u8; 2048];
    let mut len = 0;
    loop {
        let n = rustix::io::read(&fd, &mut buf[len..])?;
        len += n;
        if n == 0 || len < buf.len() {
            break;
        }
        buf.resize(buf.len() * 2, 0);
    }
    buf.truncate(len);
    String::from_utf8(buf).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
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

/// A [`holder_stamp`] when the pid could not be looked up: the grant is
/// judged by its time alone.
const STAMP_UNKNOWN: u32 = 0;
/// A [`holder_stamp`] when no process had the pid: whoever gets it later
/// was not trusted.
const STAMP_NOBODY: u32 = u32::MAX;
/// A [`holder_stamp`] not looked up, because the pid was that of a process
/// using the same root when it was set (its slot in the root's state): the
/// importer with the pid decides from what it knows of itself whether it
/// was already running then ([`granted_to`]).
pub const STAMP_REGISTERED: u32 = u32::MAX - 1;

/// The holder stamp of a process that started at `start` (clock ticks after
/// boot): what [`holder_stamp`] gives for its pid while it runs.
pub fn stamp(start: u64) -> u32 {
    // 1 ..= u32::MAX - 2: never one of the three markers.
    (start % u64::from(u32::MAX - 2)) as u32 + 1
}

/// Which process has `pid` now, for a trustlist entry set now: its start
/// time folded to 32 bits. A later process with the same pid has another
/// start time, even if it started within the same clock tick as the entry
/// was set (which a comparison of times cannot tell).
pub fn holder_stamp(pid: i32) -> u32 {
    let Ok(pid) = u32::try_from(pid) else { return STAMP_NOBODY };
    match stat_of(pid) {
        Ok(stat) => parse_start(&stat).map_or(STAMP_NOBODY, stamp),
        Err(e) if e.kind() == io::ErrorKind::NotFound || e.raw_os_error() == Some(libc::ESRCH) => STAMP_NOBODY,
        Err(_) => STAMP_UNKNOWN,
    }
}

/// Pids a batch of more than this many is stamped through one listing of
/// `/proc` (see [`Stamps`]).
const LISTED_FROM: usize = 64;

/// [`holder_stamp`] for a batch of pids. A trustlist call may name up to
/// 65,535 pids ([ACL-PID-003](vmmkit_sys::acl::rules::PID_003)/004), nearly all with no process: one `open` of
/// `/proc/<pid>/stat` each took 0.3 s. For a batch of more than
/// [`LISTED_FROM`], `/proc` is listed once and only the pids it lists are
/// looked up; any other has no process ([`STAMP_NOBODY`]), as a lookup
/// would have said a moment earlier. (A thread's id that is not its
/// process's is not listed: no importer has it as its pid either.) Where
/// `/proc` cannot be listed, every pid is looked up.
///
/// A pid that `registered` holds (the pids of the root's process slots,
/// read from its state before the entry's time is taken) is not looked up
/// at all: it gets [`STAMP_REGISTERED`]. An all-to-all start-up lists every
/// other rank, each a process using the root: a lookup is an `open`, a
/// `read` and a `close` of `/proc/<pid>/stat` per pid, per export.
#[derive(Debug)]
pub struct Stamps {
    listed: Option<std::collections::HashSet<u32>>,
    registered: std::collections::HashSet<u32>,
}

impl Stamps {
    /// The stamper for `pids`, those in `registered` left to the importer.
    pub fn for_pids(pids: &[i32], registered: std::collections::HashSet<u32>) -> Self {
        let unregistered = pids.iter().filter(|&&p| u32::try_from(p).is_ok_and(|p| !registered.contains(&p))).count();
        let listed = (unregistered > LISTED_FROM).then(list_pids).flatten();
        Self { listed, registered }
    }

    /// The stamp of `pid`: [`STAMP_REGISTERED`] for a registered pid, else as
    /// [`holder_stamp`] gives it.
    pub fn get(&self, pid: i32) -> u32 {
        match (&self.listed, u32::try_from(pid)) {
            (_, Ok(p)) if self.registered.contains(&p) => STAMP_REGISTERED,
            (Some(live), Ok(p)) if !live.contains(&p) => STAMP_NOBODY,
            _ => holder_stamp(pid),
        }
    }
}

/// The pids `/proc` lists, or `None` where it cannot be read.
fn list_pids() -> Option<std::collections::HashSet<u32>> {
    let dir = fs::read_dir("/proc").ok()?;
    let mut out = std::collections::HashSet::new();
    for e in dir {
        if let Some(pid) = e.ok()?.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) {
            out.insert(pid);
        }
    }
    // A /proc that lists no process at all (not procfs) tells nothing.
    (!out.is_empty()).then_some(out)
}

/// The start stamp of `p`, as [`holder_stamp`] gives it while `p` runs.
pub fn stamp_of(p: &ProcessId) -> u32 {
    stamp(p.start)
}

/// Whether the process `pid` with start stamp `stamp` (any process with
/// that pid: `None`) still runs. One that cannot be looked up (no file
/// descriptor or memory left) counts as running, as in
/// [`ProcessId::is_alive`].
pub fn holds(pid: u32, stamp: Option<u32>) -> bool {
    match holder_stamp(i32::try_from(pid).unwrap_or(-1)) {
        STAMP_NOBODY => false,
        STAMP_UNKNOWN => true,
        now => stamp.is_none_or(|s| s == now),
    }
}

/// Whether a trustlist entry with `holder` set at `set_ns` trusts `me`: it
/// was set while `me` had the pid (the stamp), or, when that could not be
/// looked up then, not before `me` started ([ACL-PID-010](vmmkit_sys::acl::rules::PID_010), [ACL-IMP-012](vmmkit_sys::acl::rules::IMP_012)).
///
/// [`STAMP_REGISTERED`] (not looked up): `me` was running when it was set,
/// as `me` knows from `seen_ns`, a time at which it was running (it had
/// looked itself up), or from its start a whole clock tick before. A
/// process with that pid that started after the entry was set is never
/// trusted; one that started in the same tick and looked itself up only
/// after is refused too, which only a registered process that died
/// without its slot being collected, its pid then taken by a process
/// started in the tick of the set, could meet.
pub fn granted_to(holder: u32, set_ns: u64, me: &ProcessId, seen_ns: u64) -> bool {
    match holder {
        STAMP_UNKNOWN => set_ns >= start_ns(me),
        STAMP_REGISTERED => {
            seen_ns < set_ns || start_ns(me).saturating_add(1_000_000_000 / ticks_per_second().max(1)) <= set_ns
        }
        h => h == stamp(me.start),
    }
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

    /// A trustlist entry names the process that had the pid when it was
    /// set. A process that got the pid later is not trusted, even when it
    /// started within the same clock tick as the entry was set (the time
    /// comparison alone would let it in).
    #[test]
    fn a_grant_names_the_process_that_had_the_pid() {
        let me = ProcessId::current();
        let now = boot_time_ns();
        let mine = holder_stamp(me.pid as i32);
        assert!(granted_to(mine, now, &me, now));
        let successor = ProcessId { pid: me.pid, start: me.start + 1 };
        assert!(!granted_to(mine, u64::MAX, &successor, 0), "same pid, same or later tick, another process");
        // Nobody had the pid: whoever gets it later is not trusted.
        let nobody = holder_stamp(i32::MAX);
        assert_eq!(nobody, STAMP_NOBODY);
        assert!(!granted_to(nobody, u64::MAX, &me, 0));
        assert_eq!(holder_stamp(-5), STAMP_NOBODY);
        // Not looked up: the time decides, as before.
        assert!(granted_to(STAMP_UNKNOWN, now, &me, now));
        assert!(!granted_to(STAMP_UNKNOWN, start_ns(&me).saturating_sub(1), &me, 0));
    }

    /// A registered pid's entry trusts the process that was running when it
    /// was set: one that had looked itself up before, or started a whole
    /// tick before; never one that started after, nor one of the same tick
    /// that cannot tell.
    #[test]
    fn a_registered_grant_trusts_whoever_was_running_then() {
        let me = ProcessId::current();
        let tick = 1_000_000_000 / ticks_per_second();
        let started = start_ns(&me);
        let set = |ns| granted_to(STAMP_REGISTERED, ns, &me, u64::MAX);
        assert!(granted_to(STAMP_REGISTERED, 1000, &me, 999), "seen running before the set");
        assert!(!granted_to(STAMP_REGISTERED, 1000, &me, 1000), "seen only at the set");
        assert!(set(started + tick), "started a whole tick before");
        assert!(!set(started + tick - 1), "the same tick: cannot tell");
        assert!(!set(started.saturating_sub(1)), "started after");
        for s in [0, 1, me.start, u64::from(u32::MAX) * 3] {
            assert!(!matches!(stamp(s), STAMP_UNKNOWN | STAMP_REGISTERED | STAMP_NOBODY), "{s}");
        }
    }

    /// Registered pids are not looked up: no listing of /proc for them
    /// either.
    #[test]
    fn registered_pids_are_left_to_the_importer() {
        let me = std::process::id();
        let pids: Vec<i32> = (0..100).map(|i| 4_000_000 + i).collect();
        let registered: std::collections::HashSet<u32> = pids.iter().map(|&p| p as u32).chain([me]).collect();
        let stamps = Stamps::for_pids(&pids, registered);
        assert!(stamps.listed.is_none(), "every pid registered: nothing listed");
        assert_eq!(stamps.get(4_000_000), STAMP_REGISTERED);
        assert_eq!(stamps.get(me as i32), STAMP_REGISTERED);
        assert_eq!(stamps.get(1), holder_stamp(1));
    }

    /// A batch stamped through the listing of /proc gives each pid what a
    /// lookup of it gives: this process's start, and nobody for pids with
    /// no process.
    #[test]
    fn batch_stamps_agree_with_lookups() {
        let me = std::process::id() as i32;
        let mut pids: Vec<i32> = (0..100).map(|i| 4_000_000 + i).collect(); // above pid_max's ceiling
        pids.extend([me, 1, -5, 0]);
        let batch = Stamps::for_pids(&pids, Default::default());
        assert!(batch.listed.is_some(), "/proc is listed for a batch of {}", pids.len());
        for &p in &pids {
            assert_eq!(batch.get(p), holder_stamp(p), "pid {p}");
        }
        assert_ne!(batch.get(me), STAMP_NOBODY);
        assert_eq!(batch.get(4_000_000), STAMP_NOBODY);
        assert!(Stamps::for_pids(&[me], Default::default()).listed.is_none(), "a short batch is looked up pid by pid");
    }
}
