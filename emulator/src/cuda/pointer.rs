//! What an address is to CUDA, and whether a copy may touch it.
//!
//! cuMemAlloc memory is a plain allocation of the core rounded up to whole
//! pages; the size the program asked for is kept in the allocation's
//! properties (`profile::KIND_ALLOC`), so bounds, cuMemGetAddressRange and
//! an importer's view use it.

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::{CU_MEM_ACCESS_FLAGS_PROT_READ, CU_MEM_ACCESS_FLAGS_PROT_READWRITE, CuResult};

use super::call::{Fail, ensure};
use super::profile::KIND_ALLOC;
use crate::core::{Emulator, Extent, ExtentKind};
use crate::registry::Place;

/// The allocation or mapping that holds `p`, with a plain allocation
/// narrowed to the size the program asked for; `None` past it.
pub(super) fn extent(e: &Emulator, p: usize) -> Option<Extent> {
    let mut x = e.extent(p)?;
    if matches!(x.kind, ExtentKind::Plain(_) | ExtentKind::Opened) && x.props[0] == KIND_ALLOC {
        x.len = (x.props[2] as usize).min(x.len);
    }
    (p < x.base + x.len).then_some(x)
}

/// Whether `p` lies in memory the program mapped itself (cuMemMap), as the
/// VMM calls that take an address require.
pub(super) fn is_vmm(e: &Emulator, p: usize) -> bool {
    matches!(extent(e, p).map(|x| x.kind), Some(ExtentKind::Mapped(_)))
}

/// How a copy uses a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Use {
    Read,
    Write,
}

/// Checks that `p..p+n` is device memory that the device `d` (the current
/// context's) may read or write: wholly inside one allocation (within the
/// size asked for), or wholly mapped; and, for cuMemMap'ed memory, granted
/// to `d` by cuMemSetAccess ([CUDA-VMM-012](vmmkit_sys::cuda::rules::VMM_012): a mapping grants no access).
pub(super) fn check_device_range(e: &Emulator, p: usize, n: usize, d: u32, how: Use, what: &str) -> Result<(), Fail> {
    let x = extent(e, p)
        .filter(|x| x.kind != ExtentKind::Host)
        .ok_or_else(|| Fail::plain(CuResult::INVALID_VALUE, format!("{what} {p:#x} is not device memory")))?;
    let inside = match x.kind {
        ExtentKind::Mapped(_) => e.is_device_range(p, n),
        _ => p.checked_add(n).is_some_and(|end| end <= x.base + x.len),
    };
    if !inside {
        return Err(Fail::plain(
            CuResult::INVALID_VALUE,
            format!("{what} {p:#x}+{n:#x} runs past its allocation or mapping ({:#x}+{:#x})", x.base, x.len),
        ));
    }
    let need = match how {
        Use::Read => CU_MEM_ACCESS_FLAGS_PROT_READ,
        Use::Write => CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    let granted = e.access_over(p, n, Place::Device(d), CU_MEM_ACCESS_FLAGS_PROT_READWRITE).unwrap_or(0);
    ensure!(
        granted & need == need,
        rules::VMM_012,
        "{what} {p:#x}+{n:#x}: device {d} has access {granted} there, {need} is needed (cuMemSetAccess grants it)"
    );
    Ok(())
}
