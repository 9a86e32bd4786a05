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
        t.handles.get(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        // The handle holds the entry (the export's hold): its name stays,
        // and opening it is a one-name lookup, not a walk through `/proc`.
        let own = self.registry.reopen_entry(key)?;
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
        let st = rustix::fs::fstat(fd).ok();
        self.import_stat(fd, st.map(|st| (st.st_mode, st.st_dev, st.st_ino)), device, None)
    }

    /// The import of `fd`, whose `fstat` gave `st` (mode, device, inode):
    /// a regular file only, answered from the file's (device, inode) when
    /// this process holds its entry already ([`Emulator::import_fd_file`]).
    /// `kind`: the handle type the dialect passed with the import, kept on
    /// the handle.
    fn import_stat(
        &self,
        fd: BorrowedFd<'_>,
        st: Option<(u32, u64, u64)>,
        device: Place,
        kind: Option<i32>,
    ) -> Result<HandleId, CoreError> {
        let file = match st {
            Some((mode, dev, ino))
                if rustix::fs::FileType::from_raw_mode(mode) == rustix::fs::FileType::RegularFile =>
            {
                (dev, ino)
            }
            _ => return Err(CoreError::UnknownShareable(0)),
        };
        self.import_fd_file(fd, file, device, kind).map_err(|e| match e {
            CoreError::Os(_) => CoreError::UnknownShareable(0),
            e => e,
        })
    }

    /// Imports the memory of the file descriptor whose number a C caller
    /// passed by value (CUDA's `osHandle`, HIP develop's) onto `device`. The
    /// descriptor is only borrowed: the caller keeps it and may close it.
    /// One `fstat` both finds a closed number and names the file. `kind`
    /// is the handle type the dialect passed with the import (HIP's
    /// `shHandleType`, reported back by [HIP-VMM-029](vmmkit_sys::hip::rules::VMM_029)), kept on the handle.
    ///
    /// # Errors
    /// [`CoreError::Os`] for a negative or closed number; the errors of
    /// [`Emulator::import_shared_fd`].
    pub fn import_fd_value(&self, fd: i32, device: Place, kind: Option<i32>) -> Result<HandleId, CoreError> {
        let mut st = std::mem::MaybeUninit::<libc::stat>::uninit();
        // The `fstat` system call itself: glibc's `fstat` makes
        // `newfstatat(fd, "", AT_EMPTY_PATH)`, which the kernel answers
        // about 10 % slower (about 14 ns here).
        // SAFETY: `fstat` writes a `struct stat` into `st`, which has room
        // for one, and touches nothing else; a closed or negative number
        // only makes it fail with EBADF.
        let rc = if fd < 0 { -1 } else { unsafe { libc::syscall(libc::SYS_fstat, fd, st.as_mut_ptr()) } };
        if rc == -1 {
            if fd < 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EBADF) {
                return Err(CoreError::Os(format!("{fd} is not an open file descriptor")));
            }
            // SAFETY: `fd` is open (the failure was not EBADF) and is only
            // borrowed for this call; the caller keeps ownership of it.
            return self.import_stat(unsafe { BorrowedFd::borrow_raw(fd) }, None, device, kind);
        }
        // SAFETY: `fstat` succeeded, so it filled `st`.
        let st = unsafe { st.assume_init() };
        // SAFETY: `fd` is open (`fstat` succeeded on it) and is only
        // borrowed for the length of this call; the caller keeps ownership.
        let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
        self.import_stat(borrowed, Some((st.st_mode, st.st_dev, st.st_ino)), device, kind)
    }
}

#[cfg(test)]
mod tests {
    use std::os::fd::{AsRawFd, OwnedFd};

    use crate::config::Config;
    use crate::core::{CoreError, Emulator, HandleId};
    use crate::registry::Place;

    const G: u64 = 2 << 20;

    /// An emulator with device 0's memory shared as an fd; the handle, the fd.
    fn shared(dir: &std::path::Path) -> (Emulator, HandleId, OwnedFd) {
        let e = Emulator::new(Config::new(dir).with_devices(2)).expect("emulator");
        let h = e.create(Place::Device(0), G, G, [0; 4]).expect("create");
        let fd = e.share_fd(h).expect("share_fd");
        (e, h, fd)
    }

