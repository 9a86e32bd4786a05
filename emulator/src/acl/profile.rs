//! The Ascend chip the ACL dialect plays, chosen by `VMMKIT_SOC`
//! ([`AscendSoc`]): the name `aclrtGetSocName` answers, the address windows
//! of the reservation calls and the features of the family
//! (`vmmkit_sys::acl::chips`, with the sources). One per process, read once.

use std::sync::OnceLock;

use vmmkit_sys::acl::Chip;

use crate::config::AscendSoc;
use crate::core::Window;

/// The chip of this process: that `VMMKIT_SOC` names, the default when it
/// is unset or names no known chip (`Config::from_env` then refuses to
/// start, naming the variable).
pub(super) fn soc() -> AscendSoc {
    static SOC: OnceLock<AscendSoc> = OnceLock::new();
    *SOC.get_or_init(|| AscendSoc::from_env().unwrap_or(AscendSoc::DEFAULT))
}

/// The family of this process's chip.
pub(super) fn chip() -> Chip {
    soc().chip
}

/// The highest user address of the host's 4-level page tables (128 TiB on
/// x86-64 and arm64 with 48-bit addresses): the end of every window the
/// emulator can place mappings in.
const HOST_USER_END: usize = 128 << 40;

/// Where `aclrtReserveMemAddressNoUCMemory` reserves at a chosen address,
/// if the chip has such a window: the driver's [24 TiB, 256 TiB) on A3, cut
/// at the host's 128 TiB of user space (the host maps its own libraries
/// and stacks just below that, so a chosen address there is refused as
/// one in use).
pub(super) fn no_uc_window() -> Option<Window> {
    chip().no_uc_window().map(|w| Window(w.start..w.end.min(HOST_USER_END)))
}
