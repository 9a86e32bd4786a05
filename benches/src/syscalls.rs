//! System calls per iteration of a bench body's measured part, counted
//! exactly with `ptrace`.
//!
//! [`count`] forks a child that asks to be traced and runs a body; the
//! parent lets it run freely (`PTRACE_CONT`) except inside *windows*: the
//! measured part of each iteration, which [`crate::cases::timed`] and
//! [`crate::cases::timed_each`] bracket with [`begin`] and [`end`] when
//! counting is on. [`begin`] stops the calling thread with a thread-directed
//! `SIGSTOP`, upon which the parent switches to `PTRACE_SYSCALL` and counts
//! each system call entry of that thread by number
//! (`PTRACE_GET_SYSCALL_INFO`); [`end`] makes a marker call
//! (`close(END_MARK)`, which fails with `EBADF`) upon which the parent lets
//! the child run freely again. So set-up, clean-up and the markers
//! themselves are not counted, and only the thread that runs the body is
//! (threads the child starts are not traced; processes it spawns neither).
//! The handoff's peers count their own calls: a peer started by a counted
//! bench process (told by [`PEER_ENV`]) serves in a traced child of its own
//! ([`count_peer`]), each measured request a window, and writes what it
//! counted to a file that [`count_benches`] reads back (`handoff_peer/...`);
//! so do the peers of an all-to-all of two (`all_to_all_export/...`,
//! `all_to_all_import/...`: one export, one import + reserve + map + grant).
//! Counts are exact: the same on a loaded machine as on a quiet one.
//!
//! This needs `ptrace` on one's own child (allowed unless a seccomp policy
//! or Yama's `ptrace_scope = 3` forbids it: [`available`] says) and a
//! process with one thread at the fork (a test without libtest's harness,
//! or a binary).

use std::collections::BTreeMap;
use std::os::fd::OwnedFd;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::error::{BenchError, Result};

/// The marker of a window's end: a file descriptor no process has.
const END_MARK: i64 = -0x7653_0001;

/// On in the traced child only.
static COUNTING: AtomicBool = AtomicBool::new(false);
/// Windows opened so far in this process.
static WINDOWS: AtomicU64 = AtomicU64::new(0);

/// Opens a window: the system calls this thread makes until [`end`] are
/// counted. Does nothing unless this process is being counted.
pub fn begin() {
    if COUNTING.load(Ordering::Relaxed) {
        WINDOWS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: plain system calls; SIGSTOP to this thread stops it until
        // the tracing parent resumes it (the signal is suppressed there).
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid);
            libc::syscall(libc::SYS_tgkill, libc::getpid(), tid, libc::SIGSTOP);
        }
    }
}

/// Closes the window [`begin`] opened.
pub fn end() {
    if COUNTING.load(Ordering::Relaxed) {
        // SAFETY: close of a descriptor that cannot exist fails with EBADF and
        // touches nothing; the tracing parent recognises the argument.
        unsafe {
            libc::syscall(libc::SYS_close, END_MARK);
        }
    }
}

/// The windows opened so far by this process (to tell which windows an
/// entry ran).
pub fn windows() -> u64 {
    WINDOWS.load(Ordering::Relaxed)
}

/// The system calls of one labelled run of windows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tally {
    /// What ran (a bench id).
    pub label: String,
    /// Windows (iterations) counted.
    pub windows: u64,
    /// Calls per system call name, over all windows.
    pub calls: BTreeMap<String, u64>,
    /// Fewest calls in one window.
    pub min: u64,
    /// Most calls in one window.
    pub max: u64,
}

impl Tally {
    /// All calls over all windows.
    pub fn total(&self) -> u64 {
        self.calls.values().sum()
    }

    /// Calls per window (iteration).
    pub fn per_window(&self) -> f64 {
        if self.windows == 0 { 0.0 } else { self.total() as f64 / self.windows as f64 }
    }

