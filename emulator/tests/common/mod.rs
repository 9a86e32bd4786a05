//! Test harness: each test body in a child process with its own emulator
//! root, and peers that are this test binary run again in a role.
//!
//! Protocol with a peer: lines on its stdin; replies are stdout lines that
//! start with `@@ ` (everything else the test harness prints is ignored).
//! Every read has a deadline; a peer still running when dropped is killed.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use vmmkit_sys::acl::{AclApi, AclError};

pub mod audit;
pub mod dialect;
pub mod driver;
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
        let root = PathBuf::from(std::env::var("VMMKIT_ROOT").expect("root set by the parent"));
        body(&root);
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("root");
    let mut cmd = Command::new(std::env::current_exe().expect("test exe"));
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, name)
        .env("VMMKIT_ROOT", &root)
        .env_remove(PEER_ENV);
    for (k, v) in env {
        cmd.env(k, v);
    }
    // The child's own harness output goes to a file, shown only if it fails.
    let log_path = dir.path().join("log");
    let log = std::fs::File::create(&log_path).expect("log file");
    cmd.stdout(log.try_clone().expect("dup log")).stderr(log);
    let mut child = cmd.spawn().expect("spawn test child");
    let status = wait_timeout(&mut child, TIMEOUT * 3);
    if !status.is_some_and(|s| s.success()) {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        panic!("test child {name} failed ({status:?}; None = killed after {} s):\n{log}", (TIMEOUT * 3).as_secs());
    }
}

/// Waits for `child` at most `t`; kills it after that. `None` on timeout.
pub fn wait_timeout(child: &mut Child, t: Duration) -> Option<std::process::ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().expect("try_wait") {
            return Some(s);
        }
        if start.elapsed() > t {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// If this process was started as a peer, runs its role and returns true.
pub fn peer_role() -> Option<String> {
    std::env::var(PEER_ENV).ok()
}

/// A peer process: this test binary run in `role` (its `peer` test dispatches).
pub struct Peer {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Peer {
    /// Starts the peer `role` in the same root as this process.
    pub fn start(role: &str) -> Self {
        let mut child = Command::new(std::env::current_exe().expect("test exe"))
            .args(["peer", "--exact", "--nocapture", "--test-threads=1"])
            .env(PEER_ENV, role)
            .env_remove(CHILD_ENV)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn peer");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Self { child, stdin: Some(stdin), stdout }
    }

    /// The peer's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("peer stdin open");
        writeln!(stdin, "{line}").expect("write to peer");
        stdin.flush().expect("flush");
    }

    /// The next `@@ ` line, within the deadline.
    pub fn recv(&mut self) -> String {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if !self.stdout.buffer().contains(&b'\n') {
                let left = deadline.saturating_duration_since(Instant::now());
                assert!(!left.is_zero(), "peer sent no reply in {} s", TIMEOUT.as_secs());
                let mut fds = [rustix::event::PollFd::new(self.stdout.get_ref(), rustix::event::PollFlags::IN)];
                let ts = rustix::event::Timespec { tv_sec: left.as_secs() as i64, tv_nsec: 0 };
                let _ = rustix::event::poll(&mut fds, Some(&ts));
            }
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read from peer");
            if n == 0 {
                let st = self.child.wait();
                panic!("peer exited before replying: {st:?}");
            }
            // libtest may print "test peer ... " before the first reply on the same line.
            if let Some(at) = line.find("@@ ") {
                return line[at + 3..].trim_end().to_string();
            }
        }
    }

    /// Kills the peer with SIGKILL and reaps it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the peer to exit on its own; fails on a bad status.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let st = wait_timeout(&mut self.child, TIMEOUT);
        assert!(st.is_some_and(|s| s.success()), "peer failed: {st:?}");
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Peer side: reads the next command line from stdin.
pub fn next_command() -> Option<String> {
    let mut line = String::new();
    match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end().to_string()),
    }
}

/// Peer side: replies with one line.
pub fn reply(line: impl std::fmt::Display) {
    println!("@@ {line}");
}

/// A property record for HBM (2 MiB pages) on `device`, as the samples fill it.
pub fn prop(device: u32) -> vmmkit_sys::acl::aclrtPhysicalMemProp {
    use vmmkit_sys::acl::*;
    aclrtPhysicalMemProp {
        handleType: ACL_MEM_HANDLE_TYPE_NONE,
        allocationType: ACL_MEM_ALLOCATION_TYPE_PINNED,
        memAttr: ACL_HBM_MEM_HUGE,
        location: aclrtMemLocation { id: device, type_: ACL_MEM_LOCATION_TYPE_DEVICE },
        reserve: 0,
    }
}

/// The emulator's ACL table.
pub fn acl() -> AclApi {
    vmmkit_emulator::acl::api()
}

/// Calls an ACL function and returns its code. The arguments are the test's
/// deliberate (and deliberately bad) values, hence the unsafe block around them.
#[allow(clippy::macro_metavars_in_unsafe)]
#[macro_export]
macro_rules! call {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {
        // SAFETY: tests pass valid pointers or deliberately bad values that the
        // emulator must reject without dereferencing.
        vmmkit_sys::acl::AclError(unsafe { ($api.$f)($($a),*) })
    };
}

/// Asserts success of an ACL call.
#[macro_export]
macro_rules! ok {
    ($api:expr, $f:ident ( $($a:expr),* $(,)? )) => {{
        let rc = $crate::call!($api, $f($($a),*));
        assert_eq!(rc, vmmkit_sys::acl::AclError::SUCCESS, "{} failed: {}", stringify!($f), $crate::common::last_message(&$api));
    }};
}

/// The calling thread's last ACL error message.
pub fn last_message(api: &AclApi) -> String {
    // SAFETY: aclGetRecentErrMsg returns a NUL-terminated string valid until the next error.
    unsafe { std::ffi::CStr::from_ptr((api.aclGetRecentErrMsg)()) }.to_string_lossy().into_owned()
}

/// Checks an exact code.
pub fn expect(got: AclError, want: AclError, what: &str) {
    assert_eq!(got, want, "{what}: expected {want}, got {got}");
}
