//! Peers: the `vmmkit` binary run again (`vmmkit __peer`) as a second or
//! third process of a multi-process rule.
//!
//! The check and its peer talk over a socketpair (the peer's stdin), one
//! JSON [`Request`] and one [`Reply`] per packet. Every wait has a deadline;
//! a peer that dies is a failure that says how it ended ("exited with status
//! 3", "killed by signal 11"), and a live peer is killed when its `Peer` is
//! dropped. Peers also die with their parent (`PR_SET_PDEATHSIG`) and see
//! the channel close when it exits.
#![forbid(unsafe_code)]

pub mod channel;
pub mod protocol;
pub mod serve;
pub mod steer;

use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::process::ExitStatusExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::Duration;

use vmmkit_sys::acl::AclError;

use self::channel::{Channel, RecvError, wait_readable};
pub use self::protocol::{Reply, Request};
use crate::backend::BackendKind;
use crate::outcome::Failure;

/// How long a peer may take to answer one request.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a peer that closed its channel may take to be reaped.
pub const EXIT_TIMEOUT: Duration = Duration::from_secs(5);

/// What starts a peer: the suite's executable and the backend the check uses.
#[derive(Debug, Clone)]
pub struct Launcher {
    exe: PathBuf,
    backend: BackendKind,
    library: Option<PathBuf>,
}

impl Launcher {
    /// Peers run `exe __peer --backend <backend> [--library <library>]`.
    pub fn new(exe: PathBuf, backend: BackendKind, library: Option<PathBuf>) -> Self {
        Self { exe, backend, library }
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(&self.exe);
        cmd.arg("__peer").arg("--backend").arg(self.backend.name());
        if let Some(lib) = &self.library {
            cmd.arg("--library").arg(lib);
        }
        cmd
    }
}

/// A running peer process.
#[derive(Debug)]
pub struct Peer {
    name: String,
    pid: u32,
    child: Child,
    chan: Channel,
    ended: Option<String>,
}

impl Peer {
    /// Starts a peer named `name` (for messages). It has done nothing yet:
    /// send [`Request::Start`] (or use [`Peer::start`]).
    pub fn spawn(launcher: &Launcher, name: &str) -> Result<Self, Failure> {
        let (mine, theirs) = Channel::pair().map_err(|e| Failure::Peer(format!("peer {name}: socketpair: {e}")))?;
        let child = launcher
            .command()
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| Failure::Peer(format!("peer {name}: cannot start {}: {e}", launcher.exe.display())))?;
        Ok(Self { name: name.into(), pid: child.id(), child, chan: mine, ended: None })
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The peer's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends `req` and waits for the reply.
    ///
    /// # Errors
    /// [`Failure::Peer`] when the peer dies, does not answer in
    /// [`REPLY_TIMEOUT`], or answers garbage.
    pub fn call(&mut self, req: &Request) -> Result<Reply, Failure> {
        self.call_fds(req, &[]).map(|(reply, _fds)| reply)
    }

