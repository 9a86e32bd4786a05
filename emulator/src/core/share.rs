//! Sharing physical memory between processes through the registry.

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::Arc;

use crate::os::proc::{self, ProcessId};
use crate::registry::{Header, Held, LookupError, Place, Trust};

use super::observe::{self, ShareOp};
use super::physical::{Physical, insert};
use super::{CoreError, Emulator, HandleId};

impl From<LookupError> for CoreError {
    fn from(e: LookupError) -> Self {
        match e {
            LookupError::Unknown(k) => CoreError::UnknownShareable(k),
            LookupError::Releasing(k) => CoreError::ShareableReleasing(k),
            LookupError::Io { source, .. } => source.into(),
        }
    }
}

fn observe_import(h: &Header) {
    observe::share(ShareOp::Import, h.key, h.data_len, h.place, Some(h.exporter.pid));
}

impl Emulator {
    /// Exports a locally allocated handle, importable by the processes `trust`
    /// names. Returns the shareable key.
    pub fn export(&self, id: HandleId, trust: Trust) -> Result<u64, CoreError> {
        let mut t = self.lock();
        let p = t.handles.get(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        if p.imported {
            return Err(CoreError::ImportedNotExportable(id.0));
        }
        if let Some(key) = p.key() {
            return Err(CoreError::AlreadyExported { handle: id.0, key });
        }
        // An entry is a file: the memory leaves the arena for one of its own.
        super::backing::own_file(&mut t, &self.registry, id, self.config.host_access)?;
        let p = t.handles.get(&id).expect("checked above");
        let mut header = Header {
            key: self.registry.new_key(p.home),
            data_len: p.size,
            place: p.home,
            props: p.props,
            trust,
            flags: 0,
            exporter: self.registry.me(),
            created_ns: proc::boot_time_ns(),
            trust_len: 0,
        };
        self.registry.export(p.own_object()?, &mut header)?;
        let key = header.key;
        let p = t.handles.get_mut(&id).expect("checked above");
        p.entry = Some(header);
        p.trust_index = None;
        p.set_uncharged();
        observe::share(ShareOp::Export, key, p.size, p.place, None);
        let mapped = p.map_refs != 0;
        t.exports.insert(key, id);
        if mapped {
            self.set_sharing();
        }
        Ok(key)
    }

    /// Whether an entry named `key` exists (one `stat`).
    pub fn share_exists(&self, key: u64) -> bool {
        self.registry.entry_path(key).exists()
    }

    /// Adds `pids` to the trustlist of `key`, which this process exported.
    pub fn set_trusted(&self, key: u64, pids: &[i32]) -> Result<(), CoreError> {
        let mut t = self.lock();
        let Some(&id) = t.exports.get(&key) else {
            if !self.share_exists(key) {
                return Err(CoreError::UnknownShareable(key));
            }
            return Err(CoreError::NotExporter(key));
        };
        let p = t.handles.get_mut(&id).ok_or(CoreError::UnknownShareable(key))?;
        let object = p.backing.own().ok_or(CoreError::UnknownShareable(key))?;
        let header = p.entry.as_mut().ok_or(CoreError::UnknownShareable(key))?;
        if header.trust == Trust::AnyProcess {
            return Err(CoreError::TrustlistDisabled(key));
        }
        if pids.iter().all(|&p| p == 0) {
            return Err(CoreError::NoPids);
        }
        let index = p.trust_index.get_or_insert_default();
        let fits = self.registry.set_trusted(object, header, index, pids)?;
        if !fits {
            return Err(CoreError::TrustlistFull(key));
        }
        Ok(())
    }

    /// Whether this process holds an import of `key` onto `device` (the
    /// import cache; no file-system access). While it does, its hold keeps
    /// the registry entry linked, so the entry exists.
    pub fn holds_import(&self, key: u64, device: Place) -> bool {
        self.lock().imports.contains_key(&(key, device))
    }

    /// A repeated import, answered by the import cache alone: when this
    /// process holds `key` imported onto `device`, takes one more reference
    /// to that handle and returns it with the place of its memory; with
    /// `link_peers`, also enables peer access both ways between `device` and
    /// that place's device ([ACL-IMP-016](vmmkit_sys::acl::rules::IMP_016)), all under one lock and without a
    /// system call. `None` (nothing changed) when the cache has no such
    /// import, or a fault is injected on the key: [`Emulator::import`] then
    /// does the whole import.
    pub fn import_again(&self, key: u64, device: Place, link_peers: bool) -> Option<(HandleId, Place)> {
        if crate::faults::on_key(super::thread::current_call(), key).is_some() {
            return None;
        }
        // This thread's cache first: no lock (`import_cache.rs`).
        if let Some(hit) = self.import_cache.import(key, device, link_peers) {
            return Some(hit);
        }
        let mut guard = self.lock();
        let t = &mut *guard;
        let id = *t.imports.get(&(key, device))?;
        let p = t.handles.get_mut(&id)?;
        p.refs += 1;
        let place = p.place;
        let mut peers_at = None;
        if let (Place::Device(a), Place::Device(b)) = (device, place)
            && a != b
        {
            // A cached entry made without linking never answers one that must link.
            peers_at = Some(u64::MAX);
            if link_peers {
                t.peers.insert((a, b));
                t.peers.insert((b, a));
                peers_at = Some(self.import_cache.peer_generation());
            }
        }
        if let Some(spare) = &p.spare {
            self.import_cache.remember(key, device, id, place, spare, peers_at);
        }
        Some((id, place))
    }

    /// Imports the memory exported as `key` onto `device`. A repeated import
    /// onto the same device returns the same handle with one more reference.
    pub fn import(&self, key: u64, device: Place) -> Result<HandleId, CoreError> {
        if let Some(a) = crate::faults::on_key(super::thread::current_call(), key) {
            return Err(CoreError::Injected(crate::faults::act(a)));
        }
        let mut t = self.lock();
        if let Some(&id) = t.imports.get(&(key, device))
            && let Some(p) = t.handles.get_mut(&id)
        {
            p.refs += 1;
            return Ok(id);
        }
        let held = self.registry.lookup(key)?;
        let me = self.registry.me();
        if let Err(e) = self.admit(&held, me, device) {
            // A refused import held the entry for a moment: if its exporter
            // let go meanwhile, this hold was the last, and the entry (with
            // its capacity) must go now, not stay charged with nobody.
            let Held { object, header, .. } = held;
            let _ = self.registry.release(object, &header);
            return Err(e);
        }
        observe_import(&held.header);
        let id = insert(&mut t, self.localized(imported(held, device)));
        t.imports.insert((key, device), id);
        Ok(id)
    }

    /// Imports memory received as a file descriptor onto `device` (HIP, CUDA).
    pub fn import_fd(&self, fd: BorrowedFd<'_>, device: Place) -> Result<HandleId, CoreError> {
        let Held { object, header, .. } = self.registry.hold_fd(fd)?;
        observe_import(&header);
        let mut t = self.lock();
        Ok(insert(&mut t, self.localized(Physical::imported_fd(Arc::new(object), header, device, None, None))))
    }

    /// [`Emulator::import_fd`] of the file `file` (its (dev, ino), from an
    /// `fstat` the caller made): a new handle every time (HIP and CUDA give
    /// one per import), but when this process holds the entry through an
    /// earlier fd import of the same file, the new handle shares that hold
    /// and its header, and no system call is made. Otherwise the file is
    /// opened and held, and recorded for the imports that follow; an import
    /// of this process's own export shares (and records) the exporter's hold.
    pub(super) fn import_fd_file(
        &self,
        fd: BorrowedFd<'_>,
        file: super::FileId,
        device: Place,
        kind: Option<i32>,
    ) -> Result<HandleId, CoreError> {
        {
            let mut t = self.lock();
            if let Some((object, header)) = t.fd_imports.get(&file).and_then(|(o, h)| Some((o.upgrade()?, h.clone()))) {
                observe_import(&header);
                return Ok(insert(
                    &mut t,
                    self.localized(Physical::imported_fd(object, header, device, Some(file), kind)),
                ));
            }
        }
        let held = self.registry.hold_fd(fd)?;
        observe_import(&held.header);
        let Held { object, header, .. } = held;
        let mut object = Arc::new(object);
        let mut t = self.lock();
        // Another thread may have recorded the file meanwhile: this hold is
        // then a second one, kept by this handle alone (not recorded).
        let record = t.fd_imports.get(&file).is_none_or(|(o, _)| o.strong_count() == 0);
        if record {
            // This process's own export: the imports share the exporter's
            // hold (the one just taken is let go: the exporter's keeps the
            // entry), and the exporter's handle carries the record too.
            if header.exporter == self.registry.me()
                && let Some(&id) = t.exports.get(&header.key)
                && let Some(ex) = t.handles.get_mut(&id)
                && ex.file.is_none()
                && let Some(own) = ex.backing.own()
            {
                object = Arc::clone(own);
                ex.file = Some(file);
            }
            t.fd_imports.insert(file, (Arc::downgrade(&object), header.clone()));
        }
        Ok(insert(&mut t, self.localized(Physical::imported_fd(object, header, device, record.then_some(file), kind))))
    }

    /// A file descriptor for the memory of an exported handle (HIP, CUDA).
    pub fn export_fd(&self, id: HandleId) -> Result<OwnedFd, CoreError> {
        let t = self.lock();
        let p = t.handles.get(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        Ok(p.own_object()?.dup()?)
    }

    /// The kernel-side import rules (acl.md §5, Import V1, KMD steps).
    fn admit(&self, held: &Held, me: ProcessId, device: Place) -> Result<(), CoreError> {
        let h = &held.header;
        if h.exporter == me && h.place == self.physical_place(device) {
            return Err(CoreError::SameProcessImport { key: h.key, place: h.place });
        }
        if h.trust == Trust::AnyProcess || h.exporter == me {
            return Ok(());
        }
        // A short list came with the header (no read of its own).
        let list = held.trustlist()?;
        match list.iter().filter(|g| g.pid as u32 == me.pid).max_by_key(|g| g.set_ns) {
            None => Err(CoreError::NotTrusted { key: h.key, pid: me.pid, stale: false }),
            Some(g) if !proc::granted_to(g.holder, g.set_ns, &me, self.registry.seen_ns()) => {
                Err(CoreError::NotTrusted { key: h.key, pid: me.pid, stale: true })
            }
            Some(_) => Ok(()),
        }
    }
}

fn imported(held: Held, device: Place) -> Physical {
    let Held { object, header, .. } = held;
    Physical::imported(Arc::new(object), header, device)
}
