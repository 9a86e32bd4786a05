//! The floors: the raw system calls an operation cannot avoid, made
//! directly, on the same file system as the emulator's objects.
//!
//! The emulator plays device memory with files and mappings, so what any
//! implementation of it must pay is a file created and sized, a range of
//! addresses reserved, a file mapped into it, a name given to a file,
//! another process opening and mapping it. These functions make exactly
//! those calls and nothing else; every `mmap` here is undone by its owner's
//! `Drop`, the one `munmap` of the range.

use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, OwnedFd};
use std::path::Path;
use std::ptr::NonNull;

use rustix::fs::{AtFlags, CWD, MemfdFlags, Mode, OFlags};
use rustix::mm::{MapFlags, MprotectFlags, ProtFlags};

use crate::error::{BenchError, Result};

/// `open(dir, O_TMPFILE | O_RDWR)` + `ftruncate(size)`: an unnamed file of
/// `size` bytes (sparse), as the emulator makes physical memory. Closing is
/// dropping the fd.
///
/// # Errors
/// The system call's error.
pub fn tmpfile(dir: &Path, size: usize) -> Result<OwnedFd> {
    let fd = rustix::fs::open(dir, OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC, Mode::from_raw_mode(0o600))
        .map_err(|e| BenchError::io("open(O_TMPFILE)", e))?;
    rustix::fs::ftruncate(&fd, size as u64).map_err(|e| BenchError::io("ftruncate", e))?;
    Ok(fd)
}

/// `memfd_create` + `ftruncate(size)`: the cheaper object the emulator
/// cannot use (a memfd cannot be linked into a directory: `EXDEV`).
///
/// # Errors
/// The system call's error.
pub fn memfd(size: usize) -> Result<OwnedFd> {
    let fd =
        rustix::fs::memfd_create("vmmkit-floor", MemfdFlags::CLOEXEC).map_err(|e| BenchError::io("memfd_create", e))?;
    rustix::fs::ftruncate(&fd, size as u64).map_err(|e| BenchError::io("ftruncate", e))?;
    Ok(fd)
}

/// `linkat("/proc/self/fd/N", path, AT_SYMLINK_FOLLOW)`: gives an unnamed
/// file a name without privileges (what export must do so that another
/// process finds the object by its key).
///
/// # Errors
/// The system call's error.
pub fn link(fd: &impl AsFd, path: &Path) -> Result<()> {
    let src = format!("/proc/self/fd/{}", fd.as_fd().as_raw_fd());
    rustix::fs::linkat(CWD, src.as_str(), CWD, path, AtFlags::SYMLINK_FOLLOW)
        .map_err(|e| BenchError::io(format!("linkat {}", path.display()), e))
}

/// `unlink(path)`.
///
/// # Errors
/// The system call's error.
pub fn unlink(path: &Path) -> Result<()> {
    rustix::fs::unlink(path).map_err(|e| BenchError::io(format!("unlink {}", path.display()), e))
}

/// A named file of `size` bytes whose first byte is `first`, for the
/// handoff floor's peer to open.
///
/// # Errors
/// The system calls' errors.
pub fn named_file(path: &Path, size: usize, first: u8) -> Result<()> {
    let fd = rustix::fs::open(
        path,
        OFlags::CREATE | OFlags::EXCL | OFlags::RDWR | OFlags::CLOEXEC,
        Mode::from_raw_mode(0o600),
    )
    .map_err(|e| BenchError::io(format!("creating {}", path.display()), e))?;
    rustix::fs::ftruncate(&fd, size as u64).map_err(|e| BenchError::io("ftruncate", e))?;
    rustix::io::pwrite(&fd, &[first], 0).map_err(|e| BenchError::io("pwrite", e))?;
    Ok(())
}

/// An address range this module mapped; dropping it unmaps the whole range.
#[derive(Debug)]
pub struct Range {
    base: NonNull<c_void>,
    len: usize,
}

