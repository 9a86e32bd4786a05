//! What every vendor's peer shares: starting `vmmkit <role>` over a
//! [`vmmkit_testkit::Peer`], one JSON request and one JSON reply per packet,
//! failures worded for the outcome, and the peer's serving loop. Each
//! vendor keeps only its messages and what it does with them.
#![forbid(unsafe_code)]

use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use vmmkit_testkit::{Exit, PeerError, RecvError};

use crate::outcome::Failure;
use crate::vendors::BackendKind;

/// How long a peer may take to answer one request.
pub const REPLY_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a peer asked to exit may take to do so.
pub const EXIT_TIMEOUT: Duration = vmmkit_testkit::peer::EXIT_TIMEOUT;
/// How long a peer waits for its next request before giving up.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// What starts a peer: the suite's executable and the backend the check uses.
#[derive(Debug, Clone)]
pub struct Launcher {
    /// The `vmmkit` binary.
    pub exe: PathBuf,
    /// The backend the check runs on.
    pub backend: BackendKind,
    /// The vendor library, for a real backend.
    pub library: Option<PathBuf>,
    /// Variables set in the peers' environment (the visible-device lists).
    pub env: Vec<(String, String)>,
}

impl Launcher {
    /// Peers run `exe <role> --backend <backend> [--library <library>]`.
    pub fn new(exe: PathBuf, backend: BackendKind, library: Option<PathBuf>) -> Self {
        Self { exe, backend, library, env: Vec::new() }
    }

    /// This launcher with `vars` also set in its peers' environment.
    #[must_use]
    pub fn with_env(&self, vars: &[(&str, &str)]) -> Self {
        let mut env = self.env.clone();
        env.extend(vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())));
        Self { env, ..self.clone() }
    }

    /// The peer command run by `wrapper` (a program and its arguments, the
    /// executable following them), or directly when `wrapper` is empty.
    fn command_under(&self, wrapper: &[&str], role: &str) -> Command {
        let mut cmd = match wrapper.split_first() {
            Some((program, args)) => {
                let mut c = Command::new(program);
                c.args(args).arg(&self.exe);
                c
            }
            None => Command::new(&self.exe),
        };
        cmd.arg(role).arg("--backend").arg(self.backend.name());
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Some(lib) = &self.library {
            cmd.arg("--library").arg(lib);
        }
        cmd.stdout(Stdio::null()).stderr(Stdio::inherit());
        cmd
    }
}

/// Options of the hidden peer commands (`vmmkit __peer`, `vmmkit __cuda_peer`).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The backend whose table the peer uses.
    #[arg(long, value_enum)]
    pub backend: BackendKind,
    /// The vendor library, for a real backend.
    #[arg(long)]
    pub library: Option<PathBuf>,
}

/// A reply that carries a vendor code.
pub trait VendorReply {
    /// The code, shown the vendor's way, when it is not success.
    fn failed(&self) -> Option<String>;
    /// The call that failed, or what differed.
    fn text(&self) -> &str;
}

/// One vendor's peer protocol: its hidden command, its request and reply
/// types, and the requests that start (make a device current) and end it.
pub trait Protocol {
    /// The hidden `vmmkit` command that runs the peer.
    const ROLE: &'static str;
    /// What the peer is asked.
    type Request: Serialize;
    /// What it answers.
    type Reply: DeserializeOwned + VendorReply;
    /// The request that makes `device` current in a new peer.
    fn start(device: i32) -> Self::Request;
    /// The request after which the peer exits with status 0.
    fn exit() -> Self::Request;
}

/// A running peer of protocol `P` (the HIP and CUDA peers: one body for both).
#[derive(Debug)]
pub struct Peer<P> {
    link: Link,
    protocol: std::marker::PhantomData<P>,
}

impl<P: Protocol> Peer<P> {
    /// Starts a peer named `name` and has it make device `device` current.
    ///
    /// # Errors
    /// [`Failure::Peer`] when it cannot start; a setup failure when the device cannot be made current.
    pub fn start(launcher: &Launcher, name: &str, device: i32) -> Result<Self, Failure> {
        let mut p = Self::unstarted(launcher, name)?;
        p.setup(&P::start(device))?;
        Ok(p)
    }

    /// Starts a peer named `name` with no device made current (one that may
    /// see none).
    ///
    /// # Errors
    /// [`Failure::Peer`] when it cannot start.
    pub fn unstarted(launcher: &Launcher, name: &str) -> Result<Self, Failure> {
        Ok(Self { link: Link::spawn(launcher, P::ROLE, name)?, protocol: std::marker::PhantomData })
    }

    /// Sends `req` and waits for the reply.
    ///
    /// # Errors
    /// [`Failure::Peer`] when the peer dies, does not answer in
    /// [`REPLY_TIMEOUT`], or answers garbage.
    pub fn call(&mut self, req: &P::Request) -> Result<P::Reply, Failure> {
        self.call_fds(req, &[])
    }

    /// Sends `req` with `fds` attached (`SCM_RIGHTS`) and waits for the reply.
    ///
    /// # Errors
    /// As [`Peer::call`].
    pub fn call_fds(&mut self, req: &P::Request, fds: &[BorrowedFd<'_>]) -> Result<P::Reply, Failure> {
        self.link.call(req, fds).map(|(r, _fds)| r)
    }

    /// Sends `req`, which only prepares the rule: a code other than success is a setup failure.
    ///
    /// # Errors
    /// As [`Peer::call`], and a setup failure for a code other than success.
    pub fn setup(&mut self, req: &P::Request) -> Result<P::Reply, Failure> {
        self.link.setup(req)
    }

    /// Asks the peer to exit and waits for it, at most [`EXIT_TIMEOUT`].
    ///
    /// # Errors
    /// As [`Peer::call`], and a failure when it does not exit cleanly.
    pub fn exit(mut self) -> Result<(), Failure> {
        self.setup(&P::exit())?;
        self.link.exited()
    }

    /// Kills the peer (`SIGKILL`) and reaps it, as a crash would end it.
    pub fn kill(mut self) {
        self.link.kill();
    }
}

/// A running peer speaking requests `Q` and replies `R`.
#[derive(Debug)]
pub struct Link {
    peer: vmmkit_testkit::Peer,
}

impl Link {
    /// Starts `vmmkit <role>` as the peer `name`.
    pub fn spawn(launcher: &Launcher, role: &str, name: &str) -> Result<Self, Failure> {
        Self::spawn_under(launcher, &[], role, name)
    }

