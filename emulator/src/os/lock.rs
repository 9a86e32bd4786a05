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
    /// Waits at most `patience` for the exclusive lock of `fd`: a holder
    /// that is stopped (SIGSTOP, a debugger) must not hang the waiter.
    /// `Ok(None)` when the time ran out.
    pub fn lock_within(fd: &'a impl AsFd, patience: std::time::Duration) -> io::Result<Option<Self>> {
        let fd = fd.as_fd();
        let deadline = std::time::Instant::now() + patience;
        let mut pause = std::time::Duration::from_micros(50);
        loop {
            if try_op(fd, FlockOperation::NonBlockingLockExclusive)? {
                return Ok(Some(Self { fd }));
            }
            if std::time::Instant::now() >= deadline {
                return Ok(None);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(10));
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

/// A one-byte `fcntl` open-file-description lock (`F_OFD_SETLK`) at `offset`
/// of a file: the emulator's sign of life for one process slot.
///
/// Like `flock`, it belongs to the open file description, so the kernel drops
/// it when the last process holding that description exits or dies — and a
/// child forked from the holder holds it too, as it holds the memory the
/// parent mapped. Unlike a pid it names no process, so it means the same in
/// every pid namespace and cannot be recycled. Byte ranges make one file carry
/// a lock per slot.
pub mod range {
    use std::io;
    use std::os::fd::{AsFd, AsRawFd};

    fn flock_at(offset: u64, kind: libc::c_int) -> libc::flock {
        // SAFETY: `flock` is a plain C struct of integers; all zeros is valid
        // (and `l_pid` must be 0 for OFD locks).
        let mut l: libc::flock = unsafe { std::mem::zeroed() };
        l.l_type = kind as libc::c_short;
        l.l_whence = libc::SEEK_SET as libc::c_short;
        l.l_start = offset as libc::off_t;
        l.l_len = 1;
        l
    }

    fn fcntl(fd: impl AsFd, cmd: libc::c_int, l: &mut libc::flock) -> io::Result<()> {
        loop {
            // SAFETY: `fd` is an open descriptor for the duration of the call
            // and `l` a valid, exclusively borrowed `struct flock`.
            let r = unsafe { libc::fcntl(fd.as_fd().as_raw_fd(), cmd, l as *mut libc::flock) };
            if r == 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EINTR) {
                return Err(e);
            }
        }
    }

    /// Takes the write lock of byte `offset` without waiting. `Ok(false)`
    /// when another open file description holds it.
    pub fn try_lock(fd: impl AsFd, offset: u64) -> io::Result<bool> {
        match fcntl(fd, libc::F_OFD_SETLK, &mut flock_at(offset, libc::F_WRLCK)) {
            Ok(()) => Ok(true),
            Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EACCES)) => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Lets go of the lock of byte `offset`.
    pub fn unlock(fd: impl AsFd, offset: u64) {
        // Unlocking a range cannot fail on a valid descriptor.
        let _ = fcntl(fd, libc::F_OFD_SETLK, &mut flock_at(offset, libc::F_UNLCK));
    }

    /// Whether another open file description holds byte `offset`. When the
    /// kernel cannot say, it counts as held: what may be alive must never be
    /// collected because of a failure to look.
    pub fn held_elsewhere(fd: impl AsFd, offset: u64) -> bool {
        let mut l = flock_at(offset, libc::F_WRLCK);
        match fcntl(fd, libc::F_OFD_GETLK, &mut l) {
            Ok(()) => l.l_type != libc::F_UNLCK as libc::c_short,
            Err(_) => true,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn a_range_lock_is_seen_from_another_description_only() {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            let a = std::fs::File::create(&path).unwrap();
            let b = std::fs::OpenOptions::new().read(true).write(true).open(&path).unwrap();
            assert!(try_lock(&a, 7).unwrap());
            assert!(!held_elsewhere(&a, 7), "its own lock does not conflict");
            assert!(held_elsewhere(&b, 7));
            assert!(!held_elsewhere(&b, 8), "one byte only");
            assert!(!try_lock(&b, 7).unwrap());
            unlock(&a, 7);
            assert!(!held_elsewhere(&b, 7));
            assert!(try_lock(&b, 7).unwrap());
            drop(b);
            assert!(!held_elsewhere(&a, 7), "dropped with its description");
        }
    }
}
