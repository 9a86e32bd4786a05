//! The vendor-neutral device model of one process: physical handles,
//! reservations and mappings, sharing through the registry, copies.
//!
//! All of it sits behind one mutex per process ([`Emulator`]); what other
//! processes must see lives in the registry's files. Dialects call these
//! operations after their own argument checks, in their vendor's order.

mod access;
#[allow(unsafe_code)] // accesses in a shared mapping of the root
pub mod access_history;
mod backing;
#[allow(unsafe_code)] // shared words in a mapping of the root
pub mod cell;
#[allow(unsafe_code)] // device memory through its mappings
mod copy;
mod dialect;
mod error;
#[allow(unsafe_code)] // enqueues work on device memory
mod event;
mod extent;
mod fasthash;
#[allow(unsafe_code)] // file descriptors passed in from C
mod fd;
#[allow(unsafe_code)] // runs work on device memory through its mappings
mod graph;
pub mod hazard;
#[allow(unsafe_code)] // host allocations handed to C
mod host;
mod import_cache;
mod ipc;
#[allow(unsafe_code)] // enqueues work on device memory
mod ipc_event;
mod ipc_token;
mod leak;
mod observe;
mod peer;
mod physical;
mod pool;
#[allow(unsafe_code)] // the exit handler and the fork handler
mod process;
mod share;
mod space;
#[allow(unsafe_code)] // runs work on device memory through its mappings
mod stream;
mod tag;
pub mod thread;

use std::collections::BTreeMap;
use std::sync::{Mutex, MutexGuard};

use fasthash::{FastMap, FastSet};

pub use copy::Side;
pub use error::{CoreError, HandleId};
pub use event::{Event, EventFlags, EventId};
pub use extent::{Extent, ExtentKind};
pub use fd::fd_is_open;
pub use graph::{
    AllocHold, CaptureMode, CaptureStatus, ExecId, GraphError, GraphId, NodeId, NodeType, Op as GraphOp,
    exchange_capture_mode,
};
pub use hazard::{Access as HazardAccess, Agent as HazardAgent, Hazard};
pub use ipc::{Opened, PlainExport};
pub use ipc_event::SharedCellInfo;
pub use ipc_token::{IPC_HANDLE_SIZE, IpcToken, new_generation};
pub use leak::{Kind as LeakKind, Leak};
pub use observe::{Observer, ShareOp, observe};
pub use physical::{HandleInfo, Physical};
pub use pool::{Freed, HighReset, PoolAttr, PoolId, PoolProps};
pub use process::{InstallError, emulator, forked_from, install, running};
pub(crate) use process::{is_fork_of_started, watch_forks};
pub use space::{DEVICE_WINDOW, MapSize, Mapping, ReservationInfo, WINDOW_ANCHOR, Window, natural_align};
pub use stream::{Ending, Kind as StreamKind, Mark, RowCopy, StreamId, ValueCmp, Work};
pub use tag::HandleTag;

use crate::config::Config;
use crate::registry::{Place, Registry};
use crate::visible::{MaskVendor, Visible};

/// The emulator of this process.
#[derive(Debug)]
pub struct Emulator {
    config: Config,
    registry: Registry,
    tables: Mutex<Tables>,
    /// Memory pools (`pool.rs`); taken before `tables` when both are needed.
    pools: Mutex<pool::Pools>,
    /// What each dialect keeps for the whole process.
    dialects: dialect::DialectStates,
    /// Streams and their workers (`stream.rs`).
    streams: stream::Streams,
    /// Events (`event.rs`).
    events: event::Events,
    graphs: graph::Graphs,
    /// The per-thread import caches' view of this emulator (`import_cache.rs`).
    import_cache: import_cache::ImportCache,
    /// The devices this process sees and their physical numbers, chosen by
    /// the first dialect's variables ([`Emulator::see_as`]); all of them
    /// under their own numbers when none chose.
    visible: std::sync::OnceLock<Visible>,
}

/// A file's identity: (`st_dev`, `st_ino`).
type FileId = (u64, u64);

/// Process-local state.
#[derive(Debug, Default)]
struct Tables {
    next_handle: u64,
    handles: FastMap<HandleId, Physical>,
    reservations: BTreeMap<usize, space::Rsv>,
    /// The device window below this address is reserved whole (0: nothing
    /// known), where first-fit placement starts (`space.rs`).
    window_floor: usize,
    maps: BTreeMap<usize, Mapping>,
    /// Exported local handles by key.
    exports: FastMap<u64, HandleId>,
    /// Import cache: (key, importing device) → handle.
    imports: FastMap<(u64, Place), HandleId>,
    /// Entries this process holds through an fd import, by the file's
    /// (device, inode): the hold its handles share, and the entry's header
    /// (`fd.rs`). Removed when the last of those handles goes.
    fd_imports: FastMap<FileId, (std::sync::Weak<crate::os::object::Object>, crate::registry::Header)>,
    /// Plain allocations of other processes opened here, by address (HIP and CUDA IPC).
    opened: BTreeMap<usize, Opened>,
    /// The arena that holds the memory of handles not shared yet (`backing.rs`).
    arena: backing::ArenaSpace,
    /// Pinned host buffers, by address, with their size.
    host: BTreeMap<usize, usize>,
    /// Peer access enabled by this process: (device, peer).
    peers: FastSet<(u32, u32)>,
}

