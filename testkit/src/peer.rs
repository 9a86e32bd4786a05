//! `Peer`: a process started with one end of a [`Channel`] as its stdin,
//! for checks, tests and benches that need a second process.
//!
//! The transport is generic: bytes, text or JSON messages, each with fds.
//! What the messages mean is the user's (each defines its own request
//! type). Every receive has a deadline; a peer that closed its channel is
//! waited for (at most [`EXIT_TIMEOUT`]) so that the error says how it ended
//! ("exited with status 3", "killed by signal 11"); a live peer is killed
//! and reaped when dropped.
//!
//! The peer's side takes its channel with [`serve_channel`], which also asks
//! the kernel to kill it when its parent dies.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::channel::{Channel, RecvError};
use crate::exit::Exit;
use crate::process::Process;
use crate::wait::WaitError;

/// How long a peer that closed its channel may take to be reaped.
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a peer gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// It could not be started.
    #[error("peer {name}: cannot start: {source}")]
    Spawn {
        /// The peer's name.
        name: String,
        /// Why.
        source: std::io::Error,
    },
    /// It ended (and closed its channel).
    #[error("peer {name} (pid {pid}) {exit}")]
    Ended {
        /// The peer's name.
        name: String,
        /// Its pid.
        pid: u32,
        /// How it ended.
        exit: Exit,
    },
    /// It closed its channel but did not exit in [`EXIT_TIMEOUT`] (it was killed).
    #[error("peer {name} (pid {pid}) closed its channel and {error}")]
    Lingered {
        /// The peer's name.
        name: String,
        /// Its pid.
        pid: u32,
        /// The wait that failed.
        error: WaitError,
    },
    /// Nothing came in time; it is still running.
    #[error("no reply from peer {name} (pid {pid}) in {} s", .waited.as_secs_f64())]
    NoReply {
        /// The peer's name.
        name: String,
        /// Its pid.
        pid: u32,
        /// How long the receive waited.
        waited: Duration,
    },
    /// The channel failed or carried a bad message.
    #[error("peer {name} (pid {pid}): {error}")]
    Channel {
        /// The peer's name.
        name: String,
        /// Its pid.
        pid: u32,
        /// What went wrong.
        error: String,
    },
}

/// A running peer process and this side of its channel.
#[derive(Debug)]
pub struct Peer {
    process: Process,
    chan: Option<Channel>,
}

impl Peer {
    /// Starts `cmd` as the peer `name` with a channel as its stdin; its
    /// stdout and stderr are what `cmd` was given.
    pub fn spawn(name: &str, cmd: &mut Command) -> Result<Self, PeerError> {
        Self::start(name, cmd, Process::spawn)
    }

    /// As [`Peer::spawn`], with its stdout and stderr kept in a log
    /// ([`Peer::output`]).
    pub fn spawn_logged(name: &str, cmd: &mut Command) -> Result<Self, PeerError> {
        Self::start(name, cmd, Process::spawn_logged)
    }

    fn start(
        name: &str,
        cmd: &mut Command,
        spawn: fn(&str, &mut Command) -> std::io::Result<Process>,
    ) -> Result<Self, PeerError> {
        let spawn_error = |source| PeerError::Spawn { name: name.into(), source };
        let (mine, theirs) = Channel::pair().map_err(spawn_error)?;
        let process = spawn(name, cmd.stdin(Stdio::from(theirs))).map_err(spawn_error)?;
        Ok(Self { process, chan: Some(mine) })
    }

    /// A command that runs this executable again (for a peer role).
    pub fn current_exe() -> std::io::Result<Command> {
        Ok(Command::new(std::env::current_exe()?))
    }