    /// `name ×k` per window, most frequent first (`mmap ×2, mprotect ×1`).
    pub fn breakdown(&self) -> String {
        let mut v: Vec<_> = self.calls.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let w = self.windows.max(1);
        v.iter()
            .map(
                |&(n, &c)| {
                    if c % w == 0 { format!("{n} ×{}", c / w) } else { format!("{n} ×{:.2}", c as f64 / w as f64) }
                },
            )
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The interface `body` gets in the traced child: it names what the
/// windows opened since the last label were.
#[derive(Debug)]
pub struct Labels {
    out: std::fs::File,
    last: u64,
}

impl Labels {
    /// The windows opened since the previous call were `label`'s.
    ///
    /// # Errors
    /// The pipe to the parent failed.
    pub fn label(&mut self, label: &str) -> Result<()> {
        use std::io::Write;
        let now = windows();
        let line = format!("{} {}\n", now - self.last, label.replace('\n', " "));
        self.last = now;
        self.out.write_all(line.as_bytes()).map_err(|e| BenchError::io("writing to the counting parent", e))
    }
}

/// Whether this process may trace a child of its own: `None` when it may,
/// else why not.
pub fn available() -> Option<String> {
    match count(|_| Ok(())) {
        Ok(_) => None,
        Err(e) => Some(e.to_string()),
    }
}

/// Runs `body` in a traced child and returns the system calls of the
/// windows it opened, as labelled with [`Labels::label`] (windows after the
/// last label are dropped). The calling process must have one thread.
///
/// # Errors
/// `fork`, `ptrace` or the pipe failed, or the child failed (its error was
/// printed on its stderr) or was killed.
pub fn count(body: impl FnOnce(&mut Labels) -> Result<()>) -> Result<Vec<Tally>> {
    let (rd, wr) = rustix::pipe::pipe_with(rustix::pipe::PipeFlags::CLOEXEC).map_err(|e| BenchError::io("pipe", e))?;
    // SAFETY: the child runs only the body and exits with `_exit`; the
    // calling process has one thread (documented), so no lock is held by a
    // thread that does not exist in the child.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(BenchError::io("fork", std::io::Error::last_os_error()));
    }
    if pid == 0 {
        drop(rd);
        let code = child(wr, body);
        // SAFETY: ends the child without running the parent's exit handlers.
        unsafe { libc::_exit(code) }
    }
    drop(wr);
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let mut f = std::fs::File::from(rd);
        std::io::Read::read_to_string(&mut f, &mut s).map(|_| s)
    });
    let traced = trace(pid);
    let labels = reader.join().map_err(|_| BenchError::Check("the label reader panicked".into()))?;
    let windows = traced?;
    let labels = labels.map_err(|e| BenchError::io("reading the labels", e))?;
    split(windows, &labels)
}

fn child(wr: OwnedFd, body: impl FnOnce(&mut Labels) -> Result<()>) -> i32 {
    // SAFETY: plain system calls; after TRACEME the SIGSTOP waits for the
    // parent, which sets its options and resumes this process.
    let ok = unsafe {
        libc::ptrace(libc::PTRACE_TRACEME, 0, null_mut::<libc::c_void>(), null_mut::<libc::c_void>()) == 0
            && libc::raise(libc::SIGSTOP) == 0
    };
    if !ok {
        eprintln!("ptrace(PTRACE_TRACEME): {}", std::io::Error::last_os_error());
        return 3;
    }
    COUNTING.store(true, Ordering::Relaxed);
    let mut labels = Labels { out: std::fs::File::from(wr), last: windows() };
    match body(&mut labels) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("counted child: {e}");
            2
        }
    }
}

/// One window's calls by number.
type Window = BTreeMap<u64, u64>;

