//! The per-thread import cache: a repeated import ([ACL-IMP-014](vmmkit_sys::acl::rules::IMP_014)) of a key
//! this thread has seen imported, and the free of such a reference, without
//! the table lock.
//!
//! An imported handle keeps the references taken this way apart from its
//! `refs`, in a [`Spare`] counter shared with the threads that cached it.
//! A quick import adds one unless the handle is gone; a quick free takes one
//! back while any is left; everything else (the last free, unmaps, reset)
//! runs under the table lock as before, and counts `refs + spare`
//! ([`super::Physical::total_refs`]). When the handle goes (`destroy`), its
//! counter is marked dead under the lock, so no cached entry can revive it.
//! A forked child never gets here: its entry points fail first
//! (`crate::fork`).

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use crate::registry::Place;

use super::HandleId;

/// Set in a [`Spare`] when its handle is gone.
const DEAD: u32 = 1 << 31;

/// References to one imported handle taken without the table lock.
#[derive(Debug, Default)]
pub struct Spare(AtomicU32);

impl Spare {
    /// Takes one more reference, unless the handle is gone. One `lock xadd`
    /// (about half a compare-and-swap loop here): a dead counter may count
    /// on, nobody reads it again.
    fn take(&self) -> bool {
        self.0.fetch_add(1, Ordering::AcqRel) & DEAD == 0
    }

    /// Gives one back, if any is left (and the handle is not gone).
    pub(super) fn give(&self) -> bool {
        self.0.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n & DEAD == 0 && n > 0).then(|| n - 1)).is_ok()
    }

    /// How many are held.
    pub(super) fn count(&self) -> u32 {
        self.0.load(Ordering::Acquire) & !DEAD
    }

    /// Marks the handle gone if no spare reference is held; false (nothing
    /// changed) if a quick import took one meanwhile.
    pub(super) fn kill(&self) -> bool {
        self.0.compare_exchange(0, DEAD, Ordering::AcqRel, Ordering::Acquire).is_ok()
    }

    /// Marks the handle gone, whatever is held (destroy under the lock).
    pub(super) fn bury(&self) {
        self.0.fetch_or(DEAD, Ordering::AcqRel);
    }
}

/// What an emulator keeps for the per-thread caches: its own number (tests
/// run several emulators in one process) and the generation of its peer
/// table, moved on by every disable, so a cached import knows whether the
/// peer access it enabled ([ACL-IMP-016](vmmkit_sys::acl::rules::IMP_016)) may have gone.
#[derive(Debug)]
pub(super) struct ImportCache {
    emu: u64,
    peers: AtomicU64,
}

impl Default for ImportCache {
    fn default() -> Self {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self { emu: NEXT.fetch_add(1, Ordering::Relaxed), peers: AtomicU64::new(0) }
    }
}

/// One cached import of this thread.
struct Entry {
    emu: u64,
    key: u64,
    device: Place,
    id: HandleId,
    place: Place,
    spare: Arc<Spare>,
    /// The peer generation at which this import's peer access was enabled
    /// (`u64::MAX`: it was not); `None` when it needs none (same device,
    /// host memory).
    peers_at: Option<u64>,
}

/// Entries per thread: a scan of a few is cheaper than a hash, and a thread
/// that imports many keys again keeps the latest.
const PER_THREAD: usize = 8;

thread_local! {
    static CACHE: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
}

impl ImportCache {
    /// A disable of peer access: cached imports enable theirs again under the lock.
    pub(super) fn peers_changed(&self) {
        self.peers.fetch_add(1, Ordering::AcqRel);
    }

    /// The current peer generation (read under the table lock when peers are enabled).
    pub(super) fn peer_generation(&self) -> u64 {
        self.peers.load(Ordering::Acquire)
    }

    /// A repeated import of `key` onto `device` answered from this thread's
    /// cache: one more spare reference, or `None` (nothing changed).
    pub(super) fn import(&self, key: u64, device: Place, link_peers: bool) -> Option<(HandleId, Place)> {
        // `try_with`: a call from a thread-local destructor at thread exit
        // finds the cache gone, and goes through the lock.
        CACHE
            .try_with(|c| {
                let c = c.try_borrow().ok()?;
                let e = c.iter().find(|e| e.emu == self.emu && e.key == key && e.device == device)?;
                if link_peers && e.peers_at.is_some_and(|g| g != self.peer_generation()) {
                    return None;
                }
                e.spare.take().then_some((e.id, e.place))
            })
            .ok()
            .flatten()
    }

    /// The free of a reference a quick import took, answered from this
    /// thread's cache; false (nothing changed) when it has none to give back.
    pub(super) fn free(&self, id: HandleId) -> bool {
        CACHE
            .try_with(|c| {
                c.try_borrow().is_ok_and(|c| c.iter().any(|e| e.emu == self.emu && e.id == id && e.spare.give()))
            })
            .unwrap_or(false)
    }

