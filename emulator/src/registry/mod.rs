//! The daemonless cross-process registry of one root: device capacity shared
//! by all processes, exported entries, and collection of what dead processes
//! left behind.

mod cells;
mod entry;
mod gc;
mod list;
mod root;
mod state;

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use cells::{CELL_KEY_BIT, CELL_TRUST_CAP, CellHeader, CellKind, HeldCell};
pub use entry::{
    FLAG_TRUST_INLINE, FLAG_WITHDRAWN, Grant, HEADER_XATTR, HISTORY_LEN, Header, INLINE_CAP, META_LEN, Place,
    TRUST_CAP, Trust, TrustIndex,
};
pub use gc::GcReport;
pub use list::{CellInfo, EntryInfo, Listing, ProcessInfo, flock_holders};
pub use root::RootError;
pub use state::{MAX_SLOTS, Mismatch, Usage};

use crate::config::Config;
use crate::os::lock;
use crate::os::object::Object;
use crate::os::proc::{self, ProcessId};
use gc::row;
use state::State;

/// A registry could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The root directory is unusable.
    #[error(transparent)]
    Root(#[from] RootError),
    /// The root holds other device settings.
    #[error("{root}: {source}")]
    Mismatch {
        /// The root.
        root: PathBuf,
        /// What differs.
        source: Mismatch,
    },
    /// No program has used the root yet: the directory, or its state file,
    /// does not exist (only [`Registry::open_existing`] says this).
    #[error("{0}: no emulator state here yet (no program has used it)")]
    NoState(PathBuf),
    /// The state file could not be opened.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
}

/// Why an exported entry could not be found or held.
#[derive(Debug, thiserror::Error)]
pub enum LookupError {
    /// No entry has this key (never exported, or every holder released it).
    #[error("no exported memory has shareable handle {0:#x}")]
    Unknown(u64),
    /// The entry is being torn down by its last holder.
    #[error("shareable handle {0:#x} is being released")]
    Releasing(u64),
    /// The file system failed.
    #[error("shareable handle {key:#x}: {source}")]
    Io {
        /// The key.
        key: u64,
        /// The error.
        source: io::Error,
    },
}

/// The capacity of a device, or of host memory, is used up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{place}: {requested} bytes requested, {used} of {capacity} in use")]
pub struct Full {
    /// Where.
    pub place: Place,
    /// Bytes asked for.
    pub requested: u64,
    /// Bytes in use.
    pub used: u64,
    /// Capacity.
    pub capacity: u64,
}

/// An entry this process holds (a shared lock on its own open file description).
#[derive(Debug)]
pub struct Held {
    /// The object, with this process's hold on it.
    pub object: Object,
    /// Its metadata.
    pub header: Header,
    /// Its trustlist, when it was read with the header (a short list lies
    /// in the header's attribute: `entry.rs`, [`entry::FLAG_TRUST_INLINE`]).
    pub list: Option<Vec<Grant>>,
}

impl Held {
    /// The entry's trustlist: the one read with the header, or the tail's.
    pub fn trustlist(&self) -> io::Result<Vec<Grant>> {
        match &self.list {
            Some(list) => Ok(list.iter().copied().filter(|g| g.pid != 0).collect()),
            None => self.header.trustlist(&self.object),
        }
    }
}

/// A point inside a registry change where a test may stop this process:
/// `VMMKIT_PAUSE_AT=<point>` (`charge`, `export`, `remove`) makes the process
/// stop itself there (`SIGSTOP`, as Ctrl-Z or a debugger would), so that a
/// test can show that nobody else waits for it.
fn pause_point(point: &str) {
    static AT: OnceLock<Option<String>> = OnceLock::new();
    if AT.get_or_init(|| std::env::var("VMMKIT_PAUSE_AT").ok()).as_deref() == Some(point) {
        let _ = rustix::process::kill_process(rustix::process::getpid(), rustix::process::Signal::STOP);
    }
}

/// The registry of one root.
#[derive(Debug)]
pub struct Registry {
    root: PathBuf,
    shared: PathBuf,
    /// `shared/`, open (`O_PATH`): entries opened by name from it.
    shared_dir: OwnedFd,
    state: State,
    me: ProcessId,
    /// A time (ns after boot) at which `me` was known to be running: taken
    /// right after it was looked up, before this registry could claim a
    /// slot ([`proc::granted_to`]).
    seen_ns: u64,
    /// Files made in the root get exactly the mode asked for, whatever the
    /// umask ([`root::exact_modes`]): no `fchmod` per object.
    exact_modes: bool,
}