/// Traces `pid` to its exit, returning its windows in order.
fn trace(pid: i32) -> Result<Vec<Window>> {
    // Kills the child if tracing fails half-way (it would stay stopped).
    struct Guard(i32, bool);
    impl Drop for Guard {
        fn drop(&mut self) {
            if !self.1 {
                // SAFETY: kill and reap our own child.
                unsafe {
                    libc::kill(self.0, libc::SIGKILL);
                    libc::waitpid(self.0, std::ptr::null_mut(), libc::__WALL);
                }
            }
        }
    }
    let mut guard = Guard(pid, false);
    let wait = || -> Result<i32> {
        let mut st = 0;
        // SAFETY: waits for our own child.
        if unsafe { libc::waitpid(pid, &mut st, libc::__WALL) } != pid {
            return Err(BenchError::io("waitpid", std::io::Error::last_os_error()));
        }
        Ok(st)
    };
    let resume = |req: libc::c_uint, sig: i32| -> Result<()> {
        // SAFETY: resumes our stopped tracee.
        if unsafe { libc::ptrace(req, pid, null_mut::<libc::c_void>(), sig as usize as *mut libc::c_void) } != 0 {
            return Err(BenchError::io("ptrace(resume)", std::io::Error::last_os_error()));
        }
        Ok(())
    };
    let st = wait()?;
    if !libc::WIFSTOPPED(st) {
        guard.1 = libc::WIFEXITED(st) || libc::WIFSIGNALED(st);
        return Err(BenchError::Check(format!("the counted child did not stop for tracing (status {st:#x})")));
    }
    let opts = libc::PTRACE_O_TRACESYSGOOD | libc::PTRACE_O_EXITKILL;
    // SAFETY: sets options of our stopped tracee.
    if unsafe {
        libc::ptrace(libc::PTRACE_SETOPTIONS, pid, null_mut::<libc::c_void>(), opts as usize as *mut libc::c_void)
    } != 0
    {
        return Err(BenchError::io("ptrace(PTRACE_SETOPTIONS)", std::io::Error::last_os_error()));
    }
    resume(libc::PTRACE_CONT, 0)?;
    let mut windows = Vec::new();
    let mut open: Option<Window> = None;
    loop {
        let st = wait()?;
        if libc::WIFEXITED(st) || libc::WIFSIGNALED(st) {
            guard.1 = true;
            if libc::WIFEXITED(st) && libc::WEXITSTATUS(st) == 0 {
                return Ok(windows);
            }
            return Err(BenchError::Check(format!("the counted child failed (wait status {st:#x}; see its stderr)")));
        }
        let sig = libc::WSTOPSIG(st);
        if sig == libc::SIGTRAP | 0x80 {
            let info = syscall_info(pid)?;
            let Some(w) = open.as_mut() else {
                resume(libc::PTRACE_CONT, 0)?;
                continue;
            };
            if let Some((nr, arg0)) = info {
                if nr == libc::SYS_close as u64 && arg0 as i64 == END_MARK {
                    windows.push(open.take().expect("open"));
                    resume(libc::PTRACE_CONT, 0)?;
                    continue;
                }
                *w.entry(nr).or_default() += 1;
            }
            resume(libc::PTRACE_SYSCALL, 0)?;
        } else if sig == libc::SIGSTOP && open.is_none() {
            open = Some(Window::new());
            resume(libc::PTRACE_SYSCALL, 0)?;
        } else {
            let req = if open.is_some() { libc::PTRACE_SYSCALL } else { libc::PTRACE_CONT };
            resume(req, sig)?;
        }
    }
}

/// At a system call stop: `Some((number, first argument))` at an entry,
/// `None` at an exit.
fn syscall_info(pid: i32) -> Result<Option<(u64, u64)>> {
    // SAFETY: an all-zero ptrace_syscall_info is valid (plain integers).
    let mut info: libc::ptrace_syscall_info = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::ptrace_syscall_info>();
    // SAFETY: the kernel writes at most `size` bytes into `info`.
    let n = unsafe {
        libc::ptrace(
            libc::PTRACE_GET_SYSCALL_INFO,
            pid,
            size as *mut libc::c_void,
            (&raw mut info).cast::<libc::c_void>(),
        )
    };
    if n < 0 {
        return Err(BenchError::io("ptrace(PTRACE_GET_SYSCALL_INFO)", std::io::Error::last_os_error()));
    }
    if info.op != libc::PTRACE_SYSCALL_INFO_ENTRY {
        return Ok(None);
    }
    // SAFETY: op == ENTRY, so the union holds `entry`.
    let e = unsafe { info.u.entry };
    Ok(Some((e.nr, e.args[0])))
}

/// Splits the windows by the child's labels (`<windows> <label>` lines).
fn split(windows: Vec<Window>, labels: &str) -> Result<Vec<Tally>> {
    let mut it = windows.into_iter();
    let mut out = Vec::new();
    for line in labels.lines() {
        let (n, label) = line.split_once(' ').ok_or_else(|| BenchError::Check(format!("bad label line {line:?}")))?;
        let n: u64 = n.parse().map_err(|_| BenchError::Check(format!("bad label line {line:?}")))?;
        let mut t = Tally { label: label.to_owned(), windows: n, calls: BTreeMap::new(), min: u64::MAX, max: 0 };
        for _ in 0..n {
            let w = it.next().ok_or_else(|| BenchError::Check(format!("{label}: fewer windows than labelled")))?;
            let sum: u64 = w.values().sum();
            t.min = t.min.min(sum);
            t.max = t.max.max(sum);
            for (nr, c) in w {
                *t.calls.entry(name(nr)).or_default() += c;
            }
        }
        if n == 0 {
            t.min = 0;
        }
        out.push(t);
    }
    Ok(out)
}

