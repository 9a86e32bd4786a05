//! Workers for the reliability tests: this test binary run again in a role,
//! in a root chosen by the caller (so one orchestrating test can drive many
//! roots), with extra environment, the text protocol of [`super::Peer`]
//! over a channel, and its output kept in an unnamed temporary file, shown
//! on failure.
//!
//! Unlike [`super::Peer`], a worker's death is an outcome, not a test
//! failure: [`Worker::recv`] returns `Err` with how it ended, which the
//! crash matrix needs. Every read has a deadline; a worker still running when
//! dropped is killed and reaped.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use vmmkit_testkit::{Exit, PeerError, libtest};

/// The environment variable that names a worker's role.
pub const ROLE_ENV: &str = "VMMKIT_RELIABILITY_ROLE";
/// The test every reliability binary defines to dispatch roles.
pub const DISPATCH_TEST: &str = "worker";

/// The role this process was started in, if it is a worker.
pub fn role() -> Option<String> {
    std::env::var(ROLE_ENV).ok()
}

/// A worker process.
#[derive(Debug)]
pub struct Worker {
    peer: vmmkit_testkit::Peer,
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
        let mut cmd = libtest::rerun(DISPATCH_TEST).expect("test exe");
        cmd.env(ROLE_ENV, role)
            .env(vmmkit_testkit::root::ROOT_ENV, root)
            .env_remove("VMMKIT_TEST_CHILD")
            .env_remove("VMMKIT_TEST_PEER")
            .env_remove("VMMKIT_FAULTS");
        for (k, v) in env {
            cmd.env(k, v);
        }
        adjust(&mut cmd);
        let peer = vmmkit_testkit::Peer::spawn_logged(name, &mut cmd).expect("spawn worker");
        Self { peer, name: name.into() }
    }

    /// The worker's pid.
    pub fn pid(&self) -> u32 {
        self.peer.pid()
    }

    /// Sends one command line (ignored if the worker is gone).
    pub fn send(&mut self, line: &str) {
        self.send_fds(line, &[]);
    }

    /// Sends one command line with `fds` attached (`SCM_RIGHTS`; ignored if the worker is gone).
    pub fn send_fds(&mut self, line: &str, fds: &[BorrowedFd<'_>]) {
        let _ = self.peer.send_text(line, fds);
    }

    /// The next reply within `timeout`, or how the worker ended.
    /// A worker that is alive but silent past the deadline fails the test.
    pub fn recv_within(&mut self, timeout: Duration) -> Result<String, String> {
        self.recv_fds_within(timeout).map(|(r, _)| r)
    }

    /// As [`Worker::recv_within`], with the fds that came with the reply.
    pub fn recv_fds_within(&mut self, timeout: Duration) -> Result<(String, Vec<OwnedFd>), String> {
        match self.peer.recv(timeout) {
            Ok((bytes, fds)) => match String::from_utf8(bytes) {
                Ok(r) => Ok((r, fds)),
                Err(e) => panic!("{}: a reply that is not UTF-8: {e}", self.name),
            },
            Err(e @ PeerError::NoReply { .. }) => panic!("{}: {e}; output:\n{}", self.name, self.stderr_tail()),
            Err(e) => Err(self.ended_by(e)),
        }
    }

    /// As [`Worker::recv_within`], but a worker silent past the deadline is
    /// killed and the silence is returned as `Err` (a hang is an outcome).
    pub fn recv_or_hang(&mut self, timeout: Duration) -> Result<String, String> {
        match self.peer.recv_text(timeout) {
            Ok(r) => Ok(r),
            Err(PeerError::NoReply { waited, .. }) => {
                self.kill();
                Err(format!("no reply in {} s (a hang; killed)", waited.as_secs_f64()))
            }
            Err(e) => Err(self.ended_by(e)),
        }
    }

    /// The next reply within [`super::TIMEOUT`].
    pub fn recv(&mut self) -> Result<String, String> {
        self.recv_within(super::TIMEOUT)
    }

    /// Sends `line` and returns the reply, which must start with `ok`; the
    /// rest of it is returned. Anything else fails the test.
    pub fn ok(&mut self, line: &str) -> String {
        self.ok_fds(line, &[]).0
    }

    /// As [`Worker::ok`], with fds attached to the command and the fd that
    /// came with the reply, if any.
    pub fn ok_fds(&mut self, line: &str, fds: &[BorrowedFd<'_>]) -> (String, Option<OwnedFd>) {
        self.send_fds(line, fds);
        match self.recv_fds_within(super::TIMEOUT) {
            Ok((r, mut fds)) if r == "ok" || r.starts_with("ok ") => (r.get(3..).unwrap_or("").to_string(), fds.pop()),
            Ok((r, _)) => panic!("{}: `{line}` replied `{r}`; output:\n{}", self.name, self.stderr_tail()),
            Err(e) => panic!("{}: `{line}`: worker ended ({e}); output:\n{}", self.name, self.stderr_tail()),
        }
    }

    /// Sends `line` and returns the reply as it is (`ok ...` or `err CODE ...`).
    pub fn ask(&mut self, line: &str) -> String {
        self.ask_fds(line, &[])
    }

    /// As [`Worker::ask`], with fds attached to the command.
    pub fn ask_fds(&mut self, line: &str, fds: &[BorrowedFd<'_>]) -> String {
        self.send_fds(line, fds);
        match self.recv() {
            Ok(r) => r,
            Err(e) => panic!("{}: `{line}`: worker ended ({e}); output:\n{}", self.name, self.stderr_tail()),
        }
    }

    /// How the worker ended, in words ("killed by signal 9", "exited with
    /// status 0"), from the error that saw it end.
    fn ended_by(&mut self, e: PeerError) -> String {
        match e {
            PeerError::Ended { exit, .. } => exit.to_string(),
            PeerError::Lingered { .. } => "did not exit (killed)".into(),
            e => self.peer.exit().map_or_else(|| e.to_string(), |x| x.to_string()),
        }
    }

    /// Kills the worker with SIGKILL and reaps it. Returns how it ended.
    pub fn kill(&mut self) -> String {
        self.peer.kill().as_ref().map(Exit::to_string).unwrap_or_default()
    }

    /// Closes its channel and waits for a clean exit; fails the test otherwise.
    pub fn finish(&mut self) {
        self.peer.close();
        let st = self.peer.wait(super::TIMEOUT);
        assert!(
            st.as_ref().is_ok_and(|s| s.success()),
            "{} ended badly: {}; output:\n{}",
            self.name,
            st.map_or_else(|e| e.to_string(), |s| s.to_string()),
            self.stderr_tail()
        );
    }

    /// Whether the worker has ended (reaped here).
    pub fn ended(&self) -> bool {
        self.peer.exit().is_some()
    }

    /// The last lines the worker wrote (its stdout and stderr).
    pub fn stderr_tail(&self) -> String {
        self.peer.output_tail(40)
    }
}

/// Parses an `err CODE ...` reply into its code.
pub fn err_code(reply: &str) -> Option<i64> {
    reply.strip_prefix("err ")?.split_whitespace().next()?.parse().ok()
}
