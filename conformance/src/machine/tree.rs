//! The program's process tree under `vmmkit run`: its own process group,
//! the terminal, the signals `vmmkit run` passes on, and the end of the tree
//! when it does not end by itself.
//!
//! - The program starts in a process group of its own, so its
//!   `kill(0, SIGTERM)` (or a shell's `kill 0`) reaches its tree, not
//!   `vmmkit run`.
//! - On a terminal where `vmmkit run` is in the foreground, the program's
//!   group becomes the terminal's foreground group, as a shell makes a job's:
//!   Ctrl-C and Ctrl-\ reach the program directly, and it can read the
//!   terminal. When the program is stopped (Ctrl-Z, or reading the terminal
//!   from the background), `vmmkit run` takes the terminal back and stops
//!   too; continued (`fg`, `bg`), it hands the terminal back if it is in the
//!   foreground and continues the program. When the tree has ended, the
//!   terminal is given back to `vmmkit run`'s group.
//! - SIGTERM, SIGHUP, SIGINT and SIGQUIT sent to `vmmkit run` are passed to
//!   the program's group and to every process of the tree outside it (one
//!   that called `setsid` or `setpgid`). A second such signal, or
//!   [`Args::grace`](super::Args) seconds after the first (10 by default),
//!   SIGKILLs the whole tree: every descendant of `vmmkit run`, whatever its
//!   group or session (found in `/proc`: `vmmkit run` is the subreaper, so
//!   every process of the tree, orphans included, descends from it), again
//!   every 20 ms until the last is reaped, so that a process forked in the
//!   meantime goes too.
//!
//! Signals are not caught by a handler or a thread: [`Guard::install`]
//! blocks [`FORWARDED`] and `SIGCHLD` in the calling thread (before any
//! other is started, so every thread of `vmmkit run` has them blocked), and
//! the one thread that waits for the tree takes them with `sigtimedwait`
//! ([`Guard::pause`]) between its `waitpid`s. A signal that comes before the
//! program has started stays pending and is passed on once it has; one that
//! comes after the tree has ended stays pending until `vmmkit run` exits, so
//! that the report, gc and the removal of the machine are not cut short.
//! The program starts with none blocked ([`Guard::prepare`]).

use std::collections::{BTreeMap, BTreeSet};
use std::io::IsTerminal;
use std::os::fd::{AsFd, AsRawFd};
use std::os::unix::process::CommandExt;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::Context;
use libc::{SIGCHLD, SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use rustix::process::{Pid, Signal};

/// The signals `vmmkit run` passes on to the program's tree.
pub const FORWARDED: [i32; 4] = [SIGTERM, SIGHUP, SIGINT, SIGQUIT];

/// How often the tree is SIGKILLed again, once it is being ended, until
/// the last process of it has been reaped.
const KILL_AGAIN: Duration = Duration::from_millis(20);

/// The name of a signal `vmmkit run` passes on.
pub fn name(sig: i32) -> &'static str {
    match sig {
        SIGTERM => "SIGTERM",
        SIGHUP => "SIGHUP",
        SIGINT => "SIGINT",
        SIGQUIT => "SIGQUIT",
        _ => "a signal",
    }
}

fn signal(sig: i32) -> Signal {
    match sig {
        SIGHUP => Signal::HUP,
        SIGINT => Signal::INT,
        SIGQUIT => Signal::QUIT,
        _ => Signal::TERM,
    }
}

/// What happened to the tree because of signals to `vmmkit run`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Outcome {
    /// The first signal `vmmkit run` got, passed on to the tree.
    pub signal: Option<i32>,
    /// Why the tree was SIGKILLed (a second signal, the grace period), and
    /// how many processes were killed.
    pub killed: Option<(String, usize)>,
}

impl Outcome {
    /// Words for the report's status line; empty when no signal came.
    pub fn words(&self) -> String {
        let Some(sig) = self.signal else { return String::new() };
        let mut s = format!(" (vmmkit run got {} and passed it to the program", name(sig));
        if let Some((why, n)) = &self.killed {
            s += &format!("; {why}, it SIGKILLed the {n} process(es) left of the tree");
        }
        s + ")"
    }
}

