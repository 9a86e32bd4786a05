//! Where a handle's memory lives: a range of the process's arena (memory
//! not shared yet: no descriptor of its own, see `os/arena.rs`), or a file
//! of its own (memory exported or imported: a registry entry, held by its
//! descriptor's lock).
//!
//! Offsets in the arena: an allocation placed at a device address (a plain
//! allocation: `hipMalloc`, `cuMemAlloc`, `aclrtMalloc`) takes the address's
//! distance from the start of the device window, so that neighbouring
//! allocations are neighbours in the file too and their mappings merge into
//! one; other memory (a physical handle made before it is mapped) takes a
//! range after the window's span, reused by size once freed. The first
//! export moves the memory into a file of its own (`Emulator::own_file`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::os::arena::Arena;
use crate::os::object::Object;
use crate::registry::Registry;

use super::space::DEVICE_WINDOW;

/// Bytes of the arena's first part: one offset for each device address.
const WINDOW_SPAN: u64 = (DEVICE_WINDOW.0.end - DEVICE_WINDOW.0.start) as u64;
/// Bytes of the arena after it, for memory made before it has an address
/// (4 TiB: the whole arena, 12 TiB, stays below ext4's largest file, 16 TiB).
const REST_SPAN: u64 = 4 << 40;

/// A handle's memory.
#[derive(Debug)]
pub(super) enum Backing {
    /// `len` bytes of the arena from `offset`. `written` is false until a
    /// pointer into the range or a mapping of it is given out: until then
    /// the range is all holes (a range is taken only once its pages were
    /// given back, or never used), so it needs no copy at an export and no
    /// punch at the free (two system calls fewer each).
    Arena { arena: Arc<Arena>, offset: u64, written: AtomicBool },
    /// A file of its own (shared with the handles of repeated fd imports).
    Own(Arc<Object>),
}

impl Backing {
    /// The file and the offset of the memory in it, for a mapping (which
    /// may write the memory from then on).
    pub(super) fn file(&self) -> (&Object, u64) {
        match self {
            Backing::Arena { arena, offset, written } => {
                written.store(true, Ordering::Relaxed);
                (arena.object(), *offset)
            }
            Backing::Own(o) => (o, 0),
        }
    }

    /// The file of its own, if it has one.
    pub(super) fn own(&self) -> Option<&Arc<Object>> {
        match self {
            Backing::Own(o) => Some(o),
            Backing::Arena { .. } => None,
        }
    }
}

/// The process's arena and which of its ranges are taken.
#[derive(Debug, Default)]
pub(super) struct ArenaSpace {
    /// Made at the first allocation.
    arena: Option<Arc<Arena>>,
    /// Taken ranges: offset → bytes.
    live: BTreeMap<u64, u64>,
    /// The first offset of the second part never taken yet.
    next: u64,
    /// Freed ranges of the second part, by size.
    spare: BTreeMap<u64, Vec<u64>>,
}

impl ArenaSpace {
    /// `len` bytes of the arena: at `hint` (an address in the device
    /// window) when that range is free, else in the second part. `None`
    /// when the arena has no room (the caller makes a file of its own).
    pub(super) fn take(&mut self, reg: &Registry, len: u64, hint: Option<usize>) -> std::io::Result<Option<Backing>> {
        let arena = match &self.arena {
            Some(a) => Arc::clone(a),
            None => {
                let a = Arc::new(reg.create_arena(WINDOW_SPAN + REST_SPAN)?);
                self.arena = Some(Arc::clone(&a));
                a
            }
        };
        let at_hint = hint
            .filter(|&va| DEVICE_WINDOW.0.contains(&va))
            .map(|va| (va - DEVICE_WINDOW.0.start) as u64)
            .filter(|&off| off.checked_add(len).is_some_and(|end| end <= WINDOW_SPAN) && self.is_free(off, len));
        let offset = match at_hint {
            Some(off) => off,
            None => match self.spare.get_mut(&len).and_then(Vec::pop) {
                Some(off) => off,
                None if self.next + len <= REST_SPAN => {
                    self.next += len;
                    WINDOW_SPAN + self.next - len
                }
                None => return Ok(None),
            },
        };
        if self.spare.get(&len).is_some_and(Vec::is_empty) {
            self.spare.remove(&len);
        }
        self.live.insert(offset, len);
        Ok(Some(Backing::Arena { arena, offset, written: AtomicBool::new(false) }))
    }

    fn is_free(&self, off: u64, len: u64) -> bool {
        let before = self.live.range(..off + len).next_back();
        before.is_none_or(|(&s, &n)| s + n <= off)
    }

