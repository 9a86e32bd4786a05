//! The Ascend chip families vmmkit plays, one **profile** each: the SoC names
//! `aclrtGetSocName` answers, the address windows of the reservation calls,
//! the device count of one server and the features the family has or lacks.
//! The emulator plays one (`VMMKIT_SOC`); the conformance suite judges a
//! backend by the family of the name it reports ([`Chip::of_soc`]), and a
//! chip-dependent rule names the profile where its expectation differs
//! (`Rule::profiles`, [`PROFILE_910B`], [`PROFILE_A3`]).
//!
//! Sources (hicann/runtime and hicann/driver, read at the commits named in
//! `docs/audit/README.md`; Mooncake at 3b5a594):
//! - 910B names: `src/runtime/core/src/runtime.cc:721-743` (hardware version
//!   to `Ascend910B1` … `Ascend910B4-1`); A3 names: the platform files
//!   `src/platform/platform_config/cann/Ascend910_93*.ini`, and the set
//!   Mooncake and HIXL treat as A3 (`ascend_shared_segment.cpp:56-70`).
//! - Reserve window [16 TiB, 24 TiB): `DEVMM_SVM_MEM_START` and
//!   `DEVMM_MAX_MAPPED_RANGE` (driver `src/sdk_driver/svm/v2/command/ioctl/svm_define.h:96,114,120`).
//! - Dynamic window [24 TiB, 256 TiB) of `aclrtReserveMemAddressNoUCMemory`:
//!   `DEVMM_MAX_DYN_ALLOC_BASE` … `DEVMM_PROC_USER_VA_MAX_SIZE`
//!   (`svm_define.h:122-124`); the runtime sets flag bit 9 (`memory.cpp:2051`),
//!   the driver's `MEM_RSV_TYPE_REMOTE_MAP` (`pkg_inc/ascend_hal_define.h:827-828`),
//!   which reserves there (`devmm_svm.c:5630-5632`). Its page: A3 supported,
//!   Atlas A2 (910B) not (`docs/zh/api_ref/11-04_virtual_memory_management.md:294-299`).
//! - FABRIC handles need a server id (`api_impl.cc:7385-7396`, `:7444-7450`;
//!   `npu_driver.cc:1470-1478`: no server id is `RT_ERROR_DRV_NOT_SUPPORT`):
//!   A3 super-pods have one, 910B servers do not (acl.md §7.3).
//! - IPC by key, IPC events and notifies: both families (the pages of
//!   `aclrtIpcMemGetExportKey`, `aclrtIpcGetEventHandle`, `aclrtNotifyGetExportKey`).
//! - Devices of one server: 8 on an Atlas 800T A2 (910B); 16 on an A3 server
//!   (8 chips of 2 dies: Mooncake maps 4 devices to each of NUMA nodes 0, 2, 4, 6,
//!   `ascend_allocator.cpp:35-40`). Inferred from the product configurations.

use std::ffi::CStr;
use std::ops::Range;

/// The name of the 910B (Atlas A2) profile in the rule records.
pub const PROFILE_910B: &str = "910B";
/// The name of the A3 (Ascend910_93) profile in the rule records.
pub const PROFILE_A3: &str = "A3";
/// Every Ascend profile, the default first.
pub const PROFILES: &[&str] = &[PROFILE_A3, PROFILE_910B];

/// 1 TiB.
const TIB: usize = 1 << 40;

/// An Ascend chip family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Chip {
    /// Ascend 910B (Atlas A2 training and inference).
    Ascend910B,
    /// Ascend 910_93 (Atlas A3 training and inference, super-pods).
    A3,
}

impl Chip {
    /// Both families, the default first.
    pub const ALL: [Self; 2] = [Self::A3, Self::Ascend910B];
    /// The family the emulator plays when `VMMKIT_SOC` is unset.
    pub const DEFAULT: Self = Self::A3;