impl Registry {
    /// Opens the registry of `config.root`, creating it if needed.
    pub fn open(config: &Config) -> Result<Self, OpenError> {
        let (me, seen_ns) = (ProcessId::current(), proc::boot_time_ns());
        root::prepare(&config.root)?;
        let io = |source| OpenError::Io { path: config.root.join(root::STATE_FILE), source };
        let shared = config.root.join(root::SHARED_DIR);
        let figures = (config.devices, config.device_memory, config.host_memory);
        let state = State::open(&config.root, figures, || gc::truth(&shared))
            .map_err(io)?
            .map_err(|source| OpenError::Mismatch { root: config.root.clone(), source })?;
        let exact_modes = root::exact_modes(&config.root);
        let shared_dir = open_dir(&shared).map_err(|source| OpenError::Io { path: shared.clone(), source })?;
        Ok(Self { shared, shared_dir, root: config.root.clone(), state, me, seen_ns, exact_modes })
    }

    /// Opens an existing root as it is, with the device settings it was
    /// made with (for inspection: `vmmkit ls`, `vmmkit gc`, `vmmkit doctor`).
    /// A root that is missing, or holds no state file, is
    /// [`OpenError::NoState`] and is left as it is; a root that exists is
    /// checked (a directory, ours, private) before anything else.
    pub fn open_existing(root: &Path) -> Result<Self, OpenError> {
        let (me, seen_ns) = (ProcessId::current(), proc::boot_time_ns());
        let io = |source| OpenError::Io { path: root.join(root::STATE_FILE), source };
        match std::fs::symlink_metadata(root) {
            Ok(_) => root::check(root)?,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(OpenError::NoState(root.into())),
            Err(source) => return Err(OpenError::Io { path: root.into(), source }),
        }
        match std::fs::symlink_metadata(root.join(root::STATE_FILE)) {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(OpenError::NoState(root.into())),
            Err(e) => return Err(io(e)),
        }
        root::prepare(root)?;
        let state = State::open_existing(root).map_err(io)?;
        let shared = root.join(root::SHARED_DIR);
        let shared_dir = open_dir(&shared).map_err(|source| OpenError::Io { path: shared.clone(), source })?;
        Ok(Self {
            shared,
            shared_dir,
            root: root.to_path_buf(),
            state,
            me,
            seen_ns,
            exact_modes: root::exact_modes(root),
        })
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether entry headers can be extended attributes here (the root's
    /// file system has user attributes: `registry/entry.rs`): asked of
    /// `shared/` with a read, nothing written.
    pub fn header_attrs(&self) -> bool {
        let mut b = [0u8; 1];
        !matches!(
            rustix::fs::getxattr(&self.shared, entry::HEADER_XATTR, &mut b[..]),
            Err(rustix::io::Errno::OPNOTSUPP)
        )
    }

    /// The calling process, as the registry knows it.
    pub fn me(&self) -> ProcessId {
        self.me
    }

    /// A time (ns after boot) at which this process was known to be running:
    /// before it could have a slot in the root's state.
    pub fn seen_ns(&self) -> u64 {
        self.seen_ns
    }

    /// Capacity and use per device.
    pub fn usage(&self) -> Usage {
        self.state.usage()
    }

    /// The path of the entry `key`. Every u64 names a file inside the root.
    pub fn entry_path(&self, key: u64) -> PathBuf {
        self.shared.join(entry_name(key))
    }

    /// A new open file description of the entry `key`, which this process
    /// holds (so that it stays linked), for a holder of its own: opened by
    /// name in `shared/`, one name looked up.
    pub fn reopen_entry(&self, key: u64) -> io::Result<Object> {
        Object::open_in(self.shared_dir.as_fd(), &entry_name(key))
    }

    /// Charges `bytes` at `place` to this process. When they do not fit,
    /// collects what dead processes left and tries once more.
    pub fn charge(&self, place: Place, bytes: u64) -> io::Result<Result<(), Full>> {
        let full = |o: state::Over| Full { place, requested: bytes, used: o.used, capacity: o.capacity };
        if self.state.charge(row(place), bytes)?.is_ok() {
            return Ok(Ok(()));
        }
        self.gc()?;
        Ok(self.state.charge(row(place), bytes)?.map_err(full))
    }

    /// Gives back `bytes` at `place` charged to this process.
    pub fn uncharge(&self, place: Place, bytes: u64) -> io::Result<()> {
        self.state.uncharge(row(place), bytes)
    }

    /// A fresh key for memory at `place`: share id in bits 0–31, the place's
    /// device (or 64 + node for host memory) in bits 32–39 (acl.md §2.5).
    pub fn new_key(&self, place: Place) -> u64 {
        (place.key_device() << 32) | u64::from(self.state.next_share_id())
    }

    /// A new unnamed object for `data_len` bytes of memory, already as long
    /// as the entry it may become (the metadata tail, sparse, costs nothing
    /// until written): export then writes the header without resizing it,
    /// one system call fewer, in the `ftruncate` the allocation makes anyway.
    pub fn create_object(&self, data_len: u64) -> io::Result<Object> {
        self.with_room(|| Object::create(&self.root, Header::entry_len(data_len), !self.exact_modes))
    }

    /// Runs `make`, a creation in the root; when it fails for lack of inodes
    /// or space ([`out_of_room`]), collects what dead processes left (their
    /// entries and shared cells are files that take both) and runs it once
    /// more, as [`Registry::charge`] does when capacity runs short. The
    /// second failure is the one returned; so is the first when the
    /// collection itself fails.
    fn with_room<T>(&self, mut make: impl FnMut() -> io::Result<T>) -> io::Result<T> {
        match make() {
            Err(e) if out_of_room(&e) => match self.gc() {
                Ok(_) => make(),
                Err(_) => Err(e),
            },
            r => r,
        }
    }

    /// The process's arena: an unnamed sparse file of `len` bytes in the
    /// root, mapped whole (`os/arena.rs`); like every creation in the root,
    /// tried once more after a collection when the root is out of room.
    pub fn create_arena(&self, len: u64) -> io::Result<crate::os::arena::Arena> {
        self.with_room(|| crate::os::arena::Arena::create(&self.root, len, !self.exact_modes))
    }

    /// Exports `object` (made by [`Registry::create_object`] for
    /// `header.data_len` bytes) under `header.key`: writes its metadata, takes
    /// this process's hold, links it into the root, and moves its capacity
    /// charge from this process to the entry. A key already linked (share
    /// ids restart when `state` is lost) is replaced by a fresh one in `header`.
    pub fn export(&self, object: &Object, header: &mut Header) -> io::Result<()> {
        // An attribute that finds no room is tried again after a collection
        // before the header goes to the tail.
        header.store_or(object, || self.gc().is_ok())?;
        if !lock::try_shared(object)? {
            return Err(io::Error::other("a fresh object is locked by someone else"));
        }
        // The collection runs outside the change (it makes changes of its own).
        self.with_room(|| self.link_entry(object, header))?;
        self.state.uncharge(row(header.place), header.data_len)
    }

    /// Counts `object`'s entry and links it under `header.key` (or a fresh
    /// key when that one is taken); nothing counted when the link fails.
    fn link_entry(&self, object: &Object, header: &mut Header) -> io::Result<()> {
        let change = self.state.entry_change()?;
        // Counted before it is linked: a death in between over-counts (the
        // recount gives it back), never under-counts.
        self.state.entry_add(&change, row(header.place), header.data_len);
        pause_point("export");
        let mut tries = 0;
        let linked = loop {
            match object.link(&self.entry_path(header.key)) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 64 => {
                    tries += 1;
                    header.key = self.new_key(header.place);
                    if let Err(e) = header.store(object) {
                        break Err(e);
                    }
                }
                r => break r,
            }
        };
        if let Err(e) = linked {
            self.state.entry_sub(&change, row(header.place), header.data_len);
            return Err(e);
        }
        Ok(())
    }

    /// Finds the entry `key` and takes a hold on it.
    ///
    /// An entry that nobody holds was left by processes that all died (a
    /// live exporter or importer always holds its entry): it is collected
    /// here, as `gc` would, and the key is unknown, as on a device, where
    /// process exit releases the memory ([ACL-LIFE-003](vmmkit_sys::acl::rules::LIFE_003), [ACL-LIFE-004](vmmkit_sys::acl::rules::LIFE_004)).
    pub fn lookup(&self, key: u64) -> Result<Held, LookupError> {
        let io = |source| LookupError::Io { key, source };
        let path = self.entry_path(key);
        let object = self.open_entry(key)?;
        if lock::try_exclusive(&object).map_err(io)? {
            gc::remove_unheld(self, &object, &path).map_err(io)?;
            return Err(LookupError::Unknown(key));
        }
        Self::hold(object, key)
    }

    /// Opens the file of entry `key` (memory or shared cell); a missing one is unknown.
    fn open_entry(&self, key: u64) -> Result<Object, LookupError> {
        match Object::open(&self.entry_path(key)) {
            Ok(o) => Ok(o),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Err(LookupError::Unknown(key)),
            Err(source) => Err(LookupError::Io { key, source }),
        }
    }

    /// Takes a hold on an object received as a file descriptor (HIP, CUDA).
    pub fn hold_fd(&self, fd: std::os::fd::BorrowedFd<'_>) -> Result<Held, LookupError> {
        let object = Object::reopen(fd).map_err(|source| LookupError::Io { key: 0, source })?;
        Self::hold(object, 0)
    }

    fn hold(object: Object, key: u64) -> Result<Held, LookupError> {
        let io = |source| LookupError::Io { key, source };
        if !lock::try_shared(&object).map_err(io)? {
            return Err(LookupError::Releasing(key));
        }
        // The last holder may have removed it between our open and our lock.
        let (linked, len) = object.linked_len().map_err(io)?;
        if !linked {
            return Err(LookupError::Unknown(key));
        }
        match Header::read_with_list(&object, len, None).map_err(io)? {
            Some((header, list)) if key == 0 || header.key == key => Ok(Held { object, header, list }),
            _ => Err(LookupError::Unknown(key)),
        }
    }

    /// Gives up this process's hold on an entry (through `object`, which held
    /// it). The last holder removes the entry and gives its capacity back.
    pub fn release(&self, object: Object, header: &Header) -> io::Result<()> {
        if lock::try_exclusive(&object)? {
            self.remove(&object, header)?;
        }
        Ok(())
    }

    fn remove(&self, object: &Object, header: &Header) -> io::Result<()> {
        let change = self.state.entry_change()?;
        // Another releaser may have removed it already (it saw no holders
        // after we let ours go): only the one whose unlink works gives back.
        if !object.is_linked()? {
            return Ok(());
        }
        match std::fs::remove_file(self.entry_path(header.key)) {
            Ok(()) => {
                pause_point("remove");
                self.state.entry_sub(&change, row(header.place), header.data_len);
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Adds `pids` to the trustlist of an entry this process exported.
    /// `index` is the exporter's index of the list ([`TrustIndex`]).
    ///
    /// A pid of a process slot in the root's state is not looked up in
    /// `/proc` ([`proc::STAMP_REGISTERED`]): that process, if it still has
    /// the pid, was running before the slots were read, which is before the
    /// entry's time, taken after (its registry looked itself up before it
    /// could claim the slot, [`Registry::seen_ns`]).
    pub fn set_trusted(
        &self,
        object: &Object,
        header: &mut Header,
        index: &mut TrustIndex,
        pids: &[i32],
    ) -> io::Result<bool> {
        let stamps = proc::Stamps::for_pids(pids, self.state.registered_pids());
        header.add_trusted(object, index, pids, proc::boot_time_ns(), |pid| stamps.get(pid))
    }

    /// Collects what dead processes left: their slots' charges, and entries
    /// that no live process holds.
    pub fn gc(&self) -> io::Result<GcReport> {
        gc::collect(self)
    }
}

/// Whether `e` says the file system has no inode or no space left
/// (`ENOSPC`), or the user's quota of either is used up (`EDQUOT`): what
/// dead processes left may make room. Running out of file descriptors
/// (`EMFILE`, `ENFILE`) is not this: no file is freed for it.
pub(crate) fn out_of_room(e: &io::Error) -> bool {
    matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT))
}

/// The file name of entry `key` in `shared/`: 16 lowercase hex digits.
fn entry_name(key: u64) -> String {
    format!("{key:016x}")
}

/// `dir`, open as a place to look names up from (`O_PATH`).
fn open_dir(dir: &Path) -> io::Result<OwnedFd> {
    let flags = rustix::fs::OFlags::PATH | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC;
    Ok(rustix::fs::open(dir, flags | rustix::fs::OFlags::NOFOLLOW, rustix::fs::Mode::empty())?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(dir: &Path) -> Registry {
        let cfg = Config {
            root: dir.join("root"),
            devices: 2,
            device_memory: 64 << 20,
            host_memory: 1 << 30,
            host_access: true,
        };
        Registry::open(&cfg).expect("open registry")
    }

    /// A root no program has used is `NoState` and is left as it is; one
    /// that was used opens; a file is refused.
    #[test]
    fn open_existing_leaves_an_unused_root_alone() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert!(matches!(Registry::open_existing(&missing), Err(OpenError::NoState(p)) if p == missing));
        assert!(!missing.exists());
        let root = dir.path().join("root");
        std::fs::create_dir(&root).unwrap();
        assert!(matches!(Registry::open_existing(&root), Err(OpenError::NoState(_))));
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0, "nothing written into it");
        drop(registry(dir.path()));
        assert!(Registry::open_existing(&root).is_ok());
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        assert!(matches!(Registry::open_existing(&file), Err(OpenError::Root(RootError::NotDirectory(_)))));
    }

    /// Processes that start together on a root nobody made yet all open
    /// it: one that looked for `shared/` before another made it, and then
    /// found that other's `state` half set up (as long as the layout, the
    /// magic not yet written), must not take the `state` for someone
    /// else's file. Threads stand for the processes; each round is a fresh
    /// root.
    #[test]
    fn processes_starting_together_on_a_fresh_root_all_open_it() {
        let dir = tempfile::tempdir().unwrap();
        for round in 0..500u64 {
            let base = dir.path().join(round.to_string());
            let go = &std::sync::Barrier::new(4);
            let base = &base;
            std::thread::scope(|s| {
                let opened: Vec<_> = (0..4u64)
                    .map(|i| {
                        s.spawn(move || {
                            go.wait();
                            std::thread::sleep(std::time::Duration::from_micros((round * 37 + i * 101) % 300));
                            registry(base).root().to_path_buf()
                        })
                    })
                    .collect();
                for t in opened {
                    t.join().expect("every process opens the root");
                }
            });
        }
    }

    /// `header_attrs` says what an attempt to set an attribute finds.
    #[test]
    fn header_attrs_agrees_with_a_write() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        let object = Object::create(dir.path(), 4096, true).unwrap();
        let writable = object.set_attr("user.vmmkit.probe", b"1").is_ok();
        assert_eq!(reg.header_attrs(), writable);
    }

