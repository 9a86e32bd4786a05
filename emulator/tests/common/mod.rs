//! Test harness: each test body in a child process with its own emulator
//! root, and peers that are this test binary run again in a role.
//!
//! Protocol with a peer: text messages over a [`vmmkit_testkit::Channel`]
//! (the peer's stdin), one command and one reply each; fds may travel with
//! a command. Every receive has a deadline; a peer still running when
//! dropped is killed and reaped.
#![allow(dead_code)]

use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::Path;
use std::sync::OnceLock;
use std::time::Duration;

use vmmkit_sys::acl::{AclApi, AclError};
use vmmkit_testkit::{Channel, PeerError, RecvError, TestRoot, libtest};

pub mod acl_calls;
pub mod audit;
pub mod broker;
pub mod cells;
pub mod dialect;
pub mod driver;
pub mod fuzz_vmm;
pub mod namespace;
pub mod sharing;
pub mod worker;

/// How long any one wait may take.
pub const TIMEOUT: Duration = Duration::from_secs(20);

const CHILD_ENV: &str = "VMMKIT_TEST_CHILD";
const PEER_ENV: &str = "VMMKIT_TEST_PEER";

/// Runs `body` in a fresh child process with a fresh `VMMKIT_ROOT` (and the
/// given extra environment), and fails if the child fails. `name` must be
/// the test's own name, so the child runs exactly that test.
pub fn isolated(name: &str, env: &[(&str, &str)], body: impl FnOnce(&Path)) {
    if std::env::var(CHILD_ENV).as_deref() == Ok(name) {
        let root = std::env::var_os(vmmkit_testkit::root::ROOT_ENV).expect("root set by the parent");
        body(Path::new(&root));
        return;
    }
    let root = TestRoot::new("vmmkit-test-").expect("tempdir");
    let mut cmd = libtest::rerun(name).expect("test exe");
    root.apply(&mut cmd).env(CHILD_ENV, name).env_remove(PEER_ENV);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // The child's own harness output goes to a log, shown only if it fails.
    let (exit, log) =
        vmmkit_testkit::process::run(&mut cmd, TIMEOUT * 3).unwrap_or_else(|e| panic!("test child {name}: {e}"));
    assert!(exit.success(), "test child {name} {exit}:\n{log}");
}

/// The role this process was started in, if it is a peer.
pub fn peer_role() -> Option<String> {
    std::env::var(PEER_ENV).ok()
}

/// A peer process: this test binary run in `role` (its `peer` test dispatches).
#[derive(Debug)]
pub struct Peer {
    peer: vmmkit_testkit::Peer,
}

impl Peer {
    /// Starts the peer `role` in the same root as this process.
    pub fn start(role: &str) -> Self {
        Self::start_with_env(role, &[])
    }

    /// Starts the peer `role` in the same root as this process, with `env` added to its environment.
    pub fn start_with_env(role: &str, env: &[(&str, &str)]) -> Self {
        let mut cmd = libtest::rerun("peer").expect("test exe");
        cmd.env(PEER_ENV, role).env_remove(CHILD_ENV);
        cmd.envs(env.iter().copied());
        Self { peer: vmmkit_testkit::Peer::spawn_logged(role, &mut cmd).expect("spawn peer") }
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.peer.pid()
    }

    /// Sends one command.
    pub fn send(&mut self, line: &str) {
        self.send_fds(line, &[]);
    }