    /// The SoC names of the family, the one reported by default first.
    pub const fn soc_names(self) -> &'static [&'static CStr] {
        match self {
            Self::Ascend910B => {
                &[c"Ascend910B1", c"Ascend910B2", c"Ascend910B3", c"Ascend910B4", c"Ascend910B2C", c"Ascend910B4-1"]
            }
            Self::A3 => &[
                c"Ascend910_9391",
                c"Ascend910_9381",
                c"Ascend910_9392",
                c"Ascend910_9382",
                c"Ascend910_9372",
                c"Ascend910_9362",
            ],
        }
    }

    /// The SoC name reported by default.
    pub const fn default_soc(self) -> &'static CStr {
        self.soc_names()[0]
    }

    /// The profile name in the rule records.
    pub const fn profile(self) -> &'static str {
        match self {
            Self::Ascend910B => PROFILE_910B,
            Self::A3 => PROFILE_A3,
        }
    }

    /// The family of a SoC name `aclrtGetSocName` answered (exact match).
    pub fn of_soc(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.soc_names().iter().any(|n| n.to_bytes() == name.as_bytes()))
    }

    /// The family and SoC name `text` names: a SoC name (any case), or the
    /// family as `910B`, `A2`, `A3` or `910_93` (its default SoC).
    pub fn parse(text: &str) -> Option<(Self, &'static CStr)> {
        let t = text.trim();
        for chip in Self::ALL {
            if let Some(n) = chip.soc_names().iter().find(|n| n.to_string_lossy().eq_ignore_ascii_case(t)) {
                return Some((chip, n));
            }
        }
        match t.to_ascii_uppercase().as_str() {
            "910B" | "A2" | "ASCEND910B" => Some((Self::Ascend910B, Self::Ascend910B.default_soc())),
            "A3" | "910_93" | "910C" | "ASCEND910_93" => Some((Self::A3, Self::A3.default_soc())),
            _ => None,
        }
    }

    /// Where `aclrtReserveMemAddress` places reservations: [16 TiB, 24 TiB)
    /// on both families (`svm_define.h:96,120`).
    pub const fn reserve_window(self) -> Range<usize> {
        16 * TIB..24 * TIB
    }

    /// Where `aclrtReserveMemAddressNoUCMemory` reserves at a chosen
    /// address: [24 TiB, 256 TiB) on A3 (`svm_define.h:122-124`); none on
    /// 910B, whose page says the call is unsupported there.
    pub const fn no_uc_window(self) -> Option<Range<usize>> {
        match self {
            Self::A3 => Some(24 * TIB..256 * TIB),
            Self::Ascend910B => None,
        }
    }

    /// Whether FABRIC shareable handles work (a server id): A3 only.
    pub const fn has_fabric(self) -> bool {
        matches!(self, Self::A3)
    }

    /// Whether IPC memory by key (`aclrtIpcMem*`) is there: both families.
    pub const fn has_ipc_key(self) -> bool {
        true
    }

    /// Whether notifies (and IPC notifies by key) are there: both families.
    pub const fn has_notify(self) -> bool {
        true
    }

    /// Devices of one server: 8 (910B), 16 (A3).
    pub const fn default_devices(self) -> u32 {
        match self {
            Self::Ascend910B => 8,
            Self::A3 => 16,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_to_their_family_and_back() {
        for chip in Chip::ALL {
            for n in chip.soc_names() {
                let s = n.to_str().expect("ASCII");
                assert_eq!(Chip::of_soc(s), Some(chip));
                assert_eq!(Chip::parse(&s.to_ascii_lowercase()), Some((chip, *n)));
            }
        }
        assert_eq!(Chip::parse("910b"), Some((Chip::Ascend910B, c"Ascend910B1")));
        assert_eq!(Chip::parse("A3"), Some((Chip::A3, c"Ascend910_9391")));
        assert_eq!(Chip::parse("Ascend310P3"), None);
        assert_eq!(Chip::of_soc("ascend910b1"), None, "of_soc is exact, as a backend's answer is");
    }

    #[test]
    fn windows_do_not_overlap_and_only_a3_has_the_dynamic_one() {
        let a3 = Chip::A3.no_uc_window().expect("A3");
        assert!(a3.start >= Chip::A3.reserve_window().end);
        assert!(a3.contains(&(78 * TIB)), "Mooncake's A3 address");
        assert_eq!(Chip::Ascend910B.no_uc_window(), None);
    }
}
