//! What an address is to HIP: which allocation holds it, where that
//! allocation starts and how long the program asked it to be.
//!
//! hipMalloc memory is a plain allocation of the core, rounded up to whole
//! pages; the size the program asked for is kept in the allocation's
//! properties so that bounds, hipMemGetAddressRange and an importer's view
//! use it ([HIP-IPC-002](vmmkit_sys::hip::rules::IPC_002) half-open bounds, HIP-IPC-030 exact sizes).

use crate::core::{Emulator, HandleId};
use crate::registry::Place;

/// `props[0]` of hipMalloc memory. `props` are `[kind, granule, size asked, generation]`.
pub(super) const KIND_MALLOC: u64 = u64::from_le_bytes(*b"hipMallc");
/// `props[0]` of hipMemCreate memory. `props` are `[kind, granule, requestedHandleType, size asked]`.
pub(super) const KIND_VMM: u64 = u64::from_le_bytes(*b"hipMemCr");

/// What kind of memory holds an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// hipMalloc memory of this process, with its physical handle.
    Malloc(HandleId),
    /// Another process's hipMalloc memory, opened here by hipIpcOpenMemHandle.
    Opened,
    /// A hipMemMap mapping.
    Vmm,
    /// A hipHostMalloc buffer.
    Host,
    /// Host memory of the program's, registered by hipHostRegister.
    Registered,
    /// hipMallocManaged memory (host memory in vmmkit, `ranges.rs`).
    Managed,
}

/// The allocation that holds an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Extent {
    /// Its first address.
    pub base: usize,
    /// Its size as the program sees it (for hipMalloc, the size asked for).
    pub size: usize,
    /// What it is.
    pub kind: Kind,
    /// The device it belongs to (the current device for host buffers).
    pub device: Place,
    /// Its properties (zero for host buffers).
    pub props: [u64; 4],
}

impl Extent {
    /// Whether `p..p+n` lies inside it.
    pub fn holds(&self, p: usize, n: usize) -> bool {
        p >= self.base && p.checked_add(n).is_some_and(|end| end <= self.base + self.size)
    }
}

/// The size the program asked for, from the properties of a plain allocation of `len` bytes.
fn asked(props: &[u64; 4], len: usize) -> usize {
    if props[0] == KIND_MALLOC { (props[2] as usize).min(len) } else { len }
}

/// The allocation that holds `p`, if any: an opened IPC range, hipMalloc
/// memory (within the size asked for), a hipMemMap mapping, a registered or
/// managed range, or a host buffer.
pub(super) fn extent(e: &Emulator, p: usize) -> Option<Extent> {
    if let Some((base, o)) = e.opened_at(p) {
        let size = asked(&o.props, o.len);
        return (p < base + size).then_some(Extent {
            base,
            size,
            kind: Kind::Opened,
            device: o.device,
            props: o.props,
        });
    }
    if let Some((base, len)) = e.plain_at(p) {
        let (_, m) = e.mapping(base)?;
        let info = e.describe(m.handle).ok()?;
        let size = asked(&info.props, len);
        let x = Extent { base, size, kind: Kind::Malloc(m.handle), device: info.owner, props: info.props };
        return (p < base + size).then_some(x);
    }
    if let Some((base, m)) = e.mapping(p) {
        let info = e.describe(m.handle).ok()?;
        return Some(Extent { base, size: m.len, kind: Kind::Vmm, device: info.owner, props: info.props });
    }
    if let Some((base, r)) = super::state::state(e).mem.range_at(p) {
        let kind = if r.managed.is_some() { Kind::Managed } else { Kind::Registered };
        return Some(Extent { base, size: r.len, kind, device: Place::Device(r.device), props: [0; 4] });
    }
    let (base, size) = e.host_at(p)?;
    let device = Place::Device(super::call::current_device());
    Some(Extent { base, size, kind: Kind::Host, device, props: [0; 4] })
}

/// Whether `p..p+n` is wholly memory HIP knows: within one allocation, or
/// mapped device memory across VMM mappings (hipMemset's check; the stream
/// memory operations use it too).
pub(super) fn is_known_range(e: &Emulator, p: usize, n: usize) -> bool {
    is_known_rows(e, p, n, std::iter::once((0, n)))
}

/// [`is_known_range`] for the rows `(offset, len)` of a 2-D or 3-D fill
/// spanning `p..p+span`: within one allocation, or, in hipMemMap memory,
/// each row mapped (mappings may leave holes between rows).
pub(super) fn is_known_rows(
    e: &Emulator,
    p: usize,
    span: usize,
    rows: impl IntoIterator<Item = (usize, usize)>,
) -> bool {
    match extent(e, p) {
        Some(x) if x.kind == Kind::Vmm => rows.into_iter().all(|(off, len)| e.is_device_range(p + off, len)),
        Some(x) => x.holds(p, span),
        None => false,
    }
}