    /// Sends one command with `fds` attached (`SCM_RIGHTS`).
    pub fn send_fds(&mut self, line: &str, fds: &[BorrowedFd<'_>]) {
        if let Err(e) = self.peer.send_text(line, fds) {
            self.fail(&format!("`{line}`"), &e);
        }
    }

    /// The next reply, within the deadline.
    pub fn recv(&mut self) -> String {
        match self.peer.recv_text(TIMEOUT) {
            Ok(r) => r,
            Err(e) => self.fail("reply", &e),
        }
    }

    fn fail(&self, what: &str, e: &PeerError) -> ! {
        panic!("{what}: {e}; its output:\n{}", self.peer.output_tail(40))
    }

    /// Kills the peer with SIGKILL and reaps it.
    pub fn kill(mut self) {
        self.peer.kill();
    }

    /// Closes the channel and waits for the peer to exit on its own; fails on a bad status.
    pub fn finish(mut self) {
        self.peer.close();
        match self.peer.wait(TIMEOUT) {
            Ok(e) if e.success() => {}
            Ok(e) => panic!("peer {e}; its output:\n{}", self.peer.output_tail(40)),
            Err(e) => self.fail("exit", &e),
        }
    }
}

/// Peer side: the channel from the parent (this process's stdin).
fn channel() -> &'static Channel {
    static CHAN: OnceLock<Channel> = OnceLock::new();
    CHAN.get_or_init(|| vmmkit_testkit::peer::serve_channel().expect("a peer's stdin is its channel"))
}

/// Peer side: the next command, or `None` once the parent closed the channel.
pub fn next_command() -> Option<String> {
    next_command_fds().map(|(line, _fds)| line)
}

/// Peer side: the next command and the fds that came with it.
pub fn next_command_fds() -> Option<(String, Vec<OwnedFd>)> {
    // A peer waits as long as its parent wants; it dies with it.
    match channel().recv_text(Duration::from_secs(24 * 3600)) {
        Ok(got) => Some(got),
        Err(RecvError::Closed) => None,
        Err(e) => panic!("peer: {e}"),
    }
}

/// Peer side: replies with one message.
pub fn reply(line: impl std::fmt::Display) {
    reply_fds(line, &[]);
}

/// Peer side: replies with one message and `fds` attached (`SCM_RIGHTS`).
pub fn reply_fds(line: impl std::fmt::Display, fds: &[BorrowedFd<'_>]) {
    channel().send_text(&line.to_string(), fds).expect("reply to the parent");
}

/// A property record for HBM (2 MiB pages) on `device`, as the samples fill it.
pub fn prop(device: u32) -> vmmkit_sys::acl::aclrtPhysicalMemProp {
    dialect::acl_prop(device)
}

/// The emulator's ACL table.
pub fn acl() -> AclApi {
    vmmkit_emulator::acl::api()
}

/// `call!(api, f(args))`: the code of an ACL call ([`vmmkit_testkit::vendor_call`]).
#[macro_export]
macro_rules! call { ($($t:tt)*) => { vmmkit_testkit::vendor_call!(vmmkit_sys::acl::AclError, $($t)*) } }

/// `ok!(api, f(args))`: asserts success, showing the last error message if not.
#[macro_export]
macro_rules! ok { ($api:expr, $($t:tt)*) => { vmmkit_testkit::vendor_ok!(vmmkit_sys::acl::AclError, $crate::common::last_message(&$api), $api, $($t)*) } }

/// The calling thread's last ACL error message.
pub fn last_message(api: &AclApi) -> String {
    // SAFETY: aclGetRecentErrMsg returns a NUL-terminated string valid until the next error.
    unsafe { std::ffi::CStr::from_ptr((api.aclGetRecentErrMsg)()) }.to_string_lossy().into_owned()
}

/// Checks an exact code.
pub fn expect(got: AclError, want: AclError, what: &str) {
    assert_eq!(got, want, "{what}: expected {want}, got {got}");
}

/// `per_dialect!(body; test_acl: Acl, test_hip: Hip)`: one `#[test]` per
/// dialect, each running the generic `body::<Dialect>()` (as wgpu runs one
/// body on every backend), the dialect in the test's name.
#[macro_export]
macro_rules! per_dialect {
    ($body:ident; $($name:ident: $d:ty),* $(,)?) => {$(
        #[test]
        fn $name() {
            $body::<$d>();
        }
    )*};
}
