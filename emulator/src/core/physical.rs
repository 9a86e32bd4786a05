//! Physical memory handles: creation, references, destruction.

use std::sync::Arc;

use crate::os::object::Object;
use crate::os::vm::HostView;
use crate::registry::{Header, Place, Registry, TrustIndex};

use super::access_history::History;
use super::backing::Backing;
use super::import_cache::Spare;
use super::{CoreError, Emulator, FileId, HandleId, Tables};

/// Physical memory known to this process under one handle.
#[derive(Debug)]
pub struct Physical {
    /// Where the memory is: a range of the process's arena (not shared
    /// yet), or a file of its own (for exported or imported memory, with
    /// this process's hold). The file is shared by the handles of repeated
    /// fd imports of one entry (`fd.rs`): the last of them to go gives the
    /// hold up.
    pub(super) backing: Backing,
    /// The file's (device, inode), for a handle imported from an fd: its
    /// record in the process's map of fd imports (`Tables::fd_imports`).
    pub(super) file: Option<FileId>,
    /// Bytes.
    pub size: u64,
    /// Where the memory lives, as this process numbers devices (for an
    /// import from a device the process does not see: the importing device).
    pub place: Place,
    /// Where the memory lives on the machine (physical devices: whose
    /// capacity it uses, the place its registry entry records).
    pub home: Place,
    /// The device this handle belongs to: `place` for local memory, the importing device for imports.
    pub owner: Place,
    /// Granularity: maps must be aligned to it.
    pub granule: u64,
    /// Dialect-defined properties (e.g. ACL memAttr).
    pub props: [u64; 4],
    /// References: creation, each map, each retain, each repeated import
    /// made under the lock ([`Physical::total_refs`] adds the quick ones).
    pub refs: u32,
    /// Imports: the references repeated imports took without the lock (`import_cache.rs`).
    pub(super) spare: Option<Arc<Spare>>,
    /// References held by mappings.
    pub map_refs: u32,
    /// Retains (each adds a reference that needs its own free).
    pub retains: u32,
    /// The registry entry, for exported or imported memory.
    pub(super) entry: Option<Header>,
    /// For an entry this process exported and listed pids for: where each
    /// listed pid sits in its trustlist (made at the first list call).
    pub(super) trust_index: Option<Box<TrustIndex>>,
    /// Whether this handle was imported.
    pub imported: bool,
    /// For an fd import: the handle type the dialect passed with it, which
    /// HIP reports back ([HIP-VMM-029](vmmkit_sys::hip::rules::VMM_029)).
    pub import_kind: Option<i32>,
    /// Charged to this process's slot (local device memory not yet exported).
    charged: bool,
    /// The emulator's view for copies of a file of its own, made at the
    /// first copy (the arena's memory is seen through the arena's view).
    pub(super) view: Option<HostView>,
    /// The entry point that created this handle.
    pub created_by: &'static str,
    /// The access history of its entry (`access_history.rs`), mapped at the
    /// first checked access once it has one (`Some(None)`: it could not be).
    pub(super) history: Option<Option<Arc<History>>>,
}

impl Physical {
    /// A handle for memory imported (held through `object`) onto `device`.
    pub(super) fn imported(object: Arc<Object>, header: Header, device: Place) -> Self {
        Self::imported_as(object, header, device, Some(Arc::default()), None, None)
    }

    /// A handle for memory imported from a file descriptor (HIP, CUDA),
    /// recorded under `file` in the process's fd imports or not. Such
    /// imports make a new handle each time, never answered by the
    /// per-thread cache, so the handle has no spare-reference counter
    /// (an allocation and its atomics saved per import).
    /// `kind` is the handle type the dialect passed with the import.
    pub(super) fn imported_fd(
        object: Arc<Object>,
        header: Header,
        device: Place,
        file: Option<FileId>,
        kind: Option<i32>,
    ) -> Self {
        Self::imported_as(object, header, device, None, file, kind)
    }

    fn imported_as(
        object: Arc<Object>,
        header: Header,
        device: Place,
        spare: Option<Arc<Spare>>,
        file: Option<FileId>,
        import_kind: Option<i32>,
    ) -> Self {
        Self {
            backing: Backing::Own(object),
            file,
            size: header.data_len,
            // Made local by `Emulator::localized`.
            place: header.place,
            home: header.place,
            owner: device,
            granule: header.props[1].max(1),
            props: header.props,
            refs: 1,
            spare,
            map_refs: 0,
            retains: 0,
            entry: Some(header),
            trust_index: None,
            imported: true,
            import_kind,
            charged: false,
            view: None,
            history: None,
            created_by: super::thread::current_call(),
        }
    }

