//! Fd-only (HIP, CUDA): passing an exported POSIX fd to another process
//! over a Unix socket with `SCM_RIGHTS`, as the vendors' IPC samples do.
//!
//! An fd is a permission: whoever holds a copy may import the memory, so
//! HIP and CUDA need no trustlist; the kernel gives the receiver its own
//! descriptor for the same open file.
//!
//! ```
//! use std::os::unix::net::UnixStream;
//! let (a, b) = UnixStream::pair()?;
//! let file = std::fs::File::open("/dev/null")?;
//! vmmkit_runtime::fd::send(&a, std::os::fd::AsFd::as_fd(&file), b"size 0x200000")?;
//! let mut buf = [0u8; 64];
//! let (fd, n) = vmmkit_runtime::fd::recv(&b, &mut buf)?;
//! assert_eq!(&buf[..n], b"size 0x200000");
//! # drop(fd);
//! # Ok::<(), std::io::Error>(())
//! ```
#![forbid(unsafe_code)]

use std::io::{self, IoSlice, IoSliceMut};
use std::mem::MaybeUninit;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::os::unix::net::UnixStream;

use rustix::io::Errno;
use rustix::net::{
    RecvAncillaryBuffer, RecvAncillaryMessage, RecvFlags, ReturnFlags, SendAncillaryBuffer, SendAncillaryMessage,
    SendFlags, recvmsg, sendmsg,
};

fn retry<T>(mut f: impl FnMut() -> rustix::io::Result<T>) -> io::Result<T> {
    loop {
        match f() {
            Err(Errno::INTR) => continue,
            r => return r.map_err(io::Error::from),
        }
    }
}

/// Sends `payload` (at least one byte: a stream carries no empty message)
/// with a copy of `fd` attached, in one `sendmsg`.
///
/// # Errors
/// The system call's error; an empty payload is `InvalidInput`.
pub fn send(sock: &UnixStream, fd: BorrowedFd<'_>, payload: &[u8]) -> io::Result<()> {
    if payload.is_empty() {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "an fd travels with at least one byte"));
    }
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = SendAncillaryBuffer::new(&mut space);
    let fds = [fd];
    if !control.push(SendAncillaryMessage::ScmRights(&fds)) {
        return Err(io::Error::other("the fd does not fit the control buffer"));
    }
    let sent = retry(|| sendmsg(sock, &[IoSlice::new(payload)], &mut control, SendFlags::NOSIGNAL))?;
    if sent != payload.len() {
        return Err(io::Error::other(format!("sent {sent} of {} bytes", payload.len())));
    }
    Ok(())
}

/// Receives one message of [`send`] into `buf`: the fd (close-on-exec) and
/// the number of payload bytes. On a stream socket a payload longer than
/// `buf` is read in part (the rest stays queued): size `buf` for the
/// protocol's longest message.
///
/// # Errors
/// The system call's error; `UnexpectedEof` when the peer closed, and
/// `InvalidData` for a message without an fd, with more than one, or with
/// its fds truncated.
pub fn recv(sock: &UnixStream, buf: &mut [u8]) -> io::Result<(OwnedFd, usize)> {
    let mut space = [MaybeUninit::uninit(); rustix::cmsg_space!(ScmRights(1))];
    let mut control = RecvAncillaryBuffer::new(&mut space);
    let msg = retry(|| recvmsg(sock, &mut [IoSliceMut::new(buf)], &mut control, RecvFlags::CMSG_CLOEXEC))?;
    let mut fds: Vec<OwnedFd> = Vec::new();
    for m in control.drain() {
        if let RecvAncillaryMessage::ScmRights(received) = m {
            fds.extend(received);
        }
    }
    if msg.flags.contains(ReturnFlags::TRUNC) || msg.flags.contains(ReturnFlags::CTRUNC) {
        return Err(io::Error::new(io::ErrorKind::InvalidData, "message or its fds truncated"));
    }
    if msg.bytes == 0 && fds.is_empty() {
        return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "the peer closed the socket"));
    }
    let mut fds = fds.into_iter();
    match (fds.next(), fds.next()) {
        (Some(fd), None) => Ok((fd, msg.bytes)),
        (None, _) => Err(io::Error::new(io::ErrorKind::InvalidData, "a message without an fd")),
        (Some(_), Some(_)) => Err(io::Error::new(io::ErrorKind::InvalidData, "more than one fd")),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Seek, Write};
    use std::os::fd::AsFd;

    use super::*;

    #[test]
    fn the_fd_and_the_payload_arrive_together() {
        let (a, b) = UnixStream::pair().unwrap();
        let mut file = tempfile::tempfile().unwrap();
        file.write_all(b"same open file").unwrap();
        send(&a, file.as_fd(), b"size 0x1000").unwrap();
        let mut buf = [0u8; 32];
        let (fd, n) = recv(&b, &mut buf).unwrap();
        assert_eq!(&buf[..n], b"size 0x1000");
        // The receiver's descriptor is a new one for the same open file.
        let mut got = std::fs::File::from(fd);
        got.rewind().unwrap();
        let mut text = String::new();
        got.read_to_string(&mut text).unwrap();
        assert_eq!(text, "same open file");
    }

    #[test]
    fn bad_messages_are_errors() {
        let (a, b) = UnixStream::pair().unwrap();
        let file = tempfile::tempfile().unwrap();
        assert_eq!(send(&a, file.as_fd(), b"").unwrap_err().kind(), io::ErrorKind::InvalidInput);
        (&a).write_all(b"no fd").unwrap();
        assert_eq!(recv(&b, &mut [0u8; 16]).unwrap_err().kind(), io::ErrorKind::InvalidData);
        drop(a);
        assert_eq!(recv(&b, &mut [0u8; 16]).unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    }
}
