//! Physical memory objects: files on the root's file system (a tmpfs by
//! default), created unnamed with `O_TMPFILE` and given a name only on export.
//!
//! The kernel counts the references to a file's pages (fds and mappings), so
//! memory that a process has mapped stays valid after every other holder let
//! go: that is the refcounted free of the vendors, for free.

use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::Path;

use rustix::fs::{AtFlags, CWD, Mode, OFlags};

/// A physical memory object: an open file of `len` bytes, pages touched lazily.
#[derive(Debug)]
pub struct Object {
    fd: OwnedFd,
}

impl Object {
    /// Creates an unnamed file of `len` bytes (sparse) in the directory `dir`,
    /// mode 0600 whatever the umask (under umask 277 the open's mode would be
    /// 0400, and once linked as an entry no importer could open it to write):
    /// set with `fchmod` when `fix_mode`, else left to the directory's
    /// default ACL (see `registry::root::exact_modes`).
    pub fn create(dir: &Path, len: u64, fix_mode: bool) -> io::Result<Self> {
        let mode = Mode::RUSR | Mode::WUSR;
        let fd = rustix::fs::open(dir, OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC, mode)?;
        if fix_mode {
            rustix::fs::fchmod(&fd, mode)?;
        }
        rustix::fs::ftruncate(&fd, len)?;
        Ok(Self { fd })
    }

    /// Opens the object named `path` for reading and writing.
    pub fn open(path: &Path) -> io::Result<Self> {
        let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOFOLLOW, Mode::empty())?;
        Ok(Self { fd })
    }

    /// Opens the object named `name` in the directory `dir` for reading and
    /// writing (a lookup of one name, where a path walks every component).
    pub fn open_in(dir: BorrowedFd<'_>, name: &str) -> io::Result<Self> {
        let fd = rustix::fs::openat(dir, name, OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOFOLLOW, Mode::empty())?;
        Ok(Self { fd })
    }

    /// A new open file description of the same file as `fd` (through
    /// `/proc/self/fd`), so that its locks are its own.
    pub fn reopen(fd: BorrowedFd<'_>) -> io::Result<Self> {
        use std::os::fd::AsRawFd;
        let path = format!("/proc/self/fd/{}", fd.as_raw_fd());
        let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())?;
        Ok(Self { fd })
    }

    /// Gives the file the name `path` (which must be on the same file system).
    ///
    /// `linkat` of `/proc/self/fd/N` with `AT_SYMLINK_FOLLOW` needs no
    /// privilege, where `AT_EMPTY_PATH` would need `CAP_DAC_READ_SEARCH`.
    pub fn link(&self, path: &Path) -> io::Result<()> {
        use std::os::fd::AsRawFd;
        let src = format!("/proc/self/fd/{}", self.fd.as_raw_fd());
        rustix::fs::linkat(CWD, src.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW)?;
        Ok(())
    }

    /// Size of the file in bytes.
    pub fn len(&self) -> io::Result<u64> {
        Ok(rustix::fs::fstat(&self.fd)?.st_size as u64)
    }

    /// Sets the size of the file.
    pub fn set_len(&self, len: u64) -> io::Result<()> {
        Ok(rustix::fs::ftruncate(&self.fd, len)?)
    }

    /// Whether the file still has a name (it was not unlinked), and its size
    /// in bytes: one `fstat`.
    pub fn linked_len(&self) -> io::Result<(bool, u64)> {
        let st = rustix::fs::fstat(&self.fd)?;
        Ok((st.st_nlink > 0, st.st_size as u64))
    }

    /// Whether the file still has a name (it was not unlinked).
    pub fn is_linked(&self) -> io::Result<bool> {
        Ok(rustix::fs::fstat(&self.fd)?.st_nlink > 0)
    }

    /// Reads `buf.len()` bytes at `offset`, or as many as there are before
    /// the end of the file; returns how many.
    pub fn read_upto(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            let n = rustix::io::pread(&self.fd, &mut buf[done..], offset + done as u64)?;
            if n == 0 {
                break;
            }
            done += n;
        }
        Ok(done)
    }

    /// Reads exactly `buf.len()` bytes at `offset`.
    pub fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            let n = rustix::io::pread(&self.fd, &mut buf[done..], offset + done as u64)?;
            if n == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
        Ok(())
    }

    /// Writes all of `buf` at `offset`.
    pub fn write_at(&self, buf: &[u8], offset: u64) -> io::Result<()> {
        let mut done = 0;
        while done < buf.len() {
            done += rustix::io::pwrite(&self.fd, &buf[done..], offset + done as u64)?;
        }
        Ok(())
    }

    /// Sets the extended attribute `name` to `value` (created or replaced,
    /// in one step: a reader sees the old value or the new, never a mix).
    pub fn set_attr(&self, name: &str, value: &[u8]) -> io::Result<()> {
        Ok(rustix::fs::fsetxattr(&self.fd, name, value, rustix::fs::XattrFlags::empty())?)
    }

    /// Reads the extended attribute `name` into `buf`: its length, which
    /// may be less than `buf`'s (`ERANGE` when it is longer).
    pub fn get_attr(&self, name: &str, buf: &mut [u8]) -> io::Result<usize> {
        Ok(rustix::fs::fgetxattr(&self.fd, name, buf)?)
    }

    /// Removes the extended attribute `name` (`ENODATA` when there is none).
    pub fn remove_attr(&self, name: &str) -> io::Result<()> {
        Ok(rustix::fs::fremovexattr(&self.fd, name)?)
    }

    /// The file's descriptor.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// Makes a duplicate of the descriptor (for handing to another process).
    pub fn dup(&self) -> io::Result<OwnedFd> {
        Ok(rustix::io::fcntl_dupfd_cloexec(&self.fd, 0)?)
    }

    /// The descriptor itself (the object is gone; its open file
    /// description, and any lock on it, stay with the descriptor).
    pub fn into_fd(self) -> OwnedFd {
        self.fd
    }
}

impl AsFd for Object {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }
}
