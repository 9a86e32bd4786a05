//! Peers: the `vmmkit` binary run again (`vmmkit __peer`) as a second or
//! third process of a multi-process rule.
//!
//! The check and its peer talk over a [`vmmkit_testkit::Channel`] (the
//! peer's stdin), one JSON [`Request`] and one [`Reply`] per packet
//! ([`link`], shared with the CUDA peer). Every wait has a deadline;
//! a peer that dies is a failure that says how it ended ("exited with status
//! 3", "killed by signal 11"), and a live peer is killed when its `Peer` is
//! dropped. Peers also die with their parent (`PR_SET_PDEATHSIG`) and see
//! the channel close when it exits.
#![forbid(unsafe_code)]

pub mod device;
pub mod link;
pub mod protocol;
pub mod steer;

use std::os::fd::{BorrowedFd, OwnedFd};

use vmmkit_sys::acl::AclError;

pub use self::link::{EXIT_TIMEOUT, Launcher, REPLY_TIMEOUT, describe_exit};
use self::link::{Link, VendorReply};
pub use self::protocol::{Reply, Request};
use crate::outcome::Failure;

/// The hidden command that runs an ACL peer.
pub const ROLE: &str = "__peer";

/// A running peer process.
#[derive(Debug)]
pub struct Peer {
    link: Link,
}

impl Peer {
    /// Starts a peer named `name` (for messages). It has done nothing yet:
    /// send [`Request::Start`] (or use [`Peer::start`]).
    pub fn spawn(launcher: &Launcher, name: &str) -> Result<Self, Failure> {
        Ok(Self { link: Link::spawn(launcher, ROLE, name)? })
    }

    /// Starts a peer named `name` on "another server": in a user and network
    /// namespace of its own (`unshare --user --map-root-user --net`), which
    /// keeps the files of the root visible; the emulator names a server by
    /// its network namespace. [`Failure::NotSupported`], with the reason,
    /// where the host does not allow user namespaces.
    pub fn spawn_other_server(launcher: &Launcher, name: &str) -> Result<Self, Failure> {
        const UNSHARE: [&str; 5] = ["unshare", "--user", "--map-root-user", "--net", "--"];
        let probe = std::process::Command::new(UNSHARE[0])
            .args(&UNSHARE[1..])
            .arg("true")
            .stderr(std::process::Stdio::piped())
            .output();
        match probe {
            Ok(o) if o.status.success() => {}
            Ok(o) => {
                let why = String::from_utf8_lossy(&o.stderr).trim().to_string();
                return Err(Failure::NotSupported(format!(
                    "another server needs a user and network namespace: `unshare --user --map-root-user --net true` \
                     failed ({}): {why}",
                    o.status
                )));
            }
            Err(e) => return Err(Failure::NotSupported(format!("another server needs `unshare` (util-linux): {e}"))),
        }
        Ok(Self { link: Link::spawn_under(launcher, &UNSHARE, ROLE, name)? })
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.link.pid()
    }

    /// The peer's name.
    pub fn name(&self) -> &str {
        self.link.name()
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
        self.link.call(req, fds)
    }

    /// Sends `req`; its code is what the check judges.
    pub fn code(&mut self, req: &Request) -> Result<AclError, Failure> {
        Ok(AclError(self.call(req)?.code))
    }

    /// Sends `req`, which only prepares the rule: a code other than success
    /// is a setup failure.
    pub fn setup(&mut self, req: &Request) -> Result<Reply, Failure> {
        self.link.setup(req)
    }

    /// `aclInit` and, when given, `aclrtSetDevice(device)` in the peer.
    pub fn start(&mut self, device: Option<i32>) -> Result<(), Failure> {
        self.setup(&Request::Start { device }).map(drop)
    }

    /// The peer's host pid as `aclrtDeviceGetBareTgid` gives it.
    pub fn bare_tgid(&mut self) -> Result<i32, Failure> {
        let r = self.setup(&Request::Pid)?;
        i32::try_from(r.value).map_err(|_| Failure::Peer(format!("peer {}: pid {} out of range", self.name(), r.value)))
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
        self.link.exited()
    }

    /// Kills the peer (`SIGKILL`) and reaps it, as a crash would end it.
    pub fn kill(mut self) -> Result<(), Failure> {
        self.link.kill();
        Ok(())
    }
}

impl VendorReply for Reply {
    fn failed(&self) -> Option<String> {
        (self.code != 0).then(|| AclError(self.code).to_string())
    }

    fn text(&self) -> &str {
        &self.text
    }
}