    /// The peer's name.
    pub fn name(&self) -> &str {
        self.process.name()
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// How it ended, once it was reaped.
    pub fn exit(&self) -> Option<Exit> {
        self.process.exit()
    }

    /// Its log, for a peer started with [`Peer::spawn_logged`].
    pub fn output(&self) -> String {
        self.process.output()
    }

    /// The last `n` lines of its log.
    pub fn output_tail(&self, n: usize) -> String {
        self.process.output_tail(n)
    }

    /// Sends one message with `fds` attached.
    pub fn send(&mut self, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> Result<(), PeerError> {
        let sent = match &self.chan {
            Some(c) => c.send(bytes, fds),
            None => Err(std::io::Error::other("the channel was closed here")),
        };
        sent.map_err(|e| self.gone(&format!("send failed ({e})")))
    }

    /// Receives one message and its fds, waiting at most `timeout`.
    pub fn recv(&mut self, timeout: Duration) -> Result<(Vec<u8>, Vec<OwnedFd>), PeerError> {
        let got = match &self.chan {
            Some(c) => c.recv(timeout),
            None => Err(RecvError::Closed),
        };
        got.map_err(|e| self.recv_error(e))
    }

    /// Sends `text` with `fds`.
    pub fn send_text(&mut self, text: &str, fds: &[BorrowedFd<'_>]) -> Result<(), PeerError> {
        self.send(text.as_bytes(), fds)
    }

    /// Receives a text message, waiting at most `timeout`.
    pub fn recv_text(&mut self, timeout: Duration) -> Result<String, PeerError> {
        let (bytes, _fds) = self.recv(timeout)?;
        String::from_utf8(bytes).map_err(|e| self.channel_error(format!("not UTF-8: {e}")))
    }

    /// Sends `req` as JSON with `fds` and receives the JSON reply and its fds,
    /// waiting at most `timeout` for it.
    pub fn call_json<Q: Serialize, R: DeserializeOwned>(
        &mut self,
        req: &Q,
        fds: &[BorrowedFd<'_>],
        timeout: Duration,
    ) -> Result<(R, Vec<OwnedFd>), PeerError> {
        let bytes = serde_json::to_vec(req).map_err(|e| self.channel_error(e.to_string()))?;
        self.send(&bytes, fds)?;
        let (reply, fds) = self.recv(timeout)?;
        let value = serde_json::from_slice(&reply).map_err(|e| {
            self.channel_error(format!("bad message: {e}: {}", String::from_utf8_lossy(&reply[..reply.len().min(200)])))
        })?;
        Ok((value, fds))
    }

    /// Closes this side of the channel: the peer reads end-of-file.
    pub fn close(&mut self) {
        self.chan = None;
    }

    /// Waits at most `timeout` for the peer to exit; past that it is killed
    /// and the error says so.
    pub fn wait(&mut self, timeout: Duration) -> Result<Exit, PeerError> {
        let (name, pid) = (self.name().to_string(), self.pid());
        self.process.wait(timeout).map_err(|error| PeerError::Lingered { name, pid, error })
    }

    /// Kills the peer (`SIGKILL`), as a crash would end it, and reaps it.
    pub fn kill(&mut self) -> Option<Exit> {
        self.process.kill()
    }

    fn recv_error(&mut self, e: RecvError) -> PeerError {
        match e {
            RecvError::Closed => self.gone("closed its channel"),
            RecvError::Timeout(waited) => PeerError::NoReply { name: self.name().into(), pid: self.pid(), waited },
            e => self.channel_error(e.to_string()),
        }
    }

    fn channel_error(&self, error: String) -> PeerError {
        PeerError::Channel { name: self.name().into(), pid: self.pid(), error }
    }

    /// The error for a peer whose channel failed: how it ended, waiting at
    /// most [`EXIT_TIMEOUT`] for that.
    fn gone(&mut self, what: &str) -> PeerError {
        let (name, pid) = (self.name().to_string(), self.pid());
        match self.process.wait(EXIT_TIMEOUT) {
            Ok(exit) => PeerError::Ended { name, pid, exit },
            Err(WaitError::TimedOut(d)) => PeerError::Lingered { name, pid, error: WaitError::TimedOut(d) },
            Err(e) => PeerError::Channel { name, pid, error: format!("{what}; {e}") },
        }
    }
}

/// The peer's side: the channel its parent gave it as stdin. Also asks the
/// kernel to kill this process when its parent dies, so a parent killed
/// for a timeout takes its peers along.
pub fn serve_channel() -> std::io::Result<Channel> {
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))?;
    Channel::from_stdin()
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Duration = Duration::from_secs(10);

    #[test]
    fn messages_and_fds_go_both_ways() {
        // `cat` on the channel itself echoes each packet back.
        let mut p = Peer::spawn("echo", Command::new("sh").args(["-c", "exec cat >&0"])).unwrap();
        p.send_text("hello", &[]).unwrap();
        assert_eq!(p.recv_text(T).unwrap(), "hello");
        let (n, r): (Vec<u32>, _) = p.call_json(&vec![1u32, 2], &[], T).unwrap();
        assert_eq!((n, r.len()), (vec![1, 2], 0));
        p.close();
        assert!(p.wait(T).unwrap().success());
    }

    #[test]
    fn a_dead_peer_says_how_it_ended() {
        let mut p = Peer::spawn("doomed", Command::new("sh").args(["-c", "exit 3"])).unwrap();
        let e = p.recv(T).unwrap_err();
        assert!(matches!(e, PeerError::Ended { exit, .. } if exit.code() == Some(3)), "{e}");
        assert!(e.to_string().ends_with("exited with status 3"), "{e}");
        let mut p = Peer::spawn("victim", Command::new("sleep").arg("30")).unwrap();
        p.kill();
        let e = p.send_text("x", &[]).unwrap_err();
        assert!(e.to_string().ends_with("killed by signal 9"), "{e}");
    }

    #[test]
    fn silence_is_a_timeout_with_its_length() {
        let mut p = Peer::spawn("mute", Command::new("sleep").arg("30")).unwrap();
        let e = p.recv(Duration::from_millis(50)).unwrap_err();
        assert!(e.to_string().contains("in 0.05 s"), "{e}");
        let pid = p.pid();
        drop(p);
        let alive =
            rustix::process::Pid::from_raw(pid as i32).is_some_and(|p| rustix::process::test_kill_process(p).is_ok());
        assert!(!alive, "a dropped peer is killed and reaped");
    }
}