    /// Starts `vmmkit <role>` as the peer `name`, run by `wrapper` (see
    /// [`Launcher`]): e.g. `unshare` for a peer in namespaces of its own.
    pub fn spawn_under(launcher: &Launcher, wrapper: &[&str], role: &str, name: &str) -> Result<Self, Failure> {
        let peer =
            vmmkit_testkit::Peer::spawn(name, &mut launcher.command_under(wrapper, role)).map_err(|e| match e {
                PeerError::Spawn { source, .. } => {
                    Failure::Peer(format!("peer {name}: cannot start {}: {source}", launcher.exe.display()))
                }
                e => Failure::Peer(e.to_string()),
            })?;
        Ok(Self { peer })
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.peer.pid()
    }

    /// The peer's name.
    pub fn name(&self) -> &str {
        self.peer.name()
    }

    /// Sends `req` with `fds` and waits for the reply and its fds.
    ///
    /// # Errors
    /// [`Failure::Peer`] when the peer ended ("… exited with status 3 during
    /// start"), does not answer in [`REPLY_TIMEOUT`], or answers garbage.
    pub fn call<Q: Serialize, R: DeserializeOwned>(
        &mut self,
        req: &Q,
        fds: &[BorrowedFd<'_>],
    ) -> Result<(R, Vec<OwnedFd>), Failure> {
        if let Some(exit) = self.peer.exit() {
            return Err(Failure::Peer(format!("peer {} {exit} before {}", self.name(), op(req))));
        }
        self.peer.call_json(req, fds, REPLY_TIMEOUT).map_err(|e| Failure::Peer(format!("{e} during {}", op(req))))
    }

    /// Sends `req`, which only prepares the rule: a code other than success
    /// is a setup failure.
    pub fn setup<Q: Serialize, R: DeserializeOwned + VendorReply>(&mut self, req: &Q) -> Result<R, Failure> {
        let (r, _fds): (R, _) = self.call(req, &[])?;
        match r.failed() {
            None => Ok(r),
            Some(code) => {
                let call = if r.text().is_empty() { op(req) } else { r.text().to_string() };
                Err(Failure::Setup(format!("setup: peer {}: {call} returned {code}", self.name())))
            }
        }
    }

    /// Waits, after an exit request was answered, for the peer to exit with status 0.
    pub fn exited(&mut self) -> Result<(), Failure> {
        match self.peer.wait(EXIT_TIMEOUT) {
            Ok(e) if e.success() => Ok(()),
            Ok(e) => Err(Failure::Peer(format!("peer {} (pid {}) {e} after exit", self.name(), self.pid()))),
            Err(e) => Err(Failure::Peer(format!("{e} after exit"))),
        }
    }

    /// Kills the peer (`SIGKILL`) and reaps it, as a crash would end it.
    pub fn kill(&mut self) {
        self.peer.kill();
    }
}

/// A request's name, for messages: its serde tag `op`.
fn op<Q: Serialize>(req: &Q) -> String {
    let v = serde_json::to_value(req).unwrap_or_default();
    v.get("op").and_then(|o| o.as_str()).unwrap_or("request").to_string()
}

/// What a peer does with one request.
#[derive(Debug)]
pub enum Step<R> {
    /// Reply, and wait for the next request.
    Reply(R),
    /// Reply, then exit with status 0.
    ReplyAndExit(R),
    /// Exit at once with this status (the peer cannot serve).
    Stop(ExitCode),
}

/// The peer's loop: reads requests from the channel its parent gave it as
/// stdin (dying with its parent), hands each to `handle` and sends the
/// reply, until the channel closes (status 0), a request is late or bad
/// (status 4), or `handle` says to stop.
pub fn serve<Q: DeserializeOwned, R: Serialize>(
    role: &str,
    mut handle: impl FnMut(Q, Vec<OwnedFd>) -> Step<R>,
) -> ExitCode {
    let pid = std::process::id();
    let chan = match vmmkit_testkit::peer::serve_channel() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vmmkit {role}: stdin: {e}");
            return ExitCode::from(3);
        }
    };
    loop {
        let (req, fds) = match chan.recv_json::<Q>(IDLE_TIMEOUT) {
            Ok(got) => got,
            Err(RecvError::Closed) => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vmmkit {role} (pid {pid}): {e}");
                return ExitCode::from(4);
            }
        };
        let (reply, exit) = match handle(req, fds) {
            Step::Reply(r) => (r, false),
            Step::ReplyAndExit(r) => (r, true),
            Step::Stop(code) => return code,
        };
        if let Err(e) = chan.send_json(&reply, &[]) {
            eprintln!("vmmkit {role} (pid {pid}): reply: {e}");
            return ExitCode::from(4);
        }
        if exit {
            return ExitCode::SUCCESS;
        }
    }
}

/// "exited with status 3", "killed by signal 11".
pub fn describe_exit(s: std::process::ExitStatus) -> String {
    Exit(s).to_string()
}