/// The name of system call `nr` (the ones the emulator and the floors make;
/// `syscall_<nr>` for others).
pub fn name(nr: u64) -> String {
    macro_rules! names {
        ($($n:ident),* $(,)?) => {
            $( if nr == libc::$n as u64 { return stringify!($n)[4..].to_owned(); } )*
        };
    }
    #[cfg(target_arch = "x86_64")]
    names!(SYS_open, SYS_stat, SYS_lstat, SYS_fstat, SYS_access, SYS_link, SYS_unlink, SYS_rename, SYS_getdents);
    names!(
        SYS_read,
        SYS_write,
        SYS_close,
        SYS_mmap,
        SYS_munmap,
        SYS_mprotect,
        SYS_madvise,
        SYS_mremap,
        SYS_openat,
        SYS_ftruncate,
        SYS_fallocate,
        SYS_flock,
        SYS_fcntl,
        SYS_pread64,
        SYS_pwrite64,
        SYS_fsetxattr,
        SYS_fgetxattr,
        SYS_fremovexattr,
        SYS_lseek,
        SYS_linkat,
        SYS_unlinkat,
        SYS_renameat2,
        SYS_newfstatat,
        SYS_statx,
        SYS_faccessat,
        SYS_faccessat2,
        SYS_memfd_create,
        SYS_getpid,
        SYS_gettid,
        SYS_futex,
        SYS_sendmsg,
        SYS_recvmsg,
        SYS_sendto,
        SYS_recvfrom,
        SYS_readlinkat,
        SYS_getdents64,
        SYS_clock_gettime,
        SYS_fsync,
        SYS_fdatasync,
        SYS_dup,
        SYS_dup3,
        SYS_ioctl,
        SYS_kill,
        SYS_tgkill,
        SYS_getrandom,
        SYS_sched_yield,
        SYS_epoll_wait,
        SYS_epoll_pwait,
        SYS_ppoll,
        SYS_rt_sigprocmask,
        SYS_msync,
        SYS_mincore,
        SYS_process_vm_readv,
        SYS_process_vm_writev,
        SYS_pidfd_open,
        SYS_getppid,
        SYS_fchmod,
        SYS_fchown,
        SYS_fstatfs,
        SYS_statfs,
        SYS_socketpair,
        SYS_eventfd2,
        SYS_prctl,
        SYS_sigaltstack,
        SYS_rt_sigaction,
    );
    format!("syscall_{nr}")
}

/// The bench targets counted by [`count_benches`]: the control operations
/// (copies and the stream benches make no system call of their own, or
/// make them on other threads).
pub const TARGETS: &[&str] =
    &["alloc", "reserve", "map", "export", "handoff", "reimport", "lookup", "calls", "all_to_all"];

