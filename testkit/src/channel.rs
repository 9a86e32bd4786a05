//! `Channel`: one end of a `SOCK_SEQPACKET` socketpair. Each message is one
//! packet (so no framing is needed), may carry file descriptors
//! (`SCM_RIGHTS`), and every receive has a deadline.

use std::io::{IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::Mutex;
use std::time::Duration;

use rustix::io::Errno;
use rustix::net::{
    AddressFamily, RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags, SendAncillaryBuffer,
    SendAncillaryMessage, SendFlags, SocketFlags, SocketType, recvmsg, sendmsg, socketpair,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::wait::{Readable, wait_readable};

/// Largest message accepted.
pub const MAX_MESSAGE: usize = 256 * 1024;
/// Most fds one message carries: the kernel's own limit (`SCM_MAX_FD`),
/// so that one message hands a process all its peers' fds (64 processes,
/// all to all).
pub const MAX_FDS: usize = 253;

/// Why a receive gave no message.
#[derive(Debug, thiserror::Error)]
pub enum RecvError {
    /// The other end closed (its process exited).
    #[error("the other end closed the channel")]
    Closed,
    /// Nothing came in time.
    #[error("no message in {} s", .0.as_secs_f64())]
    Timeout(Duration),
    /// The message was not what the protocol allows.
    #[error("bad message: {0}")]
    Bad(String),
    /// The socket failed.
    #[error("channel: {0}")]
    Io(#[from] std::io::Error),
}

/// One end of a message channel.
#[derive(Debug)]
pub struct Channel {
    fd: OwnedFd,
    /// The receive buffer, kept between messages: a fresh `MAX_MESSAGE`
    /// allocation per message would be an `mmap` and page faults each time,
    /// which the benches' round trips would measure.
    buf: Mutex<Vec<u8>>,
}

impl Channel {
    /// A connected pair: this end, and the other end's fd for a child (give it
    /// as the child's stdin; both are close-on-exec until then).
    pub fn pair() -> std::io::Result<(Self, OwnedFd)> {
        let (a, b) = socketpair(AddressFamily::UNIX, SocketType::SEQPACKET, SocketFlags::CLOEXEC, None)?;
        Ok((Self::from_fd(a), b))
    }

    /// Wraps an end made by [`Channel::pair`].
    pub fn from_fd(fd: OwnedFd) -> Self {
        Self { fd, buf: Mutex::new(Vec::new()) }
    }

    /// The channel a [`crate::Peer`] was given as its stdin (a duplicate of fd 0).
    pub fn from_stdin() -> std::io::Result<Self> {
        Ok(Self::from_fd(rustix::io::fcntl_dupfd_cloexec(std::io::stdin().as_fd(), 3)?))
    }

    /// Sends `bytes` with `fds` attached.
    pub fn send(&self, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
        if bytes.len() > MAX_MESSAGE || fds.len() > MAX_FDS {
            return Err(std::io::Error::other(format!(
                "message of {} bytes and {} fds exceeds {MAX_MESSAGE} bytes or {MAX_FDS} fds",
                bytes.len(),
                fds.len()
            )));
        }
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
        let mut control = SendAncillaryBuffer::new(&mut space);
        if !fds.is_empty() && !control.push(SendAncillaryMessage::ScmRights(fds)) {
            return Err(std::io::Error::other("fds do not fit the control buffer"));
        }
        let sent = retry_intr(|| sendmsg(&self.fd, &[IoSlice::new(bytes)], &mut control, SendFlags::NOSIGNAL))?;
        if sent != bytes.len() {
            return Err(std::io::Error::other(format!("sent {sent} of {} bytes", bytes.len())));
        }
        Ok(())
    }

    /// Receives one message and the fds attached to it, waiting at most `timeout`.
    pub fn recv(&self, timeout: Duration) -> Result<(Vec<u8>, Vec<OwnedFd>), RecvError> {
        if wait_readable(self.fd.as_fd(), timeout)? == Readable::No {
            return Err(RecvError::Timeout(timeout));
        }
        let mut buf = self.buf.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        buf.resize(MAX_MESSAGE, 0);
        let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(MAX_FDS))];
        let mut control = RecvAncillaryBuffer::new(&mut space);
        let msg = match retry_intr(|| {
            recvmsg(&self.fd, &mut [IoSliceMut::new(&mut buf)], &mut control, RecvFlags::CMSG_CLOEXEC)
        }) {
            Ok(m) => m,
            // The other end died with a message of ours unread.
            Err(e) if e.raw_os_error() == Some(Errno::CONNRESET.raw_os_error()) => return Err(RecvError::Closed),
            Err(e) => return Err(e.into()),
        };
        let mut fds = Vec::new();
        for m in control.drain() {
            if let RecvAncillaryMessage::ScmRights(received) = m {
                fds.extend(received);
            }
        }
        if msg.bytes == 0 && fds.is_empty() {
            return Err(RecvError::Closed);
        }
        if msg.flags.contains(ReturnFlags::TRUNC) {
            return Err(RecvError::Bad(format!("message longer than {MAX_MESSAGE} bytes")));
        }
        Ok((buf[..msg.bytes].to_vec(), fds))
    }

    /// Sends `text` (a line of a text protocol) with `fds`.
    pub fn send_text(&self, text: &str, fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
        self.send(text.as_bytes(), fds)
    }

    /// Receives a text message, waiting at most `timeout`.
    pub fn recv_text(&self, timeout: Duration) -> Result<(String, Vec<OwnedFd>), RecvError> {
        let (bytes, fds) = self.recv(timeout)?;
        let text = String::from_utf8(bytes).map_err(|e| RecvError::Bad(format!("not UTF-8: {e}")))?;
        Ok((text, fds))
    }

    /// Sends `value` as JSON, with `fds`.
    pub fn send_json<T: Serialize>(&self, value: &T, fds: &[BorrowedFd<'_>]) -> std::io::Result<()> {
        let bytes = serde_json::to_vec(value).map_err(std::io::Error::other)?;
        self.send(&bytes, fds)
    }

    /// Receives a JSON message, waiting at most `timeout`.
    pub fn recv_json<T: DeserializeOwned>(&self, timeout: Duration) -> Result<(T, Vec<OwnedFd>), RecvError> {
        let (bytes, fds) = self.recv(timeout)?;
        let value = serde_json::from_slice(&bytes)
            .map_err(|e| RecvError::Bad(format!("{e}: {}", String::from_utf8_lossy(&bytes[..bytes.len().min(200)]))))?;
        Ok((value, fds))
    }
}

impl AsFd for Channel {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

fn retry_intr<T>(mut f: impl FnMut() -> rustix::io::Result<T>) -> std::io::Result<T> {
    loop {
        match f() {
            Err(Errno::INTR) => continue,
            r => return r.map_err(Into::into),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fd_travels_and_stays_usable() {
        let (a, b) = Channel::pair().unwrap();
        let b = Channel::from_fd(b);
        let (r, w) = rustix::pipe::pipe().unwrap();
        a.send(b"pipe", &[w.as_fd()]).unwrap();
        drop(w);
        let (msg, mut fds) = b.recv(Duration::from_secs(5)).unwrap();
        assert_eq!(msg, b"pipe");
        assert_eq!(fds.len(), 1);
        let w2 = fds.pop().unwrap();
        rustix::io::write(&w2, b"through").unwrap();
        let mut buf = [0u8; 7];
        rustix::io::read(&r, &mut buf).unwrap();
        assert_eq!(&buf, b"through");
    }

    #[test]
    fn timeout_and_close_are_told_apart() {
        let (a, b) = Channel::pair().unwrap();
        let t = Duration::from_millis(50);
        let timed_out = a.recv(t);
        assert!(matches!(timed_out, Err(RecvError::Timeout(d)) if d == t), "{timed_out:?}");
        assert_eq!(timed_out.unwrap_err().to_string(), "no message in 0.05 s");
        drop(b);
        assert!(matches!(a.recv(t), Err(RecvError::Closed)));
    }

    #[test]
    fn json_and_text_round_trip() {
        let (a, b) = Channel::pair().unwrap();
        let b = Channel::from_fd(b);
        a.send_json(&vec![1u32, 2, 3], &[]).unwrap();
        let (v, fds): (Vec<u32>, _) = b.recv_json(Duration::from_secs(5)).unwrap();
        assert_eq!((v, fds.len()), (vec![1, 2, 3], 0));
        b.send_text("ok 7", &[]).unwrap();
        assert_eq!(a.recv_text(Duration::from_secs(5)).unwrap().0, "ok 7");
    }

    #[test]
    fn oversized_messages_are_refused() {
        let (a, _b) = Channel::pair().unwrap();
        assert!(a.send(&vec![0u8; MAX_MESSAGE + 1], &[]).is_err());
    }
}
