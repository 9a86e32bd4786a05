//! Workers for the reliability tests: this test binary run again in a role,
//! in a root chosen by the caller (so one orchestrating test can drive many
//! roots), with extra environment, a line protocol on stdin/stdout (`@@ `
//! replies, as [`super::Peer`]) and stderr kept in an unnamed temporary
//! file, shown on failure.
//!
//! Unlike [`super::Peer`], a worker's death is an outcome, not a test
//! failure: [`Worker::recv`] returns `Err` with the exit status, which the
//! crash matrix needs. Every read has a deadline; a worker still running when
//! dropped is killed and reaped.

use std::io::{BufRead, BufReader, Read, Seek, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The environment variable that names a worker's role.
pub const ROLE_ENV: &str = "VMMKIT_RELIABILITY_ROLE";
/// The test every reliability binary defines to dispatch roles.
pub const DISPATCH_TEST: &str = "worker";

/// The role this process was started in, if it is a worker.
pub fn role() -> Option<String> {
    std::env::var(ROLE_ENV).ok()
}

/// How a worker ended, in words for the matrix ("killed by signal 9", "exit 0").
pub fn describe(status: &ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => format!("{status:?}"),
    }
}

/// A worker process.
#[derive(Debug)]
pub struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    stderr_log: std::fs::File,
    status: Option<ExitStatus>,
    /// A name for messages ("exporter", "importer").
    pub name: String,
}

impl Worker {
    /// Starts this binary in `role` with `VMMKIT_ROOT=root` and `env`.
    pub fn start(name: &str, role: &str, root: &Path, env: &[(&str, &str)]) -> Self {
        Self::start_with(name, role, root, env, |_| {})
    }

    /// As [`Worker::start`], letting `adjust` change the command (e.g. a `pre_exec`).
    pub fn start_with(
        name: &str,
        role: &str,
        root: &Path,
        env: &[(&str, &str)],
        adjust: impl FnOnce(&mut Command),
    ) -> Self {
        let stderr_log = tempfile::tempfile().expect("worker stderr log");
        let log = stderr_log.try_clone().expect("dup log");
        let mut cmd = Command::new(std::env::current_exe().expect("test exe"));
        cmd.args([DISPATCH_TEST, "--exact", "--nocapture", "--test-threads=1"])
            .env(ROLE_ENV, role)
            .env("VMMKIT_ROOT", root)
            .env_remove("VMMKIT_TEST_CHILD")
            .env_remove("VMMKIT_TEST_PEER")
            .env_remove("VMMKIT_FAULTS")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(log);
        for (k, v) in env {
            cmd.env(k, v);
        }
        adjust(&mut cmd);
        let mut child = cmd.spawn().expect("spawn worker");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self { child, stdin: Some(stdin), stdout, stderr_log, status: None, name: name.into() }
    }