impl Emulator {
    /// An emulator over the root and devices of `config`.
    pub fn new(config: Config) -> Result<Self, crate::registry::OpenError> {
        let registry = Registry::open(&config)?;
        Ok(Self {
            config,
            registry,
            tables: Mutex::new(Tables { next_handle: 1, ..Tables::default() }),
            pools: Mutex::default(),
            dialects: dialect::DialectStates::default(),
            streams: stream::Streams::default(),
            events: event::Events::default(),
            graphs: graph::Graphs::default(),
            import_cache: import_cache::ImportCache::default(),
            visible: std::sync::OnceLock::new(),
        })
    }

    /// Its settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Its registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Number of devices this process sees.
    pub fn device_count(&self) -> u32 {
        self.visible().count()
    }

    /// Whether `d` is a device ordinal of this process.
    pub fn is_device(&self, d: i64) -> bool {
        (0..i64::from(self.device_count())).contains(&d)
    }

    /// Whether `d` is a physical device of the machine (the device field of
    /// a key or token another process made).
    pub fn is_physical_device(&self, d: i64) -> bool {
        (0..i64::from(self.config.devices)).contains(&d)
    }

    /// The devices this process sees: those `vendor`'s variables leave it
    /// when it is the first to ask, else those the first chose (one process
    /// plays one vendor's mask; see `visible.rs`).
    pub fn see_as(&self, vendor: MaskVendor) -> &Visible {
        self.visible.get_or_init(|| Visible::from_env(vendor, self.config.devices))
    }

    /// The devices this process sees (all, when no dialect chose).
    pub fn visible(&self) -> &Visible {
        self.visible.get_or_init(|| Visible::all(self.config.devices))
    }

    /// `place` with a device ordinal of this process as the machine numbers it.
    pub fn physical_place(&self, place: Place) -> Place {
        match place {
            Place::Device(o) => Place::Device(self.visible().physical(o).unwrap_or(o)),
            host => host,
        }
    }

    /// `place` with a physical device as this process numbers it; `hidden`
    /// when the process does not see that device.
    pub fn local_place(&self, place: Place, hidden: Place) -> Place {
        match place {
            Place::Device(d) => self.visible().ordinal(d).map_or(hidden, Place::Device),
            host => host,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Tables> {
        // A panic while holding the lock (caught at the FFI edge) leaves the
        // tables as they were at the panic point; they stay usable.
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The device field of an IPC token for memory at `place` (as this
    /// process numbers devices): the machine's number, which the opening
    /// process reads ([`Emulator::token_local`]); a host node as it is.
    pub fn token_device(&self, place: Place) -> i32 {
        match self.physical_place(place) {
            Place::Device(d) | Place::Host(d) => d as i32,
        }
    }

    /// The ordinal of this process for device field `d` of a token, if it
    /// sees that device.
    pub fn token_local(&self, d: i32) -> Option<u32> {
        u32::try_from(d).ok().and_then(|d| self.visible().ordinal(d))
    }

    /// Bytes free and in total on `device`.
    pub fn mem_info(&self, device: u32) -> (u64, u64) {
        let u = self.registry.usage();
        let device = self.visible().physical(device).unwrap_or(device);
        let used = u.used.get(device as usize).copied().unwrap_or(0);
        (u.capacity.saturating_sub(used), u.capacity)
    }

    /// Releases everything this process holds on `device` (mappings,
    /// reservations bound to it, handles), as a device reset does.
    pub fn reset_device(&self, device: u32) {
        let place = Place::Device(device);
        let mut t = self.lock();
        let rsvs: Vec<usize> =
            t.reservations.iter().filter(|(_, r)| r.bound == Some(place)).map(|(&base, _)| base).collect();
        for base in rsvs {
            let _ = space::release(&mut t, &self.registry, base, space::Releasable::Any);
        }
        let maps: Vec<usize> = t
            .maps
            .iter()
            .filter(|(_, m)| t.handles.get(&m.handle).is_some_and(|h| h.owner == place))
            .map(|(&va, _)| va)
            .collect();
        for va in maps {
            let _ = space::unmap(&mut t, &self.registry, va);
        }
        let handles: Vec<HandleId> = t.handles.iter().filter(|(_, h)| h.owner == place).map(|(&id, _)| id).collect();
        for id in handles {
            physical::destroy(&mut t, &self.registry, id);
        }
    }

    /// Releases everything this process holds.
    pub fn reset_all(&self) {
        let mut t = self.lock();
        let rsvs: Vec<usize> = t.reservations.keys().copied().collect();
        for base in rsvs {
            let _ = space::release(&mut t, &self.registry, base, space::Releasable::Any);
        }
        let handles: Vec<HandleId> = t.handles.keys().copied().collect();
        for id in handles {
            physical::destroy(&mut t, &self.registry, id);
        }
    }

    /// Counts of what this process holds: (handles, reservations, mappings).
    pub fn census(&self) -> (usize, usize, usize) {
        let t = self.lock();
        (t.handles.len(), t.reservations.len(), t.maps.len())
    }
}