/// The set of [`FORWARDED`] and `SIGCHLD`.
fn blocked_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set on the stack before sigaddset
    // adds to it; both only write to it.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in FORWARDED.into_iter().chain([SIGCHLD]) {
            libc::sigaddset(&mut set, sig);
        }
        set
    }
}

/// Signals taken and passed on, from before the program starts until its
/// tree has ended, in the thread that waits for the tree.
#[derive(Debug)]
pub struct Guard {
    grace: Duration,
    terminal: Option<Terminal>,
    group: Option<Pid>,
    out: Outcome,
    /// When the tree is SIGKILLed, once a first signal came.
    deadline: Option<Instant>,
    /// Why the tree is being SIGKILLed, and the processes killed so far.
    killing: Option<(String, BTreeSet<i32>)>,
}

impl Guard {
    /// Blocks [`FORWARDED`] and `SIGCHLD` in the calling thread, to be
    /// taken by [`Guard::pause`]; `grace`: how long the tree is given after
    /// the first signal before it is SIGKILLed. Call it before starting any
    /// other thread (they inherit the mask).
    pub fn install(grace: Duration) -> anyhow::Result<Self> {
        let set = blocked_set();
        // SAFETY: blocks signals in this thread; `set` is initialised.
        let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
        if rc != 0 {
            return Err(std::io::Error::from_raw_os_error(rc))
                .context("blocking SIGTERM, SIGHUP, SIGINT, SIGQUIT and SIGCHLD");
        }
        Ok(Self {
            grace,
            terminal: Terminal::on_stdin(),
            group: None,
            out: Outcome::default(),
            deadline: None,
            killing: None,
        })
    }
    /// Makes `cmd` start the program in a process group of its own (the
    /// terminal's foreground group, when `vmmkit run` has the terminal),
    /// with no signal blocked (`vmmkit run` blocks those it takes; a spawned
    /// process would inherit the mask).
    pub fn prepare(&self, cmd: &mut Command) {
        cmd.process_group(0);
        let terminal = self.terminal.as_ref().filter(|t| t.foreground).map(|t| t.fd);
        // SAFETY: the closure runs in the child between fork and exec, and
        // calls only async-signal-safe functions (sigemptyset,
        // pthread_sigmask, getpid, tcsetpgrp) on plain stack values.
        unsafe {
            cmd.pre_exec(move || {
                let mut none: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut none);
                libc::pthread_sigmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
                if let Some(fd) = terminal {
                    take_terminal(fd, libc::getpid());
                }
                Ok(())
            });
        }
    }

    /// The program started as `pid` (the leader of its group): a signal
    /// that came before is passed on at the first [`Guard::pause`].
    pub fn started(&mut self, pid: Pid) {
        self.group = Some(pid);
        if let Some(t) = self.terminal.as_ref().filter(|t| t.foreground) {
            take_terminal(t.fd, pid.as_raw_nonzero().get());
        }
    }

    /// Waits until a child may have changed state (`SIGCHLD`), a signal to
    /// pass on comes, or it is time to SIGKILL the tree (again), and acts on
    /// it: passes the first signal on, ends the tree at a second one or when
    /// the grace period has passed, and SIGKILLs it again every
    /// [`KILL_AGAIN`] until the caller has reaped its last process.
    pub fn pause(&mut self) {
        let timeout = if self.killing.is_some() {
            Some(KILL_AGAIN)
        } else {
            self.deadline.map(|d| d.saturating_duration_since(Instant::now()))
        };
        match take(timeout) {
            Some(SIGCHLD) => {}
            Some(sig) if self.out.signal.is_none() => {
                self.out.signal = Some(sig);
                self.deadline = Some(Instant::now() + self.grace);
                let whom = self
                    .group
                    .map_or_else(|| "it starts".to_string(), |g: Pid| format!("group {}", g.as_raw_nonzero()));
                say!(
                    "vmmkit run: got {}: passed to the program ({whom}); the tree is SIGKILLed in {} s or at a second signal",
                    name(sig),
                    self.grace.as_secs_f64()
                );
                forward(self.group, signal(sig));
            }
            Some(sig) => {
                if self.killing.is_none() {
                    say!("vmmkit run: got {} again: SIGKILLing the program's tree", name(sig));
                    self.killing = Some((format!("at a second {}", name(sig)), BTreeSet::new()));
                }
            }
            None => {
                let due = self.deadline.is_some_and(|d| Instant::now() >= d);
                if self.killing.is_none() && due {
                    say!(
                        "vmmkit run: the program's tree did not end within {} s of the signal: SIGKILLing it",
                        self.grace.as_secs_f64()
                    );
                    self.killing =
                        Some((format!("after the {} s grace period", self.grace.as_secs_f64()), BTreeSet::new()));
                }
            }
        }
        if let Some((_, killed)) = &mut self.killing {
            if let Some(g) = self.group {
                let _ = rustix::process::kill_process_group(g, Signal::KILL);
            }
            let tree = descendants();
            for &pid in &tree {
                if signal_descendant(pid, Signal::KILL, &tree) {
                    killed.insert(pid);
                }
            }
        }
    }

    /// The program was stopped by job control (Ctrl-Z, or reading the
    /// terminal from the background): on a terminal, `vmmkit run` takes the
    /// terminal back if the program had it and stops itself, as the job it
    /// is to its shell; continued (`fg`, `bg`), it hands the terminal to the
    /// program again if `vmmkit run` is in the foreground, and continues the
    /// program's group. Without a terminal nothing is done (nobody there
    /// would continue `vmmkit run`).
    pub fn stopped(&self) {
        let (Some(t), Some(group)) = (&self.terminal, self.group) else { return };
        let group = group.as_raw_nonzero().get();
        if t.foreground_group() == Some(group) {
            take_terminal(t.fd, t.own);
        }
        let _ = rustix::process::kill_process(rustix::process::getpid(), Signal::TSTP);
        // Continued here.
        if t.foreground_group() == Some(t.own) {
            take_terminal(t.fd, group);
        }
        if let Some(g) = Pid::from_raw(group) {
            let _ = rustix::process::kill_process_group(g, Signal::CONT);
        }
    }

    /// The tree has ended: gives the terminal back and says what the
    /// signals did. The signals stay blocked (see the module's note).
    pub fn finish(self) -> Outcome {
        if let (Some(t), Some(group)) = (&self.terminal, self.group)
            && t.foreground_group() == Some(group.as_raw_nonzero().get())
        {
            take_terminal(t.fd, t.own);
        }
        let mut out = self.out;
        out.killed = self.killing.map(|(why, killed)| (why, killed.len()));
        out
    }
}