    /// Sends `req` with `fds` attached (`SCM_RIGHTS`), and returns the reply
    /// with the fds that came with it: for vendors that share memory as file
    /// descriptors (HIP and CUDA POSIX handles).
    pub fn call_fds(&mut self, req: &Request, fds: &[BorrowedFd<'_>]) -> Result<(Reply, Vec<OwnedFd>), Failure> {
        if let Some(how) = &self.ended {
            return Err(Failure::Peer(format!("peer {} {how} before {}", self.name, req.op())));
        }
        if let Err(e) = self.chan.send_json(req, fds) {
            return Err(self.gone(req.op(), &format!("send failed ({e})")));
        }
        match self.chan.recv_json::<Reply>(REPLY_TIMEOUT) {
            Ok(r) => Ok(r),
            Err(RecvError::Closed) => Err(self.gone(req.op(), "closed its channel")),
            Err(RecvError::Timeout(d)) => Err(Failure::Peer(format!(
                "no reply from peer {} (pid {}) in {} s to {}",
                self.name,
                self.pid,
                d.as_secs(),
                req.op()
            ))),
            Err(e) => Err(Failure::Peer(format!("peer {} (pid {}): {e}", self.name, self.pid))),
        }
    }

    /// Sends `req`; its code is what the check judges.
    pub fn code(&mut self, req: &Request) -> Result<AclError, Failure> {
        Ok(AclError(self.call(req)?.code))
    }

    /// Sends `req`, which only prepares the rule: a code other than success
    /// is a setup failure.
    pub fn setup(&mut self, req: &Request) -> Result<Reply, Failure> {
        let r = self.call(req)?;
        if r.code == 0 {
            Ok(r)
        } else {
            let call = if r.text.is_empty() { req.op().to_string() } else { r.text.clone() };
            Err(Failure::Setup(format!("setup: peer {}: {call} returned {}", self.name, AclError(r.code))))
        }
    }

    /// `aclInit` and, when given, `aclrtSetDevice(device)` in the peer.
    pub fn start(&mut self, device: Option<i32>) -> Result<(), Failure> {
        self.setup(&Request::Start { device }).map(drop)
    }

    /// The peer's host pid as `aclrtDeviceGetBareTgid` gives it.
    pub fn bare_tgid(&mut self) -> Result<i32, Failure> {
        let r = self.setup(&Request::Pid)?;
        i32::try_from(r.value).map_err(|_| Failure::Peer(format!("peer {}: pid {} out of range", self.name, r.value)))
    }

    /// Allocates `size` bytes of `ACL_HBM_MEM_HUGE` on `device`: the handle slot.
    pub fn alloc(&mut self, device: u32, size: usize) -> Result<usize, Failure> {
        let attr = vmmkit_sys::acl::ACL_HBM_MEM_HUGE;
        Ok(self.setup(&Request::Alloc { device, size: size as u64, attr })?.slot)
    }

    /// Reserves and maps handle slot `handle`: the mapping slot.
    pub fn map(&mut self, handle: usize, size: usize) -> Result<usize, Failure> {
        Ok(self.setup(&Request::Map { handle, size: size as u64 })?.slot)
    }

    /// Imports `shareable` onto `device`: the code, and the handle slot when it worked.
    pub fn import(&mut self, shareable: u64, device: i32) -> Result<(AclError, usize), Failure> {
        let r = self.call(&Request::Import { shareable, device })?;
        Ok((AclError(r.code), r.slot))
    }

    /// Whether mapping slot `map` holds the pattern `seed`: `None` if so,
    /// otherwise what differed.
    pub fn verify(&mut self, map: usize, seed: u8) -> Result<Option<String>, Failure> {
        let r = self.setup(&Request::Verify { map, seed })?;
        Ok(if r.value == 1 { None } else { Some(r.text) })
    }

    /// Asks the peer to exit and waits for it.
    pub fn exit(mut self) -> Result<(), Failure> {
        self.setup(&Request::Exit)?;
        let how = self.wait_exit();
        if how == "exited with status 0" {
            Ok(())
        } else {
            Err(Failure::Peer(format!("peer {} (pid {}) {how} after exit", self.name, self.pid)))
        }
    }

    /// Kills the peer (`SIGKILL`) and reaps it, as a crash would end it.
    pub fn kill(mut self) -> Result<(), Failure> {
        let _ = self.child.kill();
        match self.child.wait() {
            Ok(_) => {
                self.ended = Some("was killed".into());
                Ok(())
            }
            Err(e) => Err(Failure::Peer(format!("peer {}: wait after kill: {e}", self.name))),
        }
    }

    fn gone(&mut self, op: &str, what: &str) -> Failure {
        let how = self.wait_exit();
        Failure::Peer(format!("peer {} (pid {}) {what} during {op}: it {how}", self.name, self.pid))
    }

    /// Waits at most [`EXIT_TIMEOUT`] for the peer to end; says how it ended.
    fn wait_exit(&mut self) -> String {
        let how = match rustix::process::Pid::from_raw(self.pid as i32)
            .map(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()))
        {
            Some(Ok(pidfd)) => match wait_readable(std::os::fd::AsFd::as_fd(&pidfd), EXIT_TIMEOUT) {
                Ok(()) => self.status(),
                Err(RecvError::Timeout(d)) => format!("did not exit in {} s", d.as_secs()),
                Err(e) => format!("could not be waited for ({e})"),
            },
            // pidfd_open fails once the child was reaped, or on old kernels.
            _ => self.status(),
        };
        self.ended = Some(how.clone());
        how
    }

    fn status(&mut self) -> String {
        match self.child.try_wait() {
            Ok(Some(s)) => describe_exit(s),
            Ok(None) => "is still running".into(),
            Err(e) => format!("could not be waited for ({e})"),
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// "exited with status 3", "killed by signal 11".
pub fn describe_exit(s: ExitStatus) -> String {
    match (s.code(), s.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(sig)) => format!("killed by signal {sig}"),
        (None, None) => format!("ended ({s})"),
    }
}