impl Range {
    /// `mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)`:
    /// reserved addresses, as a device reservation is.
    ///
    /// # Errors
    /// The system call's error.
    pub fn reserve(len: usize) -> Result<Self> {
        // SAFETY: a new mapping at an address the kernel picks replaces nothing.
        let p = unsafe {
            rustix::mm::mmap_anonymous(
                std::ptr::null_mut(),
                len,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE,
            )
        }
        .map_err(|e| BenchError::io("mmap(PROT_NONE)", e))?;
        Ok(Self { base: NonNull::new(p).ok_or_else(|| BenchError::Check("mmap returned NULL".into()))?, len })
    }

    /// `mmap(addr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE)`:
    /// reserved addresses at exactly `addr`, as the emulator places its
    /// reservations (at an aligned address of its device window).
    ///
    /// # Errors
    /// The system call's error (`EEXIST` when something is mapped there).
    pub fn reserve_at(addr: usize, len: usize) -> Result<Self> {
        // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping.
        let p = unsafe {
            rustix::mm::mmap_anonymous(
                addr as *mut c_void,
                len,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::NORESERVE | MapFlags::FIXED_NOREPLACE,
            )
        }
        .map_err(|e| BenchError::io("mmap(MAP_FIXED_NOREPLACE)", e))?;
        let r = Self { base: NonNull::new(p).ok_or_else(|| BenchError::Check("mmap returned NULL".into()))?, len };
        if p as usize != addr {
            return Err(BenchError::Check(format!("mmap placed {len:#x} bytes at {p:p}, not at {addr:#x}")));
        }
        Ok(r)
    }

    /// A reserved range of `len` bytes aligned to `align` (a power of two), as
    /// the emulator aligns its reservations (to the largest power of two not
    /// above the size, up to 1 GiB): over-reserve, then trim both ends.
    ///
    /// # Errors
    /// The system calls' errors.
    pub fn reserve_aligned(len: usize, align: usize) -> Result<Self> {
        let over = Self::reserve(len + align)?;
        let base = over.base() as usize;
        let start = base.next_multiple_of(align);
        let (head, tail) = (start - base, base + over.len - (start + len));
        std::mem::forget(over);
        // SAFETY: both trimmed pieces lie in the range just reserved, which
        // nothing else uses; what stays is owned by the result.
        unsafe {
            if head > 0 {
                rustix::mm::munmap(base as *mut c_void, head).map_err(|e| BenchError::io("munmap", e))?;
            }
            if tail > 0 {
                rustix::mm::munmap((start + len) as *mut c_void, tail).map_err(|e| BenchError::io("munmap", e))?;
            }
        }
        let base = NonNull::new(start as *mut c_void).ok_or_else(|| BenchError::Check("aligned NULL".into()))?;
        Ok(Self { base, len })
    }

    /// `mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)`: a file mapped
    /// where the kernel chooses.
    ///
    /// # Errors
    /// The system call's error.
    pub fn map_file(fd: &impl AsFd, len: usize) -> Result<Self> {
        // SAFETY: a new mapping at an address the kernel picks replaces nothing.
        let p = unsafe {
            rustix::mm::mmap(std::ptr::null_mut(), len, ProtFlags::READ | ProtFlags::WRITE, MapFlags::SHARED, fd, 0)
        }
        .map_err(|e| BenchError::io("mmap(MAP_SHARED)", e))?;
        Ok(Self { base: NonNull::new(p).ok_or_else(|| BenchError::Check("mmap returned NULL".into()))?, len })
    }

    /// First address.
    pub fn base(&self) -> *mut c_void {
        self.base.as_ptr()
    }