    /// All its references: `refs` and those quick imports took.
    pub fn total_refs(&self) -> u32 {
        self.refs + self.spare.as_ref().map_or(0, |s| s.count())
    }

    /// The capacity charge moved from this process to the registry entry.
    pub(super) fn set_uncharged(&mut self) {
        self.charged = false;
    }

    /// The registry key, if exported or imported.
    pub fn key(&self) -> Option<u64> {
        self.entry.as_ref().map(|h| h.key)
    }

    /// The access history of its entry, mapped at the first call (`None`:
    /// memory with no entry, or whose history cannot be mapped).
    pub(super) fn history(&mut self) -> Option<Arc<History>> {
        let (Some(entry), Some(object)) = (&self.entry, self.backing.own()) else { return None };
        self.history.get_or_insert_with(|| History::map(object, entry.data_len).ok().map(Arc::new)).clone()
    }

    /// The first byte of the memory in the emulator's own view, for copies.
    pub(super) fn view(&mut self) -> Result<*mut u8, CoreError> {
        let object = match &self.backing {
            Backing::Arena { arena, offset, written } => {
                written.store(true, std::sync::atomic::Ordering::Relaxed);
                return Ok(arena.ptr(*offset));
            }
            Backing::Own(o) => o,
        };
        if self.view.is_none() {
            self.view = Some(HostView::new(object, self.size as usize)?);
        }
        Ok(self.view.as_ref().expect("just made").ptr(0))
    }

    /// The file of its own (memory exported or imported), or
    /// [`CoreError::Os`] for memory still in the arena.
    pub(super) fn own_object(&self) -> Result<&Arc<Object>, CoreError> {
        self.backing.own().ok_or_else(|| CoreError::Os(format!("memory of {} bytes has no file of its own", self.size)))
    }
}

pub(super) fn insert(t: &mut Tables, p: Physical) -> HandleId {
    let id = HandleId(t.next_handle);
    t.next_handle += 1;
    t.handles.insert(id, p);
    id
}

/// Drops a handle and everything it holds: its charge, or its hold on a registry entry.
pub(super) fn destroy(t: &mut Tables, reg: &Registry, id: HandleId) {
    let Some(p) = t.handles.remove(&id) else { return };
    if let Some(s) = &p.spare {
        s.bury();
    }
    // A handle is listed under its own key only: exported ones in `exports`,
    // imported ones under (key, importing device) in `imports`. Removing just
    // those keeps a free O(1); scanning both maps made it O(handles), and
    // freeing n exported handles O(n²).
    if let Some(key) = p.key() {
        if t.exports.get(&key) == Some(&id) {
            t.exports.remove(&key);
        }
        if t.imports.get(&(key, p.owner)) == Some(&id) {
            t.imports.remove(&(key, p.owner));
        }
    }
    drop(p.view);
    if let Backing::Arena { arena, offset, written } = &p.backing {
        let _ = t.arena.give_back(arena, *offset, written.load(std::sync::atomic::Ordering::Relaxed));
    }
    match (&p.entry, p.home) {
        (Some(header), _) => {
            super::observe::share(super::ShareOp::Release, header.key, header.data_len, header.place, None);
            // Other handles of repeated fd imports may share this hold: only
            // the last one gives it up (and drops the file's record).
            if let Backing::Own(object) = p.backing
                && let Ok(object) = Arc::try_unwrap(object)
            {
                if let Some(file) = p.file {
                    t.fd_imports.remove(&file);
                }
                let _ = reg.release(object, header);
            }
        }
        (None, _) if p.charged => {
            let _ = reg.uncharge(p.home, p.size);
        }
        (None, _) => {}
    }
}

/// Drops one reference; the memory goes when none is left.
pub(super) fn unref(t: &mut Tables, reg: &Registry, id: HandleId) {
    if t.handles.get_mut(&id).is_some_and(drop_ref) {
        destroy(t, reg, id);
    }
}

/// Drops one reference of `p`: true when none is left (the handle goes).
fn drop_ref(p: &mut Physical) -> bool {
    let spare = p.spare.as_deref();
    // A reference a quick import took goes first (they are all alike).
    if spare.is_some_and(Spare::give) {
        return false;
    }
    p.refs = p.refs.saturating_sub(1);
    if p.refs > 0 {
        return false;
    }
    loop {
        match spare {
            None => return true,
            Some(s) if s.kill() => return true,
            // A quick import took one meanwhile: it becomes `refs`' last.
            Some(s) if s.give() => {
                p.refs = 1;
                return false;
            }
            Some(_) => {}
        }
    }
}