    /// A slot whose lock nobody holds belongs to a process that is gone
    /// (here: a second registry of this process, standing for another
    /// process, dropped without giving back): gc gives its charge back, and
    /// only that.
    #[test]
    fn a_slot_nobody_holds_is_collected() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        let other = registry(dir.path());
        other.charge(Place::Device(1), 8 << 20).unwrap().unwrap();
        reg.charge(Place::Device(0), 2 << 20).unwrap().unwrap();
        assert_eq!(reg.usage().used, vec![2 << 20, 8 << 20]);
        assert_eq!(reg.gc().unwrap().processes, 0, "both alive");
        drop(other);
        let report = reg.gc().unwrap();
        assert_eq!((report.processes, report.bytes), (1, 8 << 20));
        assert_eq!(reg.usage().used, vec![2 << 20, 0]);
        assert_eq!(reg.gc().unwrap().processes, 0, "our own slot survives");
    }

    /// A damaged ledger is set up afresh with every slot cleared: a dead
    /// process's slot left below a live one's would otherwise count again
    /// once the live process writes its slot back at gc, until gc collects
    /// it (a new file's slots are zeros already, and its set-up does not
    /// write them).
    #[test]
    fn a_damaged_ledger_forgets_the_dead() {
        use std::os::unix::fs::FileExt;
        let dir = tempfile::tempdir().unwrap();
        let other = registry(dir.path());
        other.charge(Place::Device(1), 8 << 20).unwrap().unwrap();
        let reg = registry(dir.path());
        reg.charge(Place::Device(0), 2 << 20).unwrap().unwrap();
        drop(other);
        let state = dir.path().join("root").join(root::STATE_FILE);
        let file = std::fs::OpenOptions::new().write(true).open(state).unwrap();
        file.write_all_at(&[0; 8], 0).unwrap();
        let fresh = registry(dir.path());
        assert_eq!(fresh.usage().used, vec![0, 0], "set up afresh");
        reg.charge(Place::Device(0), 2 << 20).unwrap().unwrap();
        let report = reg.gc().unwrap();
        assert_eq!((report.processes, report.bytes), (0, 0), "no dead slot was left to collect");
        assert_eq!(fresh.usage().used, vec![4 << 20, 0], "the live slot is back");
    }

    /// A notify's trustlist stamps a live process of the root from its slot
    /// (no look in `/proc`) with what a look would give, and admits it; a
    /// pid with no slot is still looked up.
    #[test]
    fn a_cell_trusts_a_process_of_the_root_by_its_slot() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        reg.charge(Place::Device(0), 2 << 20).unwrap().unwrap();
        let me = ProcessId::current();
        let pid = i32::try_from(me.pid).unwrap();
        assert_eq!(reg.state.live_starts(&[pid, 1]), std::collections::HashMap::from([(pid, me.start)]));
        let mut cell = reg.cell_create(cells::CellKind::Notify, 0).unwrap();
        assert!(reg.cell_trust(&mut cell, &[pid, 1]).unwrap());
        let list = cell.header.trustlist(&cell.object).unwrap();
        assert_eq!(list, vec![(pid, proc::holder_stamp(pid)), (1, proc::holder_stamp(1))]);
        // As another process sees it, the creator being someone else.
        let header = cells::CellHeader { creator: ProcessId { pid: 1, start: 1 }, ..cell.header };
        let other = ProcessId { pid: me.pid, start: me.start + 1 };
        assert!(header.admits(&cell.object, me).unwrap(), "on the list");
        assert!(!header.admits(&cell.object, other).unwrap(), "the pid, but another process");
        reg.cell_release(cell).unwrap();
    }

    /// A process that died half-way through an export (counted, not linked)
    /// over-counts the entries; gc recounts them from what is linked.
    #[test]
    fn an_over_count_is_recounted() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        reg.charge(Place::Device(1), 4 << 20).unwrap().unwrap();
        reg.state.over_count_for_test(1, 2 << 20);
        assert_eq!(reg.usage().used[1], 6 << 20);
        assert_eq!(reg.gc().unwrap().recounted, 2 << 20);
        assert_eq!(reg.usage().used, vec![0, 4 << 20]);
        // An allocation that only fits once the over-count is gone fits.
        reg.state.over_count_for_test(0, 64 << 20);
        reg.charge(Place::Device(0), 64 << 20).unwrap().expect("gc on a full device recounts");
    }

    /// Host memory is charged against the host capacity.
    #[test]
    fn host_memory_has_a_capacity() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        assert_eq!(reg.usage().host_capacity, 1 << 30);
        reg.charge(Place::Host(0), 1 << 30).unwrap().unwrap();
        let full = reg.charge(Place::Host(1), 2 << 20).unwrap().unwrap_err();
        assert_eq!((full.place, full.used, full.capacity), (Place::Host(1), 1 << 30, 1 << 30));
        reg.uncharge(Place::Host(0), 1 << 30).unwrap();
        assert_eq!(reg.usage().host_used, 0);
    }

    #[test]
    fn capacity_is_shared_and_full_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        reg.charge(Place::Device(0), 60 << 20).unwrap().unwrap();
        let full = reg.charge(Place::Device(0), 8 << 20).unwrap().unwrap_err();
        assert_eq!((full.place, full.used, full.capacity), (Place::Device(0), 60 << 20, 64 << 20));
        reg.uncharge(Place::Device(0), 60 << 20).unwrap();
        assert_eq!(reg.usage().used[0], 0);
    }

    /// An entry whose holders all died (here: whose only hold was dropped
    /// without a release) is not importable: the lookup collects it and gives
    /// its capacity back ([ACL-LIFE-003](vmmkit_sys::acl::rules::LIFE_003)/004: 107017 on a device).
    #[test]
    fn lookup_collects_an_entry_nobody_holds() {
        let dir = tempfile::tempdir().unwrap();
        let reg = registry(dir.path());
        reg.charge(Place::Device(1), 2 << 20).unwrap().unwrap();
        let object = reg.create_object(2 << 20).unwrap();
        let key = reg.new_key(Place::Device(1));
        let mut header = Header {
            key,
            data_len: 2 << 20,
            place: Place::Device(1),
            props: [0; 4],
            trust: Trust::AnyProcess,
            flags: 0,
            exporter: reg.me(),
            created_ns: 0,
            trust_len: 0,
        };
        reg.export(&object, &mut header).unwrap();
        let held = reg.lookup(key).expect("held by the exporter: importable");
        drop(held);
        drop(object); // the exporter's hold goes as if it died
        assert!(matches!(reg.lookup(key), Err(LookupError::Unknown(k)) if k == key));
        assert!(!reg.entry_path(key).exists(), "collected");
        assert_eq!(reg.usage().used, vec![0, 0], "its capacity is back");
        assert_eq!(reg.gc().unwrap(), GcReport::default(), "nothing left for gc");
    }
}