    /// The worker's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one command line (ignored if the worker is gone).
    pub fn send(&mut self, line: &str) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = writeln!(stdin, "{line}").and_then(|()| stdin.flush());
        }
    }

    /// The next `@@ ` reply within `timeout`, or how the worker ended.
    /// A worker that is alive but silent past the deadline fails the test.
    pub fn recv_within(&mut self, timeout: Duration) -> Result<String, String> {
        let deadline = Instant::now() + timeout;
        loop {
            if !self.stdout.buffer().contains(&b'\n') {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    let tail = self.stderr_tail();
                    panic!("{}: no reply in {} s; stderr:\n{tail}", self.name, timeout.as_secs_f64());
                }
                let mut fds = [rustix::event::PollFd::new(self.stdout.get_ref(), rustix::event::PollFlags::IN)];
                let ts = rustix::event::Timespec { tv_sec: left.as_secs() as i64, tv_nsec: left.subsec_nanos() as i64 };
                let _ = rustix::event::poll(&mut fds, Some(&ts));
                if fds[0].revents().is_empty() {
                    continue;
                }
            }
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).unwrap_or(0);
            if n == 0 {
                return Err(self.reap());
            }
            // libtest may print "test worker ... " before the first reply on the same line.
            if let Some(at) = line.find("@@ ") {
                return Ok(line[at + 3..].trim_end().to_string());
            }
        }
    }

    /// As [`Worker::recv_within`], but a worker silent past the deadline is
    /// killed and the silence is returned as `Err` (a hang is an outcome).
    pub fn recv_or_hang(&mut self, timeout: Duration) -> Result<String, String> {
        let mut fds = [rustix::event::PollFd::new(self.stdout.get_ref(), rustix::event::PollFlags::IN)];
        if !self.stdout.buffer().contains(&b'\n') {
            let ts =
                rustix::event::Timespec { tv_sec: timeout.as_secs() as i64, tv_nsec: timeout.subsec_nanos() as i64 };
            let _ = rustix::event::poll(&mut fds, Some(&ts));
            if fds[0].revents().is_empty() {
                self.kill();
                return Err(format!("no reply in {} s (a hang; killed)", timeout.as_secs_f64()));
            }
        }
        self.recv_within(timeout)
    }

    /// The next reply within [`super::TIMEOUT`].
    pub fn recv(&mut self) -> Result<String, String> {
        self.recv_within(super::TIMEOUT)
    }

    /// Sends `line` and returns the reply, which must start with `ok`; the
    /// rest of it is returned. Anything else fails the test.
    pub fn ok(&mut self, line: &str) -> String {
        self.send(line);
        match self.recv() {
            Ok(r) if r == "ok" => String::new(),
            Ok(r) if r.starts_with("ok ") => r[3..].to_string(),
            Ok(r) => panic!("{}: `{line}` replied `{r}`; stderr:\n{}", self.name, self.stderr_tail()),
            Err(e) => panic!("{}: `{line}`: worker ended ({e}); stderr:\n{}", self.name, self.stderr_tail()),
        }
    }

    /// Sends `line` and returns the reply as it is (`ok ...` or `err CODE ...`).
    pub fn ask(&mut self, line: &str) -> String {
        self.send(line);
        match self.recv() {
            Ok(r) => r,
            Err(e) => panic!("{}: `{line}`: worker ended ({e}); stderr:\n{}", self.name, self.stderr_tail()),
        }
    }

    fn reap(&mut self) -> String {
        if self.status.is_none() {
            self.status = super::wait_timeout(&mut self.child, super::TIMEOUT);
        }
        self.status.as_ref().map(describe).unwrap_or_else(|| "did not exit (killed)".into())
    }

    /// Kills the worker with SIGKILL and reaps it. Returns how it ended.
    pub fn kill(&mut self) -> String {
        if self.status.is_none() {
            let _ = self.child.kill();
            self.status = self.child.wait().ok();
        }
        self.status.as_ref().map(describe).unwrap_or_default()
    }

    /// Closes stdin and waits for a clean exit; fails the test otherwise.
    pub fn finish(&mut self) {
        drop(self.stdin.take());
        let st = super::wait_timeout(&mut self.child, super::TIMEOUT);
        self.status = st;
        assert!(
            st.is_some_and(|s| s.success()),
            "{} ended badly: {:?}; stderr:\n{}",
            self.name,
            st.as_ref().map(describe),
            self.stderr_tail()
        );
    }

    /// Whether the worker has ended (reaped here).
    pub fn ended(&self) -> bool {
        self.status.is_some()
    }

    /// The last lines the worker wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        let mut text = String::new();
        let mut f = &self.stderr_log;
        let _ = f.rewind().and_then(|()| f.read_to_string(&mut text));
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if self.status.is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Parses an `err CODE ...` reply into its code.
pub fn err_code(reply: &str) -> Option<i64> {
    reply.strip_prefix("err ")?.split_whitespace().next()?.parse().ok()
}