impl Emulator {
    /// Creates `size` bytes of physical memory at `place`, belonging to `owner`.
    pub fn create(&self, place: Place, size: u64, granule: u64, props: [u64; 4]) -> Result<HandleId, CoreError> {
        self.create_for(place, size, granule, props, None)
    }

    /// As [`Emulator::create`], for memory that will be mapped at `va`
    /// (its arena range follows the address: see `backing.rs`).
    pub(super) fn create_for(
        &self,
        place: Place,
        size: u64,
        granule: u64,
        props: [u64; 4],
        va: Option<usize>,
    ) -> Result<HandleId, CoreError> {
        if size == 0 || size % granule != 0 {
            return Err(CoreError::SizeNotAligned { size, granule });
        }
        // Device and host memory alike count against a capacity: host
        // memory without a limit would let 2^62 bytes succeed and the first
        // write raise SIGBUS.
        let home = self.physical_place(place);
        self.registry.charge(home, size)?.map_err(|f| CoreError::OutOfMemory {
            place,
            requested: f.requested,
            used: f.used,
            capacity: f.capacity,
        })?;
        let mut t = self.lock();
        let backing = match t.arena.take(&self.registry, size, va) {
            Ok(Some(b)) => Ok(b),
            // No room in the arena: a file of its own.
            Ok(None) => self.registry.create_object(size).map(|o| Backing::Own(Arc::new(o))),
            Err(e) => Err(e),
        };
        let backing = match backing {
            Ok(b) => b,
            Err(e) => {
                let _ = self.registry.uncharge(home, size);
                return Err(e.into());
            }
        };
        let p = Physical {
            backing,
            file: None,
            size,
            place,
            home,
            owner: place,
            granule,
            props,
            refs: 1,
            spare: None,
            map_refs: 0,
            retains: 0,
            entry: None,
            trust_index: None,
            imported: false,
            import_kind: None,
            charged: true,
            view: None,
            history: None,
            created_by: super::thread::current_call(),
        };
        Ok(insert(&mut t, p))
    }

    /// Whether `id` is a live handle of this process.
    pub fn handle_exists(&self, id: HandleId) -> bool {
        self.lock().handles.contains_key(&id)
    }

    /// Drops one reference that is not a mapping's (a free, a release).
    pub fn free(&self, id: HandleId) -> Result<(), CoreError> {
        // A reference a quick import took: the handle lives, and holds more
        // than its mappings' references.
        if self.import_cache.free(id) {
            return Ok(());
        }
        let mut t = self.lock();
        let Some(p) = t.handles.get(&id) else { return Err(CoreError::UnknownHandle(id.0)) };
        if p.total_refs() <= p.map_refs {
            return Err(CoreError::OnlyMappingRefs(id.0));
        }
        unref(&mut t, &self.registry, id);
        Ok(())
    }

    /// An imported handle (`p`, as made from its entry's header) with the
    /// place of its memory as this process numbers devices.
    pub(super) fn localized(&self, mut p: Physical) -> Physical {
        p.place = self.local_place(p.home, p.owner);
        p
    }

    /// What a handle is: (size, place, owner, granule, props, imported).
    pub fn describe(&self, id: HandleId) -> Result<HandleInfo, CoreError> {
        let t = self.lock();
        let p = t.handles.get(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        Ok(HandleInfo {
            size: p.size,
            place: p.place,
            home: p.home,
            owner: p.owner,
            granule: p.granule,
            props: p.props,
            imported: p.imported,
            import_kind: p.import_kind,
            refs: p.total_refs(),
            key: p.key(),
        })
    }
}

/// A handle's properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleInfo {
    /// Bytes.
    pub size: u64,
    /// Where the memory lives, as this process numbers devices.
    pub place: Place,
    /// Where the memory lives on the machine (physical device numbers).
    pub home: Place,
    /// The device the handle belongs to.
    pub owner: Place,
    /// Map alignment.
    pub granule: u64,
    /// Dialect-defined properties.
    pub props: [u64; 4],
    /// Imported from another process (or from this one onto another device).
    pub imported: bool,
    /// For an fd import: the handle type the dialect passed with it.
    pub import_kind: Option<i32>,
    /// References.
    pub refs: u32,
    /// Registry key, if shared.
    pub key: Option<u64>,
}