/// Takes one of the blocked signals, waiting at most `timeout` (no
/// limit: `None`); `None` when none came in time (or the wait was
/// interrupted by another signal, e.g. after a stop).
fn take(timeout: Option<Duration>) -> Option<i32> {
    let ts = timeout.map(|t| libc::timespec {
        tv_sec: libc::time_t::try_from(t.as_secs()).unwrap_or(libc::time_t::MAX),
        tv_nsec: t.subsec_nanos().into(),
    });
    let ts_ptr = ts.as_ref().map_or(std::ptr::null(), std::ptr::from_ref);
    let set = blocked_set();
    // SAFETY: `set` is an initialised sigset; `ts_ptr` is null or points
    // to a timespec that lives across the call; no siginfo is asked for.
    let sig = unsafe { libc::sigtimedwait(&set, std::ptr::null_mut(), ts_ptr) };
    (sig > 0).then_some(sig)
}

/// The terminal on standard input.
#[derive(Debug)]
struct Terminal {
    fd: i32,
    /// `vmmkit run`'s own group.
    own: i32,
    /// Whether `vmmkit run` was its foreground job when the run started.
    foreground: bool,
}

impl Terminal {
    fn on_stdin() -> Option<Self> {
        let stdin = std::io::stdin();
        if !stdin.is_terminal() {
            return None;
        }
        let fd = stdin.as_fd().as_raw_fd();
        let own = rustix::process::getpgrp().as_raw_nonzero().get();
        let mut t = Self { fd, own, foreground: false };
        t.foreground = t.foreground_group() == Some(own);
        Some(t)
    }

