//! The core's errors, in device terms. Dialects turn them into codes.

use crate::registry::Place;

/// A process-local handle to physical memory (never reused within a process).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HandleId(pub u64);

/// What went wrong, with the values involved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CoreError {
    /// Not a live memory pool of this process.
    #[error("{0:#x} is not a live memory pool of this process")]
    UnknownPool(u64),
    /// An imported pool cannot allocate.
    #[error("pool {0:#x} was imported from another process; imported pools do not allocate")]
    PoolImported(u64),
    /// A pool's `maxSize` would be passed.
    #[error("pool {pool:#x}: {requested:#x} more bytes would pass its maximum size {max:#x}")]
    PoolFull {
        /// The pool.
        pool: u64,
        /// Bytes asked for.
        requested: u64,
        /// Its maximum.
        max: u64,
    },
    /// A pool attribute that is read only, or a high-water mark set to other than 0.
    #[error("pool attribute {attr} cannot be set to {value}")]
    PoolAttrReadOnly {
        /// The attribute.
        attr: String,
        /// The value given.
        value: u64,
    },
    /// A pool made without a handle type cannot be exported.
    #[error("pool {0:#x} was made with handle type none; it cannot be exported")]
    PoolNotExportable(u64),
    /// The emulator could not start (bad settings, unusable root).
    #[error("emulator unavailable: {0}")]
    Unavailable(String),
    /// Not a live handle of this process.
    #[error("{0:#x} is not a live physical-memory handle of this process")]
    UnknownHandle(u64),
    /// Only mapping references are left; the handle was already freed.
    #[error("handle {0:#x} was already freed; only its mappings hold it")]
    OnlyMappingRefs(u64),
    /// The size is not a multiple of the granularity.
    #[error("size {size:#x} is not a multiple of the granularity {granule:#x}")]
    SizeNotAligned {
        /// The size.
        size: u64,
        /// The granularity.
        granule: u64,
    },
    /// The capacity of a device, or of host memory, is used up.
    #[error("out of memory on {place}: {requested:#x} bytes requested, {used:#x} of {capacity:#x} in use")]
    OutOfMemory {
        /// The device, or host memory.
        place: crate::registry::Place,
        /// Bytes asked for.
        requested: u64,
        /// Bytes in use.
        used: u64,
        /// Capacity.
        capacity: u64,
    },
    /// The host could not provide the backing (tmpfs full, address space exhausted).
    #[error("out of host resources: {0}")]
    HostExhausted(String),
    /// An address is not inside any reservation.
    #[error("{0:#x} is not inside a reserved range")]
    NotReserved(usize),
    /// Not the start of a reservation.
    #[error("{0:#x} is not the start of a reservation")]
    NotReservationStart(usize),
    /// An address or size is not aligned as required.
    #[error("{what} {value:#x} is not a multiple of {align:#x}")]
    Misaligned {
        /// Which value.
        what: &'static str,
        /// The value.
        value: u64,
        /// The required alignment.
        align: u64,
    },
    /// The range runs past the end of its reservation.
    #[error("{addr:#x}+{size:#x} runs past the end of its reservation at {end:#x}")]
    PastReservationEnd {
        /// Start.
        addr: usize,
        /// Size.
        size: usize,
        /// End of the reservation.
        end: usize,
    },
    /// Part of the range is mapped already.
    #[error("{addr:#x}+{size:#x} overlaps the mapping at {existing:#x}")]
    AlreadyMapped {
        /// Start.
        addr: usize,
        /// Size.
        size: usize,
        /// The mapping in the way.
        existing: usize,
    },
    /// The map size differs from the physical size where it must be equal.
    #[error("map size {size:#x} differs from the physical allocation's size {physical:#x}")]
    SizeMismatch {
        /// Map size.
        size: u64,
        /// Physical size.
        physical: u64,
    },
    /// The reservation holds memory of another device.
    #[error("the reservation is bound to {bound:?}; the handle belongs to {handle:?}")]
    WrongDevice {
        /// The reservation's device.
        bound: Place,
        /// The handle's device.
        handle: Place,
    },
    /// No mapping starts (or lies) here.
    #[error("{0:#x} is not mapped")]
    NotMapped(usize),
    /// An access grant that contradicts an earlier one.
    #[error("access for {0:?} was granted differently before")]
    AccessConflict(Place),
    /// The handle was imported; only memory allocated here can be exported.
    #[error("handle {0:#x} was imported; only locally allocated memory can be exported")]
    ImportedNotExportable(u64),
    /// The allocation was exported already.
    #[error("handle {handle:#x} is already exported as {key:#x}")]
    AlreadyExported {
        /// The handle.
        handle: u64,
        /// Its key.
        key: u64,
    },
    /// No exported memory has this key.
    #[error("no exported memory has shareable handle {0:#x}")]
    UnknownShareable(u64),
    /// The entry is being torn down.
    #[error("shareable handle {0:#x} is being released")]
    ShareableReleasing(u64),
    /// Only the exporting process may do this.
    #[error("shareable handle {0:#x} was exported by another process")]
    NotExporter(u64),
    /// The trustlist is off for this handle.
    #[error("shareable handle {0:#x} was exported with pid validation disabled")]
    TrustlistDisabled(u64),
    /// Every pid given was 0.
    #[error("every pid given is 0")]
    NoPids,
    /// The trustlist is full.
    #[error("the trustlist of {0:#x} is full (65535 pids)")]
    TrustlistFull(u64),
    /// The exporting process importing onto the device where the memory lives.
    #[error("this process exported {key:#x} from {place:?}; it cannot import it onto the same device")]
    SameProcessImport {
        /// The key.
        key: u64,
        /// Where the memory lives.
        place: Place,
    },
    /// The importer is not on the trustlist, or its entry predates it.
    #[error("pid {pid} is not on the trustlist of {key:#x}{}", if *.stale { " (its entry was set before this process started)" } else { "" })]
    NotTrusted {
        /// The key.
        key: u64,
        /// The importer.
        pid: u32,
        /// Listed, but set before the importer started.
        stale: bool,
    },
    /// An address range is not device memory known to the emulator.
    #[error("{addr:#x}+{size:#x} is not mapped device memory")]
    BadDeviceRange {
        /// Start.
        addr: usize,
        /// Size.
        size: usize,
    },
    /// A host-side address range where no process can have memory: below
    /// 64 KiB (or `vm.mmap_min_addr`) or past the user address space.
    #[error(
        "{addr:#x}+{size:#x} is taken for no memory (the low 64 KiB, below vm.mmap_min_addr, or past the user address space)"
    )]
    NotAddressable {
        /// Start.
        addr: usize,
        /// Size.
        size: usize,
    },
    /// A fault injected by `VMMKIT_FAULTS` (the vendor code to return).
    #[error("fault injected by VMMKIT_FAULTS (code {0})")]
    Injected(i64),
    /// A file-system or mapping call failed.
    #[error("{0}")]
    Os(String),
    /// Not a live stream of this process.
    #[error("stream {0} is not a live stream of this process")]
    UnknownStream(u64),
    /// A graph or capture call that broke a rule.
    #[error(transparent)]
    Graph(#[from] super::graph::GraphError),
    /// Not a live event of this process.
    #[error("event {0} is not a live event of this process")]
    UnknownEvent(u64),
    /// A wait's time ran out.
    #[error("the wait timed out")]
    Timeout,
    /// The process that would complete a shared event or notify is gone.
    #[error("the process that records this shared event is gone")]
    Abandoned,
    /// Work was recorded but has not completed yet.
    #[error("the work recorded is not complete yet")]
    NotReady,
    /// An access raced another, neither ordered before the other, under
    /// `VMMKIT_HAZARDS=error` (the report says which).
    #[error("{0}")]
    Unsynchronised(Box<crate::core::Hazard>),
    /// An event that was never recorded.
    #[error("event {0} was never recorded")]
    EventNotRecorded(u64),
    /// An event made without timing, asked for a time.
    #[error("event {0} was made with timing disabled")]
    TimingDisabled(u64),
    /// An event made without `interprocess` (or not a notify), asked to be shared.
    #[error("event {0} was not made to be shared across processes")]
    NotInterprocess(u64),
    /// No live shared event or notify has this key (never made, destroyed,
    /// every holder gone, or of the other kind).
    #[error("no shared event or notify has key {0:#x}")]
    UnknownSharedCell(u64),
}

impl From<std::io::Error> for CoreError {
    fn from(e: std::io::Error) -> Self {
        match e.raw_os_error() {
            // EFBIG (a file-size limit) and EDQUOT (a quota) are the file
            // system saying "full" as much as ENOSPC is.
            Some(libc::ENOSPC | libc::EFBIG | libc::EDQUOT | libc::ENOMEM | libc::EMFILE | libc::ENFILE) => {
                CoreError::HostExhausted(e.to_string())
            }
            _ => CoreError::Os(e.to_string()),
        }
    }
}