    #[test]
    fn repeated_fd_imports_are_new_handles_sharing_one_hold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, h, fd) = shared(dir.path());
        let key = e.describe(h).expect("live").key.expect("exported");
        let ids: Vec<HandleId> =
            (0..3).map(|_| e.import_fd_value(fd.as_raw_fd(), Place::Device(1), None).expect("import")).collect();
        assert!(ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2], "a new handle each time: {ids:?}");
        {
            let t = e.lock();
            let first = &t.handles[&ids[0]];
            assert!(
                ids.iter()
                    .all(|i| std::sync::Arc::ptr_eq(t.handles[i].backing.own().unwrap(), first.backing.own().unwrap())),
                "one hold"
            );
            assert_eq!(t.fd_imports.len(), 1);
        }
        for &i in &ids {
            let info = e.describe(i).expect("live");
            assert!(info.imported && info.refs == 1 && info.key == Some(key) && info.owner == Place::Device(1));
        }
        // Each handle is reported on its own.
        let leaks = e.leaks().expect("leaks");
        assert_eq!(leaks.iter().filter(|l| l.kind == crate::core::LeakKind::Import).count(), 3);
        // The exporter and the fd let go: the shared hold keeps the entry.
        e.free(h).expect("free the exported handle");
        drop(fd);
        e.free(ids[1]).expect("free");
        e.free(ids[0]).expect("free");
        assert!(e.share_exists(key), "the last import still holds the entry");
        assert_eq!(e.free(ids[0]), Err(CoreError::UnknownHandle(ids[0].0)));
        e.free(ids[2]).expect("last free");
        assert!(!e.share_exists(key), "the last handle gave the hold up and removed the entry");
        assert!(e.lock().fd_imports.is_empty(), "its record went with it");
        assert_eq!(e.registry().usage().used[0], 0, "capacity given back");
    }

    #[test]
    fn an_fd_imported_again_after_a_free_and_bad_numbers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, _h, fd) = shared(dir.path());
        let a = e.import_fd_value(fd.as_raw_fd(), Place::Device(1), None).expect("import");
        e.free(a).expect("free");
        // The exporter's handle (this process's) keeps the file's record.
        assert_eq!(e.lock().fd_imports.len(), 1);
        let b = e.import_fd_value(fd.as_raw_fd(), Place::Device(1), None).expect("import again");
        assert!(e.lock().fd_imports.len() == 1 && e.handle_exists(b));
        // A closed number is refused even while the file is held.
        let raw = fd.as_raw_fd();
        drop(fd);
        assert!(matches!(e.import_fd_value(raw, Place::Device(1), None), Err(CoreError::Os(_))));
        assert!(matches!(e.import_fd_value(-1, Place::Device(1), None), Err(CoreError::Os(_))));
        // Not a regular file.
        let (r, _w) = std::io::pipe().expect("pipe");
        assert_eq!(e.import_fd_value(r.as_raw_fd(), Place::Device(1), None), Err(CoreError::UnknownShareable(0)));
        e.free(b).expect("free");
    }

    #[test]
    fn threads_importing_and_freeing_one_fd_at_once_leave_nothing_held() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, h, fd) = shared(dir.path());
        let key = e.describe(h).expect("live").key.expect("exported");
        let raw = fd.as_raw_fd();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..500 {
                        let a = e.import_fd_value(raw, Place::Device(1), None).expect("import");
                        let b = e.import_fd_value(raw, Place::Device(0), None).expect("import");
                        e.free(a).expect("free");
                        e.free(b).expect("free");
                    }
                });
            }
        });
        assert!(e.lock().fd_imports.len() <= 1, "one record, the exporter's");
        assert!(e.share_exists(key));
        // The fd first: a closed fd gives nothing back (`gc` collects it),
        // the exporter's free then finds no other holder and removes the entry.
        drop(fd);
        e.free(h).expect("free");
        assert!(e.lock().fd_imports.is_empty(), "no record outlives its handles");
        assert!(!e.share_exists(key), "no hold left behind");
        assert_eq!(e.registry().usage().used[0], 0);
    }

    #[test]
    fn imports_of_the_process_own_export_share_the_exporter_hold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, h, fd) = shared(dir.path());
        let key = e.describe(h).expect("live").key.expect("exported");
        let a = e.import_fd_value(fd.as_raw_fd(), Place::Device(0), None).expect("import onto the exporter's device");
        e.free(a).expect("free");
        let b = e.import_fd_value(fd.as_raw_fd(), Place::Device(1), None).expect("import again");
        {
            let t = e.lock();
            assert!(
                std::sync::Arc::ptr_eq(t.handles[&b].backing.own().unwrap(), t.handles[&h].backing.own().unwrap()),
                "the exporter's hold"
            );
            assert_eq!(t.fd_imports.len(), 1, "recorded while the exporter lives");
        }
        // The exporter's free leaves the hold to the import.
        drop(fd);
        e.free(h).expect("free the exporter");
        assert!(e.share_exists(key));
        assert!(e.describe(b).expect("live").imported);
        e.free(b).expect("last free");
        assert!(!e.share_exists(key), "the last handle removed the entry");
        assert!(e.lock().fd_imports.is_empty());
        assert_eq!(e.registry().usage().used[0], 0);
    }
}
