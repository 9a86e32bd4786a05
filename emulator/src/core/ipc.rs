//! Sharing plain allocations by address, as the IPC handles of HIP and CUDA
//! do: the exporter names any address inside an allocation, the importer maps
//! the whole allocation once and counts its opens, and a close may name any
//! address inside the opened range.

use std::collections::btree_map::Entry;

use crate::os::object::Object;
use crate::os::proc::ProcessId;
use crate::registry::{FLAG_WITHDRAWN, Header, Place, Trust};

use super::space::{MapSize, Releasable, natural_align, release};
use super::{CoreError, Emulator, HandleId, Tables, Window};

/// The plain allocation that contains an exported address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlainExport {
    /// The registry key it is shared under.
    pub key: u64,
    /// Its first address in this process.
    pub base: usize,
    /// Bytes of its reservation (the physical size).
    pub len: usize,
    /// The physical handle behind it.
    pub handle: HandleId,
    /// The dialect-defined properties it was allocated with.
    pub props: [u64; 4],
}

/// An allocation of another process that this process opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opened {
    /// Its registry key.
    pub key: u64,
    /// The device it was opened onto.
    pub device: Place,
    /// Bytes mapped (the physical size).
    pub len: usize,
    /// Opens not yet matched by a close.
    pub refs: u32,
    /// The properties the exporter allocated it with.
    pub props: [u64; 4],
    /// The exporting process, as the registry recorded it.
    pub exporter: ProcessId,
}

/// The opened allocation containing `va`, with its start.
fn opened_at(t: &Tables, va: usize) -> Option<(usize, Opened)> {
    let (&start, o) = t.opened.range(..=va).next_back()?;
    (va < start + o.len).then_some((start, *o))
}

impl Emulator {
    /// Exports the plain allocation that contains `va` (any address inside
    /// it) to the registry, with no trustlist, unless it was exported before.
    ///
    /// # Errors
    /// [`CoreError::NotMapped`] when `va` is not inside a plain allocation.
    pub fn export_plain(&self, va: usize) -> Result<PlainExport, CoreError> {
        let (base, len) = self.plain_at(va).ok_or(CoreError::NotMapped(va))?;
        let (_, m) = self.mapping(base).ok_or(CoreError::NotMapped(va))?;
        let info = self.describe(m.handle)?;
        let key = match info.key {
            Some(k) => k,
            None => self.export(m.handle, Trust::AnyProcess)?,
        };
        Ok(PlainExport { key, base, len, handle: m.handle, props: info.props })
    }

    /// Marks the registry entry of the exported handle `id` as withdrawn: the
    /// processes that hold it keep it, and no new import or open finds it
    /// (an exporter freed memory that others still have open).
    pub fn withdraw(&self, id: HandleId) -> Result<(), CoreError> {
        self.set_withdrawn(id, true)
    }

    /// Marks the registry entry of the exported handle `id` as withdrawn
    /// (`on`) or live again (an ACL block exported under a new key after its
    /// earlier keys were destroyed).
    pub fn set_withdrawn(&self, id: HandleId, on: bool) -> Result<(), CoreError> {
        let mut t = self.lock();
        let p = t.handles.get_mut(&id).ok_or(CoreError::UnknownHandle(id.0))?;
        if p.imported {
            return Ok(());
        }
        let Some(object) = p.backing.own() else { return Ok(()) };
        if let Some(header) = p.entry.as_mut() {
            let flags = if on { header.flags | FLAG_WITHDRAWN } else { header.flags & !FLAG_WITHDRAWN };
            if flags != header.flags {
                header.flags = flags;
                header.store(object)?;
            }
        }
        Ok(())
    }

    /// The header of the entry `key` if it exists and was not withdrawn (one `open`, no hold taken).
    pub fn live_header(&self, key: u64) -> Option<Header> {
        let object = Object::open(&self.registry.entry_path(key)).ok()?;
        match Header::read(&object, None) {
            Ok(Some(h)) if h.key == key && h.flags & FLAG_WITHDRAWN == 0 => Some(h),
            _ => None,
        }
    }

    /// Whether the entry `key` exists and was not withdrawn (one `open`, no hold taken).
    pub fn share_live(&self, key: u64) -> bool {
        self.live_header(key).is_some()
    }

    /// The handle this process exported as `key`, with the entry's header
    /// as this process last wrote it (trust, trustlist length).
    pub fn exported_as(&self, key: u64) -> Option<(HandleId, Header)> {
        let t = self.lock();
        let id = *t.exports.get(&key)?;
        let header = t.handles.get(&id)?.entry.clone()?;
        Some((id, header))
    }

    /// Opens the allocation exported as `key` by the process `exporter`
    /// (the pid a handle says made it) onto `device`: the first open
    /// imports it and maps all of it into a reservation of its own in
    /// `window`; later opens of the same key onto the same device return the
    /// same address and count one more open. Returns the address and the
    /// allocation's record.
    ///
    /// The exporter is the one the registry recorded for `key`, never the
    /// one a handle names: a handle whose pid is not the recorded one names
    /// nothing.
    ///
    /// # Errors
    /// [`CoreError::UnknownShareable`] for a key that names no live (or a
    /// withdrawn) entry, or one another process exported, the import rules
    /// of [`Emulator::import`], and the errors of reserving and mapping.
    pub fn open_plain(
        &self,
        key: u64,
        exporter: i32,
        device: Place,
        window: &Window,
    ) -> Result<(usize, Opened), CoreError> {
        let made_by = |p: ProcessId| i32::try_from(p.pid) == Ok(exporter);
        if let Some(hit) = self.reopen(key, device, |o| made_by(o.exporter)) {
            return Ok(hit);
        }
        let header = self.live_header(key).filter(|h| made_by(h.exporter));
        let Some(header) = header else { return Err(CoreError::UnknownShareable(key)) };
        let id = self.import(key, device)?;
        self.open_imported(key, device, id, header.exporter, window)
    }