    /// `mmap(base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0)`:
    /// maps `len` bytes of a file over the start of the range.
    ///
    /// # Errors
    /// The system call's error, or a length past the range.
    pub fn map_fixed(&self, fd: &impl AsFd, len: usize) -> Result<()> {
        self.check(len)?;
        // SAFETY: the pages replaced lie inside this range (checked), which
        // only this owner maps into.
        unsafe {
            rustix::mm::mmap(
                self.base(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED | MapFlags::FIXED,
                fd,
                0,
            )
        }
        .map_err(|e| BenchError::io("mmap(MAP_FIXED)", e))?;
        Ok(())
    }

    /// `mprotect(base, len, PROT_READ | PROT_WRITE)`: the access grant.
    ///
    /// # Errors
    /// The system call's error, or a length past the range.
    pub fn protect_rw(&self, len: usize) -> Result<()> {
        self.check(len)?;
        // SAFETY: changes the protection of pages of this range only; no
        // reference into them exists.
        unsafe { rustix::mm::mprotect(self.base(), len, MprotectFlags::READ | MprotectFlags::WRITE) }
            .map_err(|e| BenchError::io("mprotect", e))
    }

    /// `mmap(base, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE)`:
    /// puts reserved pages back (an unmap that keeps the range reserved).
    ///
    /// # Errors
    /// The system call's error, or a length past the range.
    pub fn remap_none(&self, len: usize) -> Result<()> {
        self.check(len)?;
        // SAFETY: as in `map_fixed`; the range becomes inaccessible, and no
        // reference into it exists.
        unsafe {
            rustix::mm::mmap_anonymous(
                self.base(),
                len,
                ProtFlags::empty(),
                MapFlags::PRIVATE | MapFlags::FIXED | MapFlags::NORESERVE,
            )
        }
        .map_err(|e| BenchError::io("mmap(MAP_FIXED, PROT_NONE)", e))?;
        Ok(())
    }

    /// Reads the first byte (a page fault on first touch).
    ///
    /// The range must be mapped readable (from [`Range::map_file`], or after
    /// [`Range::map_fixed`]); another process may write it at any time, so
    /// the read is volatile and no reference is made.
    pub fn first_byte(&self) -> u8 {
        // SAFETY: the first page is mapped readable (see above); a volatile
        // read of one byte is defined whatever another process writes.
        unsafe { self.base.cast::<u8>().as_ptr().read_volatile() }
    }

    fn check(&self, len: usize) -> Result<()> {
        if len <= self.len {
            Ok(())
        } else {
            Err(BenchError::Check(format!("{len:#x} bytes past a range of {:#x}", self.len)))
        }
    }
}

impl Drop for Range {
    fn drop(&mut self) {
        // SAFETY: `base..base+len` came from our mmap; maps inside it were laid
        // over it with MAP_FIXED, so nothing else unmaps this range.
        let r = unsafe { rustix::mm::munmap(self.base(), self.len) };
        debug_assert!(r.is_ok(), "munmap of a floor range: {r:?}");
    }
}

/// The handoff floor's file, in the floor directory: the exporter (the
/// handoff case) writes it, the peer maps it.
pub const HANDOFF_FILE: &str = "handoff";

/// `open(path, O_RDWR)` + `mmap(len, MAP_SHARED)` + a read of the first byte:
/// the importing side of the handoff floor. The file and the mapping stay
/// open until the result is dropped.
///
/// # Errors
/// The system calls' errors.
pub fn open_map_read(path: &Path, len: usize) -> Result<(OwnedFd, Range, u8)> {
    let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC, Mode::empty())
        .map_err(|e| BenchError::io(format!("open {}", path.display()), e))?;
    let map = Range::map_file(&fd, len)?;
    let b = map.first_byte();
    Ok((fd, map, b))
}

/// The system calls a registry lookup cannot avoid: `open(path)`, a
/// shared `flock` (the hold), `fstat` (still linked?), a `pread` of the
/// `len`-byte header at `offset`, and `close` (which drops the hold).
///
/// # Errors
/// The system calls' errors.
pub fn lookup(path: &Path, offset: u64, len: usize) -> Result<()> {
    let fd = rustix::fs::open(path, OFlags::RDWR | OFlags::CLOEXEC | OFlags::NOFOLLOW, Mode::empty())
        .map_err(|e| BenchError::io(format!("open {}", path.display()), e))?;
    rustix::fs::flock(&fd, rustix::fs::FlockOperation::NonBlockingLockShared)
        .map_err(|e| BenchError::io("flock", e))?;
    let st = rustix::fs::fstat(&fd).map_err(|e| BenchError::io("fstat", e))?;
    if st.st_nlink == 0 {
        return Err(BenchError::Check(format!("{} is not linked", path.display())));
    }
    let mut buf = [0u8; 256];
    let n = len.min(buf.len());
    rustix::io::pread(&fd, &mut buf[..n], offset).map_err(|e| BenchError::io("pread", e))?;
    Ok(())
}
