//! The runner: each rule in a fresh `vmmkit __rule` process with its own
//! emulator root, `--jobs` of them at a time, each under a deadline.
//!
//! A rule process that is killed by a signal, exits without a result, or
//! gives none before the deadline is a `Fail` that says so ("killed by
//! signal 11", "no result in 20 s"). Each rule process leads its own process
//! group, so a timeout also takes its peers.
#![forbid(unsafe_code)]

pub mod child;

use std::collections::HashMap;
use std::io::{IsTerminal, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use rustix::event::{PollFd, PollFlags, Timespec, poll};
use rustix::process::{Pid, PidfdFlags, Signal, kill_process_group, pidfd_open};

use self::child::ChildReport;
use crate::backend::{Backend, BackendKind, DEFAULT_DEVICE_MEMORY, DEFAULT_DEVICES};
use crate::catalog::Catalog;
use crate::outcome::{Outcome, RuleResult};
use crate::peer::describe_exit;
use crate::rule::{Need, Rule};
use crate::run_dir::RunDir;

/// Default deadline of one rule.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);
/// How much of a failed rule process's stderr the report keeps.
const STDERR_TAIL: usize = 2000;

/// How a run goes.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The `vmmkit` binary to re-execute.
    pub exe: PathBuf,
    /// The backend.
    pub backend: Backend,
    /// The catalog the rules come from.
    pub catalog: Catalog,
    /// Rule processes at a time.
    pub jobs: usize,
    /// Deadline of one rule.
    pub timeout: Duration,
    /// Rules not to run, with why (baseline `skip` entries).
    pub skip: HashMap<String, String>,
    /// A progress line on stderr.
    pub progress: bool,
}

impl RunConfig {
    /// Defaults for `backend`: the running executable, every CPU, 20 s per
    /// rule, progress when stderr is a terminal.
    pub fn new(exe: PathBuf, backend: Backend, catalog: Catalog) -> Self {
        Self {
            exe,
            backend,
            catalog,
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            timeout: DEFAULT_TIMEOUT,
            skip: HashMap::new(),
            progress: std::io::stderr().is_terminal(),
        }
    }
}

/// Runs `rules`; results are in the same order.
///
/// # Errors
/// When the run directory cannot be made.
pub fn run(rules: &[&'static Rule], cfg: &RunConfig) -> std::io::Result<Vec<RuleResult>> {
    let dir = RunDir::new()?;
    let results: Mutex<Vec<Option<RuleResult>>> = Mutex::new(vec![None; rules.len()]);
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let jobs = cfg.jobs.clamp(1, rules.len().max(1));
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(rule) = rules.get(i) else { break };
                    let r = run_one(rule, cfg, &dir);
                    if let Ok(mut v) = results.lock() {
                        v[i] = Some(r);
                    }
                    let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                    if cfg.progress {
                        let mut e = std::io::stderr().lock();
                        let _ = write!(e, "\r\x1b[2K[{n}/{}] {}", rules.len(), rule.id);
                        let _ = e.flush();
                    }
                }
            });
        }
    });
    if cfg.progress {
        eprint!("\r\x1b[2K");
    }
    let results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| RuleResult::decided(Outcome::Skipped("not run".into()))))
        .collect())
}

/// Runs one rule, in its own process unless its outcome is known already.
pub fn run_one(rule: &'static Rule, cfg: &RunConfig, dir: &RunDir) -> RuleResult {
    if let Some(why) = cfg.skip.get(rule.id.as_str()) {
        return RuleResult::decided(Outcome::Skipped(format!("baseline: {why}")));
    }
    if let Some(outcome) = cfg.backend.verdict(rule) {
        return RuleResult::decided(outcome);
    }
    let start = Instant::now();
    let (outcome, detail) = match spawn_and_collect(rule, cfg, dir) {
        Ok(r) => r,
        Err(e) => (
            Outcome::Fail { expected: rule.expect.to_string(), got: format!("the rule process could not run: {e}") },
            None,
        ),
    };
    RuleResult { outcome, detail, duration: start.elapsed() }
}

