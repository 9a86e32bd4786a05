//! `flock` guards.
//!
//! Locks of this kind belong to an open file description and the kernel drops
//! them when the holder dies, which is what makes them the emulator's crash-safe
//! reference counts and mutexes between processes.

use std::io;
use std::os::fd::{AsFd, BorrowedFd};

use rustix::fs::{FlockOperation, flock};

/// Holds an exclusive lock on a file until dropped.
#[derive(Debug)]
pub struct Exclusive<'a> {
    fd: BorrowedFd<'a>,
}

impl<'a> Exclusive<'a> {
    /// Blocks until the exclusive lock of `fd` is ours.
    pub fn lock(fd: &'a impl AsFd) -> io::Result<Self> {
        let fd = fd.as_fd();
        loop {
            match flock(fd, FlockOperation::LockExclusive) {
                Ok(()) => return Ok(Self { fd }),
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(e.into()),
            }
        }
    }
}

impl Drop for Exclusive<'_> {
    fn drop(&mut self) {
        // Unlocking a locked description cannot fail.
        let _ = flock(self.fd, FlockOperation::Unlock);
    }
}

/// Takes a shared lock without waiting. `Ok(false)` when an exclusive lock is held elsewhere.
pub fn try_shared(fd: impl AsFd) -> io::Result<bool> {
    try_op(fd, FlockOperation::NonBlockingLockShared)
}

/// Takes (or converts to) an exclusive lock without waiting. `Ok(false)` when
/// any other description holds a lock.
pub fn try_exclusive(fd: impl AsFd) -> io::Result<bool> {
    try_op(fd, FlockOperation::NonBlockingLockExclusive)
}

fn try_op(fd: impl AsFd, op: FlockOperation) -> io::Result<bool> {
    loop {
        match flock(fd.as_fd(), op) {
            Ok(()) => return Ok(true),
            Err(rustix::io::Errno::WOULDBLOCK) => return Ok(false),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}
