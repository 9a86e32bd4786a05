//! What holds an address: a plain allocation, an allocation of another
//! process opened here, a VMM mapping, or a host buffer; and which mappings
//! cover a range (exactly, for unmaps; with which access, for copies).
//!
//! Dialects narrow a plain allocation to the size the program asked for,
//! which they keep in the allocation's properties.

use crate::registry::Place;

use super::space::mapping_at;
use super::{Emulator, HandleId, Tables};

/// What kind of memory holds an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtentKind {
    /// A plain allocation of this process ([`Emulator::alloc_plain`]), with its physical handle.
    Plain(HandleId),
    /// Another process's plain allocation, opened here ([`Emulator::open_plain`]).
    Opened,
    /// A mapping made by the program into a reservation of its own ([`Emulator::map`]).
    Mapped(HandleId),
    /// A host buffer ([`Emulator::alloc_host`]).
    Host,
}

/// The allocation (or mapping) that holds an address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Extent {
    /// Its first address.
    pub base: usize,
    /// Its length: the whole backing (pages) of a plain or opened
    /// allocation, the mapping's length, or the host buffer's size.
    pub len: usize,
    /// What it is.
    pub kind: ExtentKind,
    /// The device the memory belongs to (`None` for host buffers).
    pub device: Option<Place>,
    /// The dialect-defined properties it was allocated with (zero for host buffers).
    pub props: [u64; 4],
}

fn extent(t: &Tables, p: usize) -> Option<Extent> {
    if let Some((&base, o)) = t.opened.range(..=p).next_back()
        && p < base + o.len
    {
        return Some(Extent { base, len: o.len, kind: ExtentKind::Opened, device: Some(o.device), props: o.props });
    }
    if let Some((start, m)) = mapping_at(t, p) {
        let info = t.handles.get(&m.handle)?;
        let plain = t.reservations.get(&m.rsv).is_some_and(|r| r.plain);
        let (base, len, kind) = if plain {
            (m.rsv, t.reservations[&m.rsv].range.len(), ExtentKind::Plain(m.handle))
        } else {
            (start, m.len, ExtentKind::Mapped(m.handle))
        };
        return Some(Extent { base, len, kind, device: Some(info.owner), props: info.props });
    }
    let (&start, &len) = t.host.range(..=p).next_back()?;
    (p < start + len).then_some(Extent { base: start, len, kind: ExtentKind::Host, device: None, props: [0; 4] })
}

impl Emulator {
    /// The allocation or mapping that holds `p`, if any.
    pub fn extent(&self, p: usize) -> Option<Extent> {
        extent(&self.lock(), p)
    }

    /// The starts of the mappings that tile `va..va+size` exactly: the first
    /// starts at `va`, each next one where the previous ends, and the last
    /// ends at `va+size`. `None` if the range is not so covered (a gap, a
    /// mapping cut by either end, a size of 0).
    pub fn exact_mappings(&self, va: usize, size: usize) -> Option<Vec<usize>> {
        let t = self.lock();
        let end = va.checked_add(size).filter(|_| size > 0)?;
        let mut at = va;
        let mut out = Vec::new();
        while at < end {
            let m = t.maps.get(&at)?;
            out.push(at);
            at += m.len;
        }
        (at == end).then_some(out)
    }

    /// Whether some mapping lies (in part) inside `base..base+len`.
    pub fn has_mappings_in(&self, base: usize, len: usize) -> bool {
        let t = self.lock();
        let end = base.saturating_add(len);
        let first = mapping_at(&t, base).is_some();
        first || t.maps.range(base..end).next().is_some()
    }

    /// The access `loc` has over all of `va..va+n`: the flags every mapping
    /// in the range grants it, combined with `&`. Plain and opened
    /// allocations have no grants and count as `plain_flags`; a mapping
    /// grants nothing to a location it was not granted to, its owner
    /// included ([CUDA-VMM-012](vmmkit_sys::cuda::rules::VMM_012)). `None` when some byte is not mapped.
    pub fn access_over(&self, va: usize, n: usize, loc: Place, plain_flags: u32) -> Option<u32> {
        let t = self.lock();
        let end = va.checked_add(n)?;
        let mut at = va;
        let mut flags = u32::MAX;
        while at < end {
            let (s, m) = mapping_at(&t, at)?;
            let plain = t.reservations.get(&m.rsv).is_some_and(|r| r.plain) || t.opened.contains_key(&m.rsv);
            let f = if plain {
                plain_flags
            } else {
                m.access.iter().find(|&&(l, _, _)| l == loc).map_or(0, |&(_, f, _)| f)
            };
            flags &= f;
            at = s + m.len;
        }
        Some(if n == 0 { 0 } else { flags })
    }
}