    /// Gives back the range at `offset`: its pages go (it reads as zeros
    /// when taken again). A range never `written` has no pages: nothing to punch.
    pub(super) fn give_back(&mut self, arena: &Arena, offset: u64, written: bool) -> std::io::Result<()> {
        let Some(len) = self.live.remove(&offset) else { return Ok(()) };
        if written && let Err(e) = arena.punch(offset, len) {
            // Its pages stay: the range stays taken, never handed out again
            // with another allocation's bytes in it.
            self.live.insert(offset, len);
            return Err(e);
        }
        if offset >= WINDOW_SPAN {
            self.spare.entry(len).or_default().push(offset);
        }
        Ok(())
    }

    /// The arena's file, if it was made: its (device, inode).
    pub(super) fn file_id(&self) -> Option<(u64, u64)> {
        let st = rustix::fs::fstat(self.arena.as_ref()?.object().fd()).ok()?;
        Some((st.st_dev, st.st_ino))
    }
}

impl super::Emulator {
    /// The (device, inode) of this process's arena, once made: the one file
    /// of the root this process keeps open for the life of the emulator,
    /// whatever it allocates (audits of open descriptors leave it out).
    pub fn arena_file(&self) -> Option<(u64, u64)> {
        self.lock().arena.file_id()
    }
}

/// Gives the memory of handle `id` a file of its own, for its export: a new
/// file with the memory's bytes (its written pages), mapped in place of the
/// arena at every address this process maps the handle at (with the same
/// protection, `writable_by_host`), then the arena's range given back.
/// Nothing to do for memory with a file already.
///
/// The emulator's copies are excluded meanwhile (the caller holds the
/// tables' lock). A store the program makes through a device address of
/// this very allocation, from another thread, between the copy and the new
/// mapping would be lost: the move is one call per mapping after a copy.
///
/// # Errors
/// Those of making, filling and mapping the file; the memory is then left
/// in the arena, unchanged, with its mappings.
pub(super) fn own_file(
    t: &mut super::Tables,
    reg: &Registry,
    id: super::HandleId,
    writable_by_host: bool,
) -> Result<(), super::CoreError> {
    let p = t.handles.get(&id).ok_or(super::CoreError::UnknownHandle(id.0))?;
    let (arena, offset, written) = match &p.backing {
        Backing::Own(_) => return Ok(()),
        Backing::Arena { arena, offset, written } => (Arc::clone(arena), *offset, written.load(Ordering::Relaxed)),
    };
    let size = p.size;
    let object = reg.create_object(size)?;
    // Memory never mapped nor copied to is all holes: the new file, sparse,
    // holds the same (no `lseek(SEEK_DATA)`, no copy).
    if written {
        arena.copy_to(offset, size, &object)?;
    }
    let maps: Vec<(usize, usize, usize)> = if p.map_refs == 0 {
        Vec::new()
    } else {
        t.maps.iter().filter(|(_, m)| m.handle == id).map(|(&va, m)| (va, m.len, m.rsv)).collect()
    };
    for (i, &(va, len, rsv)) in maps.iter().enumerate() {
        let Some(r) = t.reservations.get(&rsv) else { continue };
        if let Err(e) = r.range.map(va, len, &object, 0, writable_by_host) {
            // The arena's pages back where they were moved from.
            for &(va, len, rsv) in &maps[..i] {
                if let Some(r) = t.reservations.get(&rsv) {
                    let _ = r.range.map(va, len, arena.object(), offset, writable_by_host);
                }
            }
            return Err(e.into());
        }
    }
    let p = t.handles.get_mut(&id).expect("found above");
    p.backing = Backing::Own(Arc::new(object));
    let _ = t.arena.give_back(&arena, offset, written);
    Ok(())
}

#[cfg(test)]
#[allow(unsafe_code)] // reads and writes device memory through its mappings
mod tests {
    use crate::config::Config;
    use crate::core::{DEVICE_WINDOW, Emulator};
    use crate::registry::{Place, Trust};

    const G: u64 = 2 << 20;

    fn read(e: &Emulator, va: usize, n: usize) -> Vec<u8> {
        let mut out = vec![0u8; n];
        // SAFETY: `out` is n bytes long.
        unsafe { e.copy(out.as_mut_ptr() as usize, va, n) }.expect("device to host");
        out
    }

    fn write(e: &Emulator, va: usize, data: &[u8]) {
        // SAFETY: `data` is as long as the copy.
        unsafe { e.copy(va, data.as_ptr() as usize, data.len()) }.expect("host to device");
    }