/// System calls an operation makes beyond its floor's, and why each is
/// unavoidable: (bench group, sharing, call, per iteration, reason), where
/// sharing is `"key"` (ACL: `emulator`, `ascend`), `"fd"` (HIP, CUDA) or
/// `"*"`. The test `tests/syscalls.rs` holds every operation to its
/// reference's calls, name by name, plus these; the report prints them.
pub const EXTRA: &[(&str, &str, &str, u64, &str)] = &[
    (
        "export",
        "*",
        "open",
        1,
        "memory not shared lives in the process's arena, with no file of its own (no open file per \
         allocation: `RLIMIT_NOFILE` does not bound live allocations); an entry is a file, so the first \
         export makes one (`open(O_TMPFILE)`): the call the floor's allocation made, deferred to the \
         export (the floor's file exists already). Memory never mapped nor copied to is all holes in \
         the arena: no `lseek(SEEK_DATA)` and copy, no punch of its range (`core/backing.rs`)",
    ),
    (
        "export",
        "*",
        "ftruncate",
        1,
        "that file sized for the entry (the memory and the metadata tail): the floor's allocation's \
         `ftruncate`, deferred with the `open`",
    ),
    (
        "export",
        "*",
        "fsetxattr",
        1,
        "the entry's header (key, size, place, properties, trust, exporter), which importers read, \
         as the file's extended attribute: where it cannot be one, a `pwrite` into the tail, whose \
         first write allocates and zeroes a page (about 2 µs, four times the attribute)",
    ),
    (
        "export",
        "*",
        "flock",
        1,
        "the exporter's hold, taken before the name appears: an entry nobody holds was left by \
         dead processes, and lookups collect it (ACL-LIFE-003/004); taken at the allocation \
         instead, it would make alloc + free one call more than its floor",
    ),
    (
        "export",
        "fd",
        "openat",
        1,
        "the fd handed out is an open file description of its own (the new name, opened in \
         `shared/`), so that it holds the memory after the exporter frees it, for as long as it \
         is open anywhere; a `dup` would share the exporter's description and its lock, and the \
         exporter's free would then take itself for the last holder",
    ),
    ("export", "fd", "flock", 1, "that description's hold (the fd is a holder of the entry)"),
    (
        "reimport",
        "fd",
        "fstat",
        1,
        "the fd is a number the caller passes: one `fstat` finds a closed or non-file number \
         (HIP-VMM-027, CUDA-VMM-017) and names the file (device, inode), by which a repeated \
         import finds the hold this process has on it and makes a new handle sharing it \
         (HIP and CUDA give a new handle per import: ROCm/clr `hipamd/src/hip_vm.cpp:242-243`)",
    ),
    (
        "handoff_peer",
        "*",
        "mmap",
        1,
        "the reservation's own `mmap(PROT_NONE)`: the peer reserves before it maps (a call of its own, \
         which must own the addresses before anything is mapped there); the floor maps anywhere",
    ),
    (
        "handoff_peer",
        "*",
        "mmap",
        1,
        "the imported memory's access history (docs/streams.md, \"Across processes\"), mapped once per \
         handle at its first checked access, here the peer's read: the unsynchronised-access check then \
         writes and reads it with no call per access",
    ),
    (
        "handoff_peer",
        "key",
        "flock",
        2,
        "the lookup's `LOCK_EX | LOCK_NB` (an entry nobody holds is collected, not imported: \
         ACL-LIFE-003/004) and the hold's `LOCK_SH`",
    ),
    (
        "handoff_peer",
        "*",
        "fstat",
        1,
        "after the lock: the entry may have been removed between the `open` and the lock (still \
         linked?), and its length places the header",
    ),
    (
        "handoff_peer",
        "*",
        "fgetxattr",
        1,
        "the entry's header (size, place, properties, trust, exporter), the file's extended attribute, \
         with the trustlist when it lists at most 64 pids (ACL-IMP-011/012: the handoff's exporter \
         trusts the peer by pid; a longer list is the tail's, one `pread` more)",
    ),
    (
        "handoff_peer",
        "fd",
        "fstat",
        1,
        "the fd is a number the caller passes: one `fstat` finds a closed or non-file number \
         (HIP-VMM-027, CUDA-VMM-017) and names the file for repeated imports",
    ),
    (
        "handoff_peer",
        "fd",
        "flock",
        1,
        "the hold, on an open file description of the import's own (`open` of `/proc/self/fd/N`, \
         in place of the floor's `open`): a `dup` would share the sender's description and its lock",
    ),
    (
        "import_lookup",
        "key",
        "flock",
        2,
        "`LOCK_EX | LOCK_NB` at the lookup (an entry nobody holds is collected, not imported: \
         ACL-LIFE-003/004) and at the free (the last holder removes the entry)",
    ),
    // The all-to-all's peers (two of them: one export and one import each,
    // beside the floor's tmpfs file and its one `mmap`). The export makes
    // the floor's `open` + `ftruncate` (deferred from the allocation) and
    // the calls `export` names above; the import those of the handoff's
    // peer without the first read (no access history, no fault).
    ("all_to_all_export", "*", "fsetxattr", 1, "the entry's header (as `export`)"),
    (
        "all_to_all_export",
        "key",
        "fsetxattr",
        1,
        "`aclrtMemSetPidToShareableHandle`, a call of its own: the header and the trustlist of the \
         other ranks in one attribute, replaced whole. The ranks are processes using the same root, \
         so their pids are not looked up in `/proc` (`proc::STAMP_REGISTERED`; an `open`, a `read` and \
         a `close` per pid, which was 9 calls per pid through `fs::read_to_string`)",
    ),
    ("all_to_all_export", "*", "flock", 1, "the exporter's hold (as `export`)"),
    ("all_to_all_export", "*", "linkat", 1, "the entry's name, by which the key finds it (as `export`)"),
    ("all_to_all_export", "fd", "openat", 1, "the fd's own open file description (as `export`)"),
    ("all_to_all_export", "fd", "flock", 1, "that description's hold (as `export`)"),
    (
        "all_to_all_import",
        "key",
        "open",
        1,
        "the entry by name: the only way from a 64-bit key to the memory (the floor was handed an fd)",
    ),
    (
        "all_to_all_import",
        "fd",
        "open",
        1,
        "an open file description of the import's own (`/proc/self/fd/N`), for a hold of its own: \
         a `dup` would share the sender's description and its lock",
    ),
    (
        "all_to_all_import",
        "key",
        "flock",
        2,
        "the lookup's `LOCK_EX | LOCK_NB` (an entry nobody holds was left by dead processes: collected, \
         not imported, ACL-LIFE-003/004) and the hold's `LOCK_SH` (reference count, cleanup on death); \
         no one lock call both takes a shared hold and says whether others hold one",
    ),
    ("all_to_all_import", "fd", "flock", 1, "the hold's `LOCK_SH` (reference count, cleanup on death)"),
    (
        "all_to_all_import",
        "*",
        "fstat",
        1,
        "after the lock: the entry may have been removed between the `open` and the lock (still \
         linked?), and its length: a file cut short would make the mapping `SIGBUS` instead of an \
         error code",
    ),
    (
        "all_to_all_import",
        "fd",
        "fstat",
        1,
        "the fd is a number the caller passes: closed or not a file (HIP-VMM-027, CUDA-VMM-017), and \
         its (device, inode) finds a hold this process has already",
    ),
    (
        "all_to_all_import",
        "*",
        "fgetxattr",
        1,
        "the header (size, place, properties, trust, exporter; ACL: the trustlist with it, ACL-IMP-011/012)",
    ),
    (
        "all_to_all_import",
        "*",
        "mmap",
        1,
        "the reservation's own `mmap(PROT_NONE)` (`aclrtReserveMemAddress` is a call of its own, which \
         must own the addresses before anything is mapped there); the floor maps anywhere",
    ),
];