    /// Remembers an import made under the lock, for the next ones.
    pub(super) fn remember(
        &self,
        key: u64,
        device: Place,
        id: HandleId,
        place: Place,
        spare: &Arc<Spare>,
        peers_at: Option<u64>,
    ) {
        // At thread exit (the cache gone) there is nothing to remember.
        let _gone = CACHE.try_with(|c| {
            let Ok(mut c) = c.try_borrow_mut() else { return };
            c.retain(|e| {
                e.spare.0.load(Ordering::Relaxed) & DEAD == 0
                    && !(e.emu == self.emu && e.key == key && e.device == device)
            });
            if c.len() >= PER_THREAD {
                c.remove(0);
            }
            c.push(Entry { emu: self.emu, key, device, id, place, spare: Arc::clone(spare), peers_at });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;
    use crate::core::{CoreError, Emulator};
    use crate::registry::Trust;

    const G: u64 = 2 << 20;

    /// An emulator with device 0's memory exported and imported onto device
    /// 1 once ([ACL-IMP-016](vmmkit_sys::acl::rules::IMP_016)'s cross-device import), the import's handle.
    fn imported(dir: &std::path::Path) -> (Emulator, u64, HandleId) {
        let e = Emulator::new(Config::new(dir).with_devices(2)).expect("emulator");
        let h = e.create(Place::Device(0), G, G, [0; 4]).expect("create");
        let key = e.export(h, Trust::AnyProcess).expect("export");
        let id = e.import(key, Place::Device(1)).expect("import");
        (e, key, id)
    }

    #[test]
    fn repeated_imports_count_and_the_last_free_destroys() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, key, id) = imported(dir.path());
        let again = |e: &Emulator| e.import_again(key, Place::Device(1), true).map(|(i, _)| i);
        // The first under the lock, the others from this thread's cache.
        for n in 2..=4 {
            assert_eq!(again(&e), Some(id));
            assert_eq!(e.describe(id).expect("live").refs, n);
        }
        let leaks = e.leaks().expect("leaks");
        let import = leaks.iter().find(|l| l.kind == crate::core::LeakKind::Import).expect("the import is listed");
        assert!(import.what.ends_with(", 4 reference(s) never freed"), "{}", import.what);
        // Another thread frees the quick references, under the lock.
        std::thread::scope(|s| {
            s.spawn(|| {
                for _ in 0..2 {
                    e.free(id).expect("free");
                }
            });
        });
        assert_eq!(e.describe(id).expect("live").refs, 2);
        e.free(id).expect("free");
        e.free(id).expect("last free");
        assert!(!e.handle_exists(id));
        assert_eq!(e.free(id), Err(CoreError::UnknownHandle(id.0)));
        assert_eq!(again(&e), None, "freed to zero: the cache does not answer");
    }

    #[test]
    fn a_disabled_peer_is_enabled_again_and_a_reset_empties_the_cache() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, key, id) = imported(dir.path());
        assert!(e.import_again(key, Place::Device(1), true).is_some());
        assert!(e.import_again(key, Place::Device(1), true).is_some(), "cached");
        assert!(e.disable_peer(1, 0));
        assert!(e.import_again(key, Place::Device(1), true).is_some());
        assert!(e.peer_enabled(1, 0) && e.peer_enabled(0, 1), "ACL-IMP-016 again");
        assert_eq!(e.describe(id).expect("live").refs, 4);
        e.reset_device(1);
        assert!(!e.handle_exists(id));
        assert_eq!(e.import_again(key, Place::Device(1), true), None, "reset: the cache does not answer");
        assert_eq!(e.free(id), Err(CoreError::UnknownHandle(id.0)));
    }

    #[test]
    fn threads_importing_and_freeing_at_once_keep_the_count() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, key, id) = imported(dir.path());
        std::thread::scope(|s| {
            for t in 0..4 {
                let e = &e;
                s.spawn(move || {
                    for i in 0..2_000 {
                        assert_eq!(e.import_again(key, Place::Device(1), true).map(|(h, _)| h), Some(id));
                        // Every other free from a thread that did not take it.
                        if (i + t) % 2 == 0 {
                            e.free(id).expect("free");
                        } else {
                            std::thread::scope(|s2| {
                                s2.spawn(|| e.free(id).expect("free elsewhere"));
                            });
                        }
                    }
                });
            }
        });
        assert_eq!(e.describe(id).expect("live").refs, 1, "only the first import is left");
        e.free(id).expect("last free");
        assert!(!e.handle_exists(id));
        assert_eq!(e.import_again(key, Place::Device(1), true), None);
    }

    #[test]
    fn the_last_locked_free_racing_quick_imports_leaves_nothing() {
        for round in 0..50 {
            let dir = tempfile::tempdir().expect("tempdir");
            let (e, key, id) = imported(dir.path());
            std::thread::scope(|s| {
                let e = &e;
                // Imports again and frees (from its cache after the first)
                // until the handle is gone.
                s.spawn(move || {
                    while e.import_again(key, Place::Device(1), true).is_some() {
                        e.free(id).expect("free");
                    }
                });
                // Meanwhile the first import's reference goes, under the lock.
                for _ in 0..round * 20 {
                    std::hint::spin_loop();
                }
                e.free(id).expect("first import's free");
            });
            assert!(!e.handle_exists(id), "freed to zero: gone");
            assert_eq!(e.census().0, 1, "the exported handle only");
        }
    }

    #[test]
    fn a_quick_reference_outlives_the_locked_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (e, key, id) = imported(dir.path());
        assert!(e.import_again(key, Place::Device(1), true).is_some());
        assert!(e.import_again(key, Place::Device(1), true).is_some());
        // Freed from another thread (no cache there): the quick reference goes first.
        std::thread::scope(|s| {
            s.spawn(|| {
                e.free(id).expect("free");
                e.free(id).expect("free");
            });
        });
        assert!(e.handle_exists(id));
        e.free(id).expect("last free");
        assert!(!e.handle_exists(id));
    }

    #[test]
    fn spare_counts_and_dies() {
        let s = Spare::default();
        assert!(!s.give(), "nothing to give back");
        assert!(s.take() && s.take());
        assert_eq!(s.count(), 2);
        assert!(!s.kill(), "held");
        assert!(s.give() && s.give());
        assert!(s.kill());
        assert!(!s.take(), "dead: no revival");
        assert!(!s.give());
    }

    #[test]
    fn bury_stops_takes_whatever_is_held() {
        let s = Spare::default();
        assert!(s.take());
        s.bury();
        assert!(!s.take() && !s.give());
    }
}