    /// Opens the allocation exported as `key` onto `device` as ACL's IPC by
    /// key does: as [`Emulator::open_plain`], except that the process that
    /// exported `key` may open it too (onto any device), when the export
    /// admits any process: its own handle is mapped a second time.
    ///
    /// # Errors
    /// [`CoreError::UnknownShareable`] for a key that names no live entry,
    /// [`CoreError::NotTrusted`] when the exporter opens a key whose
    /// trustlist is on (it is never on its own list), the import rules of
    /// [`Emulator::import`], and the errors of reserving and mapping.
    pub fn open_key(&self, key: u64, device: Place, window: &Window) -> Result<(usize, Opened), CoreError> {
        if let Some(hit) = self.reopen(key, device, |_| true) {
            return Ok(hit);
        }
        let header = self.live_header(key).ok_or(CoreError::UnknownShareable(key))?;
        let me = self.registry.me();
        if header.exporter != me {
            let id = self.import(key, device)?;
            return self.open_imported(key, device, id, header.exporter, window);
        }
        if header.trust == Trust::Trustlist {
            return Err(CoreError::NotTrusted { key, pid: me.pid, stale: false });
        }
        self.open_own(key, device, window)
    }

    /// Opens this process's own export `key` onto `device`: its handle
    /// mapped a second time, at an address of its own (ACL's IPC by key, a
    /// HIP pool pointer imported by its exporter). A later open of the same
    /// key onto the same device returns that address and counts one more.
    ///
    /// # Errors
    /// [`CoreError::UnknownShareable`] for a key this process did not
    /// export, and the errors of reserving and mapping.
    pub fn open_own(&self, key: u64, device: Place, window: &Window) -> Result<(usize, Opened), CoreError> {
        if let Some(hit) = self.reopen(key, device, |_| true) {
            return Ok(hit);
        }
        let me = self.registry.me();
        let (id, _) = self.exported_as(key).ok_or(CoreError::UnknownShareable(key))?;
        let info = self.describe(id)?;
        let len = info.size as usize;
        let va = self.reserve(len, natural_align(len, info.granule as usize), None, window)?;
        if let Err(e) = self.map(va, len, id, MapSize::Exact) {
            let _ = self.release(va);
            return Err(e);
        }
        let opened = Opened { key, device, len, refs: 1, props: info.props, exporter: me };
        self.lock().opened.insert(va, opened);
        Ok((va, opened))
    }

    /// A later open of `key` onto `device` in this process: the same address,
    /// one more open (when `admits` the record).
    fn reopen(&self, key: u64, device: Place, admits: impl Fn(&Opened) -> bool) -> Option<(usize, Opened)> {
        let mut t = self.lock();
        let (&va, o) = t.opened.iter_mut().find(|(_, o)| o.key == key && o.device == device)?;
        if !admits(o) {
            return None;
        }
        o.refs += 1;
        Some((va, *o))
    }

    /// Maps the handle `id`, just imported from `key`, into a reservation of
    /// its own and records the open.
    fn open_imported(
        &self,
        key: u64,
        device: Place,
        id: HandleId,
        exporter: ProcessId,
        window: &Window,
    ) -> Result<(usize, Opened), CoreError> {
        let info = match self.describe(id) {
            Ok(i) => i,
            Err(e) => {
                let _ = self.free(id);
                return Err(e);
            }
        };
        let len = info.size as usize;
        let va = self.map_anywhere(id, 1, window)?;
        let opened = Opened { key, device, len, refs: 1, props: info.props, exporter };
        self.lock().opened.insert(va, opened);
        Ok((va, opened))
    }

    /// The opened allocation that contains `va`: its start and record.
    pub fn opened_at(&self, va: usize) -> Option<(usize, Opened)> {
        opened_at(&self.lock(), va)
    }

    /// Closes one open of the allocation containing `va`; the last close
    /// unmaps it. Returns the opens left.
    ///
    /// # Errors
    /// [`CoreError::NotMapped`] when `va` is not inside an opened allocation.
    pub fn close_plain(&self, va: usize) -> Result<u32, CoreError> {
        let mut t = self.lock();
        let (start, _) = opened_at(&t, va).ok_or(CoreError::NotMapped(va))?;
        let Entry::Occupied(mut e) = t.opened.entry(start) else { return Err(CoreError::NotMapped(va)) };
        e.get_mut().refs -= 1;
        let left = e.get().refs;
        if left == 0 {
            e.remove();
            if t.reservations.contains_key(&start) {
                release(&mut t, &self.registry, start, Releasable::Reserved)?;
            }
        }
        Ok(left)
    }

    /// Drops every open of another process's allocation onto `device`,
    /// unmapping each (a context or device reset: CUDA's primary context
    /// released to zero). Returns how many allocations were closed.
    pub fn close_all_opened(&self, device: Place) -> usize {
        let mut t = self.lock();
        let starts: Vec<usize> = t.opened.iter().filter(|(_, o)| o.device == device).map(|(&va, _)| va).collect();
        for &start in &starts {
            t.opened.remove(&start);
            if t.reservations.contains_key(&start) {
                let _ = release(&mut t, &self.registry, start, Releasable::Reserved);
            }
        }
        starts.len()
    }
}