    /// Plain allocations are arena ranges that follow their addresses; an
    /// export moves the memory into a file of its own, bytes included, and
    /// the exporter's mapping then aliases every import of it; the arena's
    /// range is given back (it reads as zeros when taken again).
    #[test]
    fn an_export_moves_the_memory_out_of_the_arena_with_its_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = Emulator::new(Config::new(dir.path()).with_devices(2)).expect("emulator");
        let va = e.alloc_plain(Place::Device(0), 2 * G, G, [0; 4], &DEVICE_WINDOW).expect("alloc");
        let h = e.mapping(va).expect("mapped").1.handle;
        let data: Vec<u8> = (0..G as usize).map(|i| (i % 251) as u8).collect();
        // Only the second granule is written: the first stays a hole.
        write(&e, va + G as usize, &data);
        {
            let t = e.lock();
            match &t.handles[&h].backing {
                super::Backing::Arena { offset, .. } => {
                    assert_eq!(*offset, (va - DEVICE_WINDOW.0.start) as u64, "the offset follows the address")
                }
                super::Backing::Own(_) => panic!("a plain allocation starts in the arena"),
            }
        }
        let key = e.export(h, Trust::AnyProcess).expect("export");
        assert!(e.lock().handles[&h].backing.own().is_some(), "a file of its own");
        assert_eq!(e.lock().arena.live.len(), 0, "the arena's range given back");
        assert_eq!(read(&e, va, G as usize), vec![0u8; G as usize], "the hole stayed zeros");
        assert!(read(&e, va + G as usize, G as usize) == data, "the bytes moved with the memory");
        let imp = e.import(key, Place::Device(1)).expect("import onto the other device");
        let iva = e.map_anywhere(imp, G as usize, &DEVICE_WINDOW).expect("map the import");
        assert!(read(&e, iva + G as usize, G as usize) == data, "the import sees them");
        write(&e, va, &[7u8; 4096]);
        assert_eq!(read(&e, iva, 4096), vec![7u8; 4096], "the exporter's mapping aliases the import");
        e.unmap(iva).expect("unmap the import");
        e.release(iva).expect("release");
        e.free_plain(va).expect("free");
        // The same address again, by first fit: a range of the arena, zeroed.
        // The tests of this binary share one address space, and another
        // test's emulator may take the address between the free and this
        // allocation (seen once in CI); the range then is another, and
        // zeroed as well.
        let again = e.alloc_plain(Place::Device(0), 2 * G, G, [0; 4], &DEVICE_WINDOW).expect("alloc");
        if again != va {
            eprintln!("the address {va:#x} was taken by another test meanwhile; got {again:#x}");
        }
        assert_eq!(read(&e, again, 2 * G as usize), vec![0u8; 2 * G as usize], "zeros");
        e.free_plain(again).expect("free");
        assert_eq!(e.lock().arena.live.len(), 0);
        assert_eq!(e.registry().usage().used[0], 0, "capacity given back");
    }
    fn written(e: &Emulator, h: crate::core::HandleId) -> Option<bool> {
        match &e.lock().handles[&h].backing {
            super::Backing::Arena { written, .. } => Some(written.load(std::sync::atomic::Ordering::Relaxed)),
            super::Backing::Own(_) => None,
        }
    }

    /// Memory never mapped nor copied to is exported and freed without
    /// touching the arena's range (it is all holes); once mapped, a range
    /// is punched at its free, so the next handle given it reads zeros.
    #[test]
    fn an_unwritten_range_needs_no_copy_and_no_punch() {
        let dir = tempfile::tempdir().expect("tempdir");
        let e = Emulator::new(Config::new(dir.path()).with_devices(2)).expect("emulator");
        // Written through a mapping, freed: its range is punched.
        let h = e.create(Place::Device(0), G, G, [0; 4]).expect("create");
        assert_eq!(written(&e, h), Some(false), "a fresh handle");
        let va = e.map_anywhere(h, G as usize, &DEVICE_WINDOW).expect("map");
        assert_eq!(written(&e, h), Some(true), "mapped: may be written");
        write(&e, va, &[9u8; 4096]);
        e.unmap(va).expect("unmap: the mapping held the handle's last reference");
        e.release(va).expect("release");
        // The same range again (reused by size), never written: zeros.
        let h = e.create(Place::Device(0), G, G, [0; 4]).expect("create");
        assert_eq!(written(&e, h), Some(false));
        e.free(h).expect("free, no punch");
        let h = e.create(Place::Device(0), G, G, [0; 4]).expect("create");
        let key = e.export(h, Trust::AnyProcess).expect("export without a copy");
        assert_eq!(written(&e, h), None, "a file of its own");
        assert_eq!(e.lock().arena.live.len(), 0, "the arena's range given back");
        let imp = e.import(key, Place::Device(1)).expect("import");
        let iva = e.map_anywhere(imp, G as usize, &DEVICE_WINDOW).expect("map the import");
        assert_eq!(read(&e, iva, G as usize), vec![0u8; G as usize], "the exported memory reads zeros");
        e.unmap(iva).expect("unmap");
        e.release(iva).expect("release");
        e.free(h).expect("free the export");
        assert_eq!(e.registry().usage().used[0], 0, "capacity given back");
    }
}