/// Whether the backend named `function` in a bench id shares by key (ACL;
/// the references of the key-only groups, such as `hot10`, too).
pub fn by_key(function: &str) -> bool {
    !matches!(function, "emulator-hip" | "emulator-cuda" | "hip" | "cuda")
}

/// Calls an operation makes in place of one of its floor's, as many times
/// and for the same purpose: (bench group, call, the floor's call, reason).
/// The test allows each as many times as the reference makes the other
/// more than the operation does.
pub const INSTEAD: &[(&str, &str, &str, &str)] = &[
    (
        "import_lookup",
        "fgetxattr",
        "pread64",
        "the entry's header, read from the file's extended attribute (see export)",
    ),
    (
        "alloc_free",
        "fallocate",
        "close",
        "the memory is a range of the process's arena, not a file: the free of memory that was mapped \
         or copied to gives its pages back (`FALLOC_FL_PUNCH_HOLE`) where the floor closes its file \
         (and the allocation opens and sizes none); memory never written has no pages: no call at all \
         (the bench's case)",
    ),
];

/// The extra calls [`EXTRA`] allows the backend `function` in `group` for
/// the call `name`.
pub fn extra(group: &str, function: &str, name: &str) -> u64 {
    let kind = if by_key(function) { "key" } else { "fd" };
    EXTRA.iter().filter(|e| e.0 == group && (e.1 == "*" || e.1 == kind) && e.2 == name).map(|e| e.3).sum()
}

/// Iterations counted per entry.
pub const ITERS: u64 = 16;

/// The variable that tells a bench peer to count its own calls, and the
/// directory it writes them to ([`count_peer`]).
pub const PEER_ENV: &str = "VMMKIT_BENCH_PEER_COUNT";

/// The directory of the peers' tallies, set in the counting process
/// before its counted child is forked ([`count_benches`]).
static PEER_DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();

/// Where the peers of this (counted) process write their tallies, if they
/// count: [`crate::peer::Peer::spawn`] passes it on in [`PEER_ENV`].
pub fn peer_dir() -> Option<&'static std::path::Path> {
    PEER_DIR.get().map(std::path::PathBuf::as_path)
}