    /// Its foreground process group.
    fn foreground_group(&self) -> Option<i32> {
        // SAFETY: tcgetpgrp only reads the terminal's foreground group; a
        // bad or closed fd is an error return.
        let g = unsafe { libc::tcgetpgrp(self.fd) };
        (g > 0).then_some(g)
    }
}

/// Makes `group` the foreground group of the terminal `fd`, with SIGTTOU
/// blocked in the calling thread (a background process that changes the
/// foreground group is otherwise stopped by it). Async-signal-safe.
fn take_terminal(fd: i32, group: i32) {
    // SAFETY: plain libc calls on a sigset on the stack; `old` is written by
    // the first pthread_sigmask before the second reads it. A failing
    // tcsetpgrp (the group is gone) changes nothing.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTTOU);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut old);
        libc::tcsetpgrp(fd, group);
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
    }
}

/// Passes `sig` to the program's group and to every descendant outside it.
fn forward(group: Option<Pid>, sig: Signal) {
    let Some(g) = group else { return };
    let _ = rustix::process::kill_process_group(g, sig);
    let g = g.as_raw_nonzero().get();
    let tree = descendants();
    for &pid in &tree {
        if stat(pid).is_some_and(|s| s.pgrp != g) {
            signal_descendant(pid, sig, &tree);
        }
    }
}

/// Sends `sig` to `pid`, one of `tree` (the descendants of this process),
/// if it is still one of them: through a pidfd, so that a pid reused since
/// `tree` was read is not hit. Says whether it was sent.
fn signal_descendant(pid: i32, sig: Signal, tree: &BTreeSet<i32>) -> bool {
    let Some(p) = Pid::from_raw(pid) else { return false };
    let me = rustix::process::getpid().as_raw_nonzero().get();
    match rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()) {
        Ok(fd) => {
            // The pidfd names one process: check that it is still ours.
            if !stat(pid).is_some_and(|s| s.ppid == me || tree.contains(&s.ppid)) {
                return false;
            }
            rustix::process::pidfd_send_signal(fd, sig).is_ok()
        }
        // Kernels before 5.3: the plain pid.
        Err(rustix::io::Errno::NOSYS) => rustix::process::kill_process(p, sig).is_ok(),
        Err(_) => false,
    }
}

/// A process's parent and group, from `/proc/PID/stat`; `None` for a zombie
/// or a process that is gone.
#[derive(Debug, Clone, Copy)]
struct Stat {
    ppid: i32,
    pgrp: i32,
}

fn stat(pid: i32) -> Option<Stat> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 1..];
    let mut f = rest.split_ascii_whitespace();
    let state = f.next()?;
    let ppid = f.next()?.parse().ok()?;
    let pgrp = f.next()?.parse().ok()?;
    (state != "Z" && state != "X").then_some(Stat { ppid, pgrp })
}

/// Every live process descending from this one, from `/proc`.
pub fn descendants() -> BTreeSet<i32> {
    let me = rustix::process::getpid().as_raw_nonzero().get();
    let mut children: BTreeMap<i32, Vec<i32>> = BTreeMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
            if let Some(s) = stat(pid) {
                children.entry(s.ppid).or_default().push(pid);
            }
        }
    }
    let mut out = BTreeSet::new();
    let mut todo = vec![me];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).into_iter().flatten() {
            if out.insert(c) {
                todo.push(c);
            }
        }
    }
    out
}
