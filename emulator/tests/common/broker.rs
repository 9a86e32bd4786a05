//! Hands exported POSIX fds (HIP, CUDA shareable handles) to other
//! processes on request, as a real program's own broker would: each process
//! listens on a `SOCK_SEQPACKET` socket named after its pid in a directory
//! outside the root; an importer connects, sends the registry key it read
//! in a published notice, and gets the fd back with `SCM_RIGHTS` (or
//! `gone` once the owner withdrew it). An fd held here is a holder of the
//! memory (hip.md HIP-VMM-030, cuda.md CUDA-VMM-016), so the owner withdraws
//! it before it frees the memory.

use std::collections::HashMap;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::net::{AddressFamily, SocketAddrUnix, SocketType, accept, bind, connect, listen, socket};
use vmmkit_testkit::Channel;

/// The fds this process offers, by registry key.
#[derive(Clone, Default)]
pub struct Broker {
    offered: Arc<Mutex<HashMap<u64, OwnedFd>>>,
}

fn socket_path(dir: &Path, pid: i32) -> PathBuf {
    dir.join(format!("{pid}.sock"))
}

impl Broker {
    /// Starts serving requests on `dir/<pid>.sock` in a thread that lives as
    /// long as the process.
    pub fn serve(dir: &Path) -> Self {
        let b = Self::default();
        let path = socket_path(dir, std::process::id() as i32);
        let l = socket(AddressFamily::UNIX, SocketType::SEQPACKET, None).expect("socket");
        bind(&l, &SocketAddrUnix::new(&path).expect("socket path")).expect("bind the broker");
        listen(&l, 64).expect("listen");
        let offered = b.offered.clone();
        std::thread::spawn(move || {
            while let Ok(conn) = accept(&l) {
                let c = Channel::from_fd(conn);
                let Ok((text, _)) = c.recv_text(Duration::from_secs(5)) else { continue };
                let key = u64::from_str_radix(text.trim(), 16).ok();
                let fd = key.and_then(|k| offered.lock().expect("offered").get(&k).and_then(|f| f.try_clone().ok()));
                let _ = match &fd {
                    Some(fd) => c.send_text("ok", &[fd.as_fd()]),
                    None => c.send_text("gone", &[]),
                };
            }
        });
        b
    }

    /// Offers `fd` as the shareable handle of the entry `key`.
    pub fn offer(&self, key: u64, fd: OwnedFd) {
        self.offered.lock().expect("offered").insert(key, fd);
    }

    /// Withdraws (closes) the fd offered for `key`.
    pub fn withdraw(&self, key: u64) {
        self.offered.lock().expect("offered").remove(&key);
    }

    /// Asks process `pid`'s broker for the fd of `key`; `None` if it is
    /// gone (withdrawn, or the process died).
    pub fn fetch(dir: &Path, pid: i32, key: u64) -> Option<OwnedFd> {
        let s = socket(AddressFamily::UNIX, SocketType::SEQPACKET, None).ok()?;
        connect(&s, &SocketAddrUnix::new(socket_path(dir, pid)).ok()?).ok()?;
        let c = Channel::from_fd(s);
        c.send_text(&format!("{key:x}"), &[]).ok()?;
        match c.recv_text(Duration::from_secs(20)) {
            Ok((r, mut fds)) if r == "ok" => fds.pop(),
            _ => None,
        }
    }
}