/// The environment a rule gets on the emulator: enough devices, and a small
/// capacity where it wants to run out.
fn emulator_env(rule: &Rule) -> [(&'static str, String); 2] {
    let mut devices = DEFAULT_DEVICES;
    let mut memory = DEFAULT_DEVICE_MEMORY;
    for need in rule.requires {
        match *need {
            Need::Devices(n) => devices = devices.max(n),
            Need::DeviceMemory(b) => memory = b,
            _ => {}
        }
    }
    [("VMMKIT_DEVICES", devices.to_string()), ("VMMKIT_DEVICE_MEMORY", memory.to_string())]
}

fn spawn_and_collect(rule: &'static Rule, cfg: &RunConfig, dir: &RunDir) -> std::io::Result<(Outcome, Option<String>)> {
    let root = dir.rule_root(rule.id.as_str())?;
    let mut cmd = Command::new(&cfg.exe);
    cmd.arg("__rule").arg(rule.id.as_str());
    cmd.arg("--backend").arg(cfg.backend.kind.name()).arg("--catalog").arg(cfg.catalog.name());
    if let Some(lib) = &cfg.backend.library {
        cmd.arg("--library").arg(lib);
    }
    cmd.env("VMMKIT_ROOT", root.path());
    if cfg.backend.kind == BackendKind::Emulator {
        cmd.envs(emulator_env(rule));
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child = cmd.spawn()?;
    let collected = collect(&mut child, cfg.timeout);
    // The group goes too: peers a crashed or hung check left behind.
    if let Some(pid) = Pid::from_raw(child.id() as i32) {
        let _ = kill_process_group(pid, Signal::KILL);
    }
    let status = child.wait()?;
    drop(root);
    let (stdout, stderr, timed_out) = collected?;
    let expected = rule.expect.to_string();
    let tail = |s: &str| {
        let s = s.trim_end();
        let cut = s.len().saturating_sub(STDERR_TAIL);
        let cut = (cut..=s.len()).find(|&i| s.is_char_boundary(i)).unwrap_or(s.len());
        (!s.is_empty()).then(|| s[cut..].to_string())
    };
    if timed_out {
        let got = format!("no result in {} s", cfg.timeout.as_secs());
        return Ok((Outcome::Fail { expected, got }, tail(&stderr)));
    }
    match ChildReport::parse(&stdout).and_then(|r| r.outcome().map(|o| (o, r.detail))) {
        Some(r) => Ok(r),
        None => {
            let got = match describe_exit(status) {
                s if s.starts_with("killed") => s,
                s => format!("{s} without a result"),
            };
            Ok((Outcome::Fail { expected, got }, tail(&stderr)))
        }
    }
}

/// Reads the child's stdout and stderr until it exits or `timeout` passes:
/// (stdout, stderr, timed out).
fn collect(child: &mut Child, timeout: Duration) -> std::io::Result<(String, String, bool)> {
    let (Some(mut out), Some(mut err)) = (child.stdout.take(), child.stderr.take()) else {
        return Err(std::io::Error::other("the rule process has no pipes"));
    };
    let pid = Pid::from_raw(child.id() as i32).ok_or_else(|| std::io::Error::other("pid 0"))?;
    let pidfd = pidfd_open(pid, PidfdFlags::empty())?;
    let deadline = Instant::now() + timeout;
    let (mut so, mut se) = (Vec::new(), Vec::new());
    let (mut out_open, mut err_open, mut exited) = (true, true, false);
    let mut buf = [0u8; 16 * 1024];
    // Until both pipes close; once the process has exited, its leftovers
    // are killed by the caller, so the pipes close soon after.
    while out_open || err_open {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Ok((String::from_utf8_lossy(&so).into(), String::from_utf8_lossy(&se).into(), true));
        }
        let wait = if exited { left.min(Duration::from_millis(500)) } else { left };
        let ts = Timespec { tv_sec: wait.as_secs() as i64, tv_nsec: i64::from(wait.subsec_nanos()) };
        let mut fds = Vec::with_capacity(3);
        if out_open {
            fds.push(PollFd::new(&out, PollFlags::IN));
        }
        if err_open {
            fds.push(PollFd::new(&err, PollFlags::IN));
        }
        if !exited {
            fds.push(PollFd::new(&pidfd, PollFlags::IN));
        }
        let ready = match poll(&mut fds, Some(&ts)) {
            Ok(n) => n,
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        };
        let flags: Vec<bool> = fds.iter().map(|f| !f.revents().is_empty()).collect();
        drop(fds);
        if ready == 0 && exited {
            // Exited, yet a pipe stays open: a descendant holds it. The
            // caller kills the group; what was read is the result.
            break;
        }
        let mut k = 0;
        if out_open {
            if flags[k] {
                out_open = read_some(&mut out, &mut buf, &mut so)?;
            }
            k += 1;
        }
        if err_open {
            if flags[k] {
                err_open = read_some(&mut err, &mut buf, &mut se)?;
            }
            k += 1;
        }
        if !exited && flags.get(k).copied().unwrap_or(false) {
            exited = true;
        }
    }
    Ok((String::from_utf8_lossy(&so).into(), String::from_utf8_lossy(&se).into(), false))
}

/// Reads what is there into `into`; false at end of file.
fn read_some(r: &mut impl Read, buf: &mut [u8], into: &mut Vec<u8>) -> std::io::Result<bool> {
    match r.read(buf) {
        Ok(0) => Ok(false),
        Ok(n) => {
            into.extend_from_slice(&buf[..n]);
            Ok(true)
        }
        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => Ok(true),
        Err(e) => Err(e),
    }
}
