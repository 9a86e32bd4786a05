//! Physical memory as a file descriptor that another process can receive
//! (`SCM_RIGHTS`, fork): the POSIX-fd shareable handles of HIP and CUDA.
//!
//! Each descriptor handed out is an open file description of its own with a
//! shared lock on the registry entry, so the descriptor itself is a holder:
//! the memory and its capacity charge outlive every handle for as long as
//! the descriptor is open anywhere (in flight in a socket too). When the last
//! descriptor is closed with no import, the entry is left to `gc`, which
//! finds nobody holding it.

use std::os::fd::{BorrowedFd, OwnedFd};

use crate::os::lock;
use crate::os::object::Object;
use crate::registry::{Place, Trust};

use super::{CoreError, Emulator, HandleId};

/// Whether `fd`, a number a C caller passed, is an open file descriptor of
/// this process (HIP's and CUDA's POSIX-fd imports check it first).
pub fn fd_is_open(fd: i32) -> bool {
    // SAFETY: F_GETFD only asks whether the number is an open descriptor;
    // it touches no memory.
    fd >= 0 && unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1
}

impl Emulator {
    /// A new file descriptor for the memory of `id`, exported to the registry
    /// first (without trustlist) if it was not shared yet. The caller owns it.
    pub fn share_fd(&self, id: HandleId) -> Result<OwnedFd, CoreError> {
        let info = self.describe(id)?;
        let key = match info.key {
            Some(k) => k,
            None => self.export(id, Trust::AnyProcess)?,
        };
        let t = self.lock();
        let p = t.handles.get(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        let own = Object::reopen(p.object.fd())?;
        if !lock::try_shared(&own)? {
            return Err(CoreError::ShareableReleasing(key));
        }
        // The descriptor carries the description, and with it the lock.
        Ok(own.into_fd())
    }

    /// Imports memory received as the file descriptor `fd` onto `device`.
    /// Only a regular file is opened (a terminal or a FIFO never is); one
    /// that is not an exported memory object of the emulator is refused.
    ///
    /// # Errors
    /// [`CoreError::UnknownShareable`] (key 0) for a descriptor that is not
    /// an emulator memory object; the errors of [`Emulator::import_fd`].
    pub fn import_shared_fd(&self, fd: BorrowedFd<'_>, device: Place) -> Result<HandleId, CoreError> {
        match rustix::fs::fstat(fd) {
            Ok(st) if rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile => {}
            _ => return Err(CoreError::UnknownShareable(0)),
        }
        self.import_fd(fd, device).map_err(|e| match e {
            CoreError::Os(_) => CoreError::UnknownShareable(0),
            e => e,
        })
    }

    /// Imports the memory of the file descriptor whose number a C caller
    /// passed by value (CUDA's `osHandle`, HIP develop's) onto `device`. The
    /// descriptor is only borrowed: the caller keeps it and may close it.
    ///
    /// # Errors
    /// [`CoreError::Os`] for a negative or closed number; the errors of
    /// [`Emulator::import_shared_fd`].
    pub fn import_fd_value(&self, fd: i32, device: Place) -> Result<HandleId, CoreError> {
        if !fd_is_open(fd) {
            return Err(CoreError::Os(format!("{fd} is not an open file descriptor")));
        }
        // SAFETY: `fd` is open (checked just above) and is only borrowed for
        // the length of this call; the caller keeps ownership of it.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        self.import_shared_fd(borrowed, device)
    }
}
