//! The vendor-neutral device model of one process: physical handles,
//! reservations and mappings, sharing through the registry, copies.
//!
//! All of it sits behind one mutex per process ([`Emulator`]); what other
//! processes must see lives in the registry's files. Dialects call these
//! operations after their own argument checks, in their vendor's order.

mod access;
mod copy;
mod error;
mod extent;
mod fd;
mod host;
mod ipc;
mod ipc_token;
mod peer;
mod physical;
mod share;
mod space;
mod tag;
pub mod thread;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, OnceLock};

pub use copy::Side;
pub use error::{CoreError, HandleId};
pub use extent::{Extent, ExtentKind};
pub use ipc::{Opened, PlainExport};
pub use ipc_token::{IPC_HANDLE_SIZE, IpcToken, new_generation};
pub use physical::{HandleInfo, Physical};
pub use space::{DEVICE_WINDOW, Mapping, ReservationInfo, Window, natural_align};
pub use tag::HandleTag;

use crate::config::Config;
use crate::registry::{Place, Registry};

/// The emulator of this process.
#[derive(Debug)]
pub struct Emulator {
    config: Config,
    registry: Registry,
    tables: Mutex<Tables>,
}

/// Process-local state.
#[derive(Debug, Default)]
struct Tables {
    next_handle: u64,
    handles: HashMap<HandleId, Physical>,
    reservations: BTreeMap<usize, space::Rsv>,
    maps: BTreeMap<usize, Mapping>,
    /// Exported local handles by key.
    exports: HashMap<u64, HandleId>,
    /// Import cache: (key, importing device) → handle.
    imports: HashMap<(u64, Place), HandleId>,
    /// Plain allocations of other processes opened here, by address (HIP and CUDA IPC).
    opened: BTreeMap<usize, Opened>,
    /// Pinned host buffers, by address, with their size.
    host: BTreeMap<usize, usize>,
    /// Peer access enabled by this process: (device, peer).
    peers: HashSet<(u32, u32)>,
}

static EMULATOR: OnceLock<Result<Emulator, CoreError>> = OnceLock::new();

/// The emulator of this process, set up from the environment at first use.
///
/// # Errors
/// [`CoreError::Unavailable`] with the reason (a bad setting, an unusable root),
/// the same for every call.
pub fn emulator() -> Result<&'static Emulator, CoreError> {
    EMULATOR
        .get_or_init(|| {
            let faults = std::env::var("VMMKIT_FAULTS").unwrap_or_default();
            let r = crate::faults::Spec::parse(&faults)
                .map_err(|e| format!("VMMKIT_FAULTS: {e}"))
                .and_then(|spec| {
                    let e = Config::from_env()
                        .map_err(|e| e.to_string())
                        .and_then(|c| Emulator::new(c).map_err(|e| e.to_string()))?;
                    if !spec.is_empty() {
                        crate::faults::install(spec);
                    }
                    Ok(e)
                })
                .map_err(CoreError::Unavailable);
            if r.is_ok() && std::env::var("VMMKIT_LEAK_REPORT").is_ok_and(|v| v == "1") {
                crate::leaks::report_at_exit();
            }
            if let Err(e) = &r {
                // Programs rarely read the error message: say it once where people look.
                eprintln!("vmmkit: {e}");
            }
            r
        })
        .as_ref()
        .map_err(Clone::clone)
}

impl Emulator {
    /// An emulator over the root and devices of `config`.
    pub fn new(config: Config) -> Result<Self, crate::registry::OpenError> {
        let registry = Registry::open(&config)?;
        Ok(Self { config, registry, tables: Mutex::new(Tables { next_handle: 1, ..Tables::default() }) })
    }

    /// Its settings.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Its registry.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Number of devices.
    pub fn device_count(&self) -> u32 {
        self.config.devices
    }

    /// Whether `d` is a device of this machine.
    pub fn is_device(&self, d: i64) -> bool {
        (0..i64::from(self.config.devices)).contains(&d)
    }

    fn lock(&self) -> MutexGuard<'_, Tables> {
        // A panic while holding the lock (caught at the FFI edge) leaves the
        // tables as they were at the panic point; they stay usable.
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Bytes free and in total on `device`.
    pub fn mem_info(&self, device: u32) -> (u64, u64) {
        let u = self.registry.usage();
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
            let _ = space::release(&mut t, &self.registry, base, true);
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
            let _ = space::release(&mut t, &self.registry, base, true);
        }
        let handles: Vec<HandleId> = t.handles.keys().copied().collect();
        for id in handles {
            physical::destroy(&mut t, &self.registry, id);
        }
    }

    /// What this process holds and has not released, with the entry point
    /// that created each. `None` if another thread holds the tables.
    pub fn leaks(&self) -> Option<Vec<crate::leaks::Leak>> {
        use crate::leaks::{Kind, Leak};
        let t = self.tables.try_lock().ok()?;
        let mut out = Vec::new();
        for (&va, r) in &t.reservations {
            let kind = if r.plain { Kind::Allocation } else { Kind::Reservation };
            out.push(Leak { kind, what: format!("{va:#x}, {:#x} bytes", r.range.len()), created_by: r.created_by });
        }
        for (&va, m) in &t.maps {
            if t.reservations.get(&m.rsv).is_some_and(|r| r.plain) {
                continue; // part of a plain allocation, listed above
            }
            out.push(Leak {
                kind: Kind::Mapping,
                what: format!("{va:#x}, {:#x} bytes", m.len),
                created_by: m.created_by,
            });
        }
        for (id, p) in &t.handles {
            if p.refs == p.map_refs {
                continue; // only mappings hold it: listed with them
            }
            let kind = match (p.imported, p.entry.is_some()) {
                (true, _) => Kind::Import,
                (false, true) => Kind::Export,
                (false, false) => Kind::Physical,
            };
            let key = p.key().map(|k| format!(", shareable handle {k:#x}")).unwrap_or_default();
            let what = format!(
                "handle {:#x}, {:#x} bytes on {:?}{key}, {} reference(s)",
                id.0,
                p.size,
                p.owner,
                p.refs - p.map_refs
            );
            out.push(Leak { kind, what, created_by: p.created_by });
        }
        Some(out)
    }

    /// Counts of what this process holds: (handles, reservations, mappings).
    pub fn census(&self) -> (usize, usize, usize) {
        let t = self.lock();
        (t.handles.len(), t.reservations.len(), t.maps.len())
    }
}
