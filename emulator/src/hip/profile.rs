//! The HIP release the emulator answers as: the **6.x profile**, the
//! reference's default (hip.md "Eras"; its §6 table gives the choice per
//! topic). Where releases differ, the value used is the 6.x one.

use vmmkit_sys::hip::hip_version;

use crate::core::{DEVICE_WINDOW, Window};

/// `HIP_VERSION` of both version queries: 6.3. The patch field of a real
/// release is a build number the reference does not give for 6.x; vmmkit
/// reports 0 there.
pub(super) const HIP_VERSION: i32 = hip_version(6, 3, 0);

/// HIP-VMM-002: both granularity options give 4096 on AMD GPUs (6.x, 7.x).
pub(super) const GRANULARITY: u64 = 4096;

/// HIP-VMM-006: hipMemCreate sizes are multiples of 2048 (the base-address alignment).
pub(super) const CREATE_MULTIPLE: usize = 2048;

/// §3.2: `hipIpcMemLazyEnablePeerAccess` is 0 in ≤5.7 and 1 from 6.0; the
/// emulator accepts both and rejects every other value.
pub(super) const LAZY_FLAGS: [u32; 2] =
    [vmmkit_sys::hip::hipIpcMemLazyEnablePeerAccess_R0500, vmmkit_sys::hip::hipIpcMemLazyEnablePeerAccess_R0600];

/// HIP-VMM-026: an `osHandle` below this is an fd value, anything else an `int*`.
pub(super) const FD_VALUE_LIMIT: usize = 1 << 20;

/// Device addresses: the window every dialect shares.
pub(super) const WINDOW: Window = DEVICE_WINDOW;

/// §4.5: attribute 89 reads 1 in the 6.x/7.x profiles.
pub(super) const VMM_SUPPORTED: i32 = 1;

/// What the emulated devices call themselves (hip.md §2.1 lists the fields, not values).
pub(super) const DEVICE_NAME: &str = "vmmkit emulated AMD GPU";
/// `gcnArchName`: an MI300-class architecture, so programs that branch on it take the current path.
pub(super) const ARCH_NAME: &str = "gfx942:sramecc+:xnack-";
/// `major`, `minor`, `gcnArch` of that architecture.
pub(super) const ARCH: (i32, i32, i32) = (9, 4, 942);
/// `warpSize` of AMD GPUs.
pub(super) const WARP_SIZE: i32 = 64;
/// Compute units reported.
pub(super) const COMPUTE_UNITS: i32 = 304;