/// A peer's serving, counted: runs `serve` in a traced child (each
/// measured request a window, labelled on its own), then writes the
/// tallies to a file of its own in `dir`, one window a line:
/// `label<TAB>name=count,name=count`.
///
/// # Errors
/// As [`count`], or the file could not be written.
pub fn count_peer(dir: &std::path::Path, serve: impl FnOnce(&mut Labels) -> Result<()>) -> Result<()> {
    let tallies = count(serve)?;
    let mut text = String::new();
    for t in &tallies {
        let calls: Vec<String> = t.calls.iter().map(|(n, c)| format!("{n}={c}")).collect();
        text.push_str(&format!("{}\t{}\n", t.label, calls.join(",")));
    }
    let path = dir.join(format!("peer-{}.txt", std::process::id()));
    std::fs::write(&path, text).map_err(|e| BenchError::io(format!("writing {}", path.display()), e))
}

/// The peers' tallies in `dir`, one per label: each label's first window
/// (the entry's uncounted warm-up run; the peer cannot tell it) dropped,
/// the others summed.
fn peer_tallies(dir: &std::path::Path) -> Result<Vec<Tally>> {
    let mut out: Vec<Tally> = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| BenchError::io(format!("reading {}", dir.display()), e))?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()
        .map_err(|e| BenchError::io(format!("reading {}", dir.display()), e))?;
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| BenchError::io(format!("reading {}", f.display()), e))?;
        let mut seen = std::collections::HashSet::new();
        for line in text.lines() {
            let bad = || BenchError::Check(format!("{}: bad line {line:?}", f.display()));
            let (label, calls) = line.split_once('\t').ok_or_else(bad)?;
            if seen.insert(label.to_owned()) {
                continue; // the warm-up
            }
            let mut window = BTreeMap::new();
            for c in calls.split(',').filter(|c| !c.is_empty()) {
                let (n, k) = c.split_once('=').ok_or_else(bad)?;
                window.insert(n.to_owned(), k.parse::<u64>().map_err(|_| bad())?);
            }
            let sum: u64 = window.values().sum();
            let i = match out.iter().position(|t| t.label == label) {
                Some(i) => i,
                None => {
                    out.push(Tally {
                        label: label.to_owned(),
                        windows: 0,
                        calls: BTreeMap::new(),
                        min: u64::MAX,
                        max: 0,
                    });
                    out.len() - 1
                }
            };
            let t = &mut out[i];
            t.windows += 1;
            t.min = t.min.min(sum);
            t.max = t.max.max(sum);
            for (n, k) in window {
                *t.calls.entry(n).or_default() += k;
            }
        }
    }
    Ok(out)
}

/// Every entry of [`TARGETS`] on the smoke plan, in a traced child with a
/// fresh root: each set up and run once uncounted, then [`ITERS`] times
/// counted. Labels are the bench ids.
///
/// # Errors
/// As [`count`]; the child's errors are printed on its stderr.
pub fn count_benches(peer_exe: std::path::PathBuf) -> Result<Vec<Tally>> {
    count_benches_of(peer_exe, TARGETS)
}

/// As [`count_benches`], for the bench targets `targets` (of `cases::ALL`).
///
/// # Errors
/// As [`count`]; the child's errors are printed on its stderr.
pub fn count_benches_of(peer_exe: std::path::PathBuf, targets: &[&str]) -> Result<Vec<Tally>> {
    use crate::cases::{ALL, Env};
    let peers = tempfile::Builder::new()
        .prefix("vmmkit-peer-count-")
        .tempdir()
        .map_err(|e| BenchError::io("making the peers' tally directory", e))?;
    if PEER_DIR.set(peers.path().to_owned()).is_err() {
        return Err(BenchError::Check("count_benches runs once per process".into()));
    }
    let mut out = count(|labels| {
        let root = crate::root::BenchRoot::install()?;
        let env = Env::new(root, crate::plan::Plan::Smoke, peer_exe)?;
        for (_, build) in ALL.iter().filter(|(t, _)| targets.contains(t)) {
            for mut e in build(&env)? {
                COUNTING.store(false, Ordering::Relaxed);
                let warm = e.case.run(1);
                COUNTING.store(true, Ordering::Relaxed);
                warm?;
                e.case.run(ITERS)?;
                labels.label(&e.id())?;
            }
        }
        env.close()
    })?;
    out.extend(peer_tallies(peers.path())?);
    Ok(out)
}
