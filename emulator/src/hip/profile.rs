//! The HIP release the emulator answers as: the **6.x profile** (6.3, the
//! reference's default) or the **7.x profile** (7.0), chosen by
//! `VMMKIT_HIP_VERSION` ([`HipVersion`]) or, when it is unset, by the
//! library name the drop-in was loaded under (`libamdhip64.so.7`: 7.0). Where releases differ, the rule
//! records carry the expectation of each profile
//! (`vmmkit_sys::rule::ProfileExpect`); the dialect answers the one of the
//! profile it plays ([`main_code`], and `ensure!` in `call.rs`).

use std::sync::OnceLock;

use vmmkit_sys::hip::{HipError, hip_version, rules};
use vmmkit_sys::rule::Rule;

use crate::config::HipVersion;
use crate::core::{DEVICE_WINDOW, Window};

/// The profile a process plays: one per process, read once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Profile {
    /// ROCm 6.x (clr 6.0–6.4; sources: 6.3).
    V6,
    /// ROCm 7.x (clr in ROCm/rocm-systems).
    V7,
}

/// The version `VMMKIT_HIP_VERSION` names, or the reason it is unusable;
/// unset, the release of the library name this code was loaded under
/// ([`HipVersion::of_library_name`]: a program linked against
/// `libamdhip64.so.7` gets 7.0), else the default 6.3. Read once per process.
pub(super) fn version() -> Result<HipVersion, crate::ConfigError> {
    static VERSION: OnceLock<Result<HipVersion, crate::ConfigError>> = OnceLock::new();
    VERSION
        .get_or_init(|| match std::env::var_os(HipVersion::VAR).filter(|v| !v.is_empty()) {
            Some(_) => HipVersion::from_env(),
            None => Ok(loaded_name().as_deref().and_then(HipVersion::of_library_name).unwrap_or(HipVersion::DEFAULT)),
        })
        .clone()
}

/// The path of the object this code lives in, as the dynamic loader opened
/// it (`dladdr`: the link map's name, e.g. `/opt/lib/libamdhip64.so.7` when
/// a program's `DT_NEEDED` asked for that name, symlink not resolved); the
/// executable's path (or nothing) when the emulator is linked in statically.
fn loaded_name() -> Option<String> {
    let mut info = std::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    let here = loaded_name as *const () as *const libc::c_void;
    // SAFETY: dladdr reads the address only to look it up and fills `info`,
    // a live local, on success (non-zero).
    let found = unsafe { libc::dladdr(here, info.as_mut_ptr()) } != 0;
    // SAFETY: filled by dladdr when it succeeded (zeroed otherwise).
    let info = unsafe { info.assume_init() };
    if !found || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: a non-NULL dli_fname is the loader's NUL-terminated name of a
    // loaded object, which lives as long as the object (this code's own).
    Some(unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }.to_string_lossy().into_owned())
}

/// The profile of this process: that of [`version`], 6.x when it is unusable
/// (the emulator then refuses to start, naming the variable).
pub(super) fn profile() -> Profile {
    match version() {
        Ok(HipVersion { major: 7, .. }) => Profile::V7,
        _ => Profile::V6,
    }
}

/// Whether this process plays the 7.x profile.
pub(super) fn is_v7() -> bool {
    profile() == Profile::V7
}

/// The profile's name in the rule records ([`rules::PROFILE_6`], [`rules::PROFILE_7`]).
pub(super) fn name() -> &'static str {
    match profile() {
        Profile::V6 => rules::PROFILE_6,
        Profile::V7 => rules::PROFILE_7,
    }
}

/// `HIP_VERSION` of both version queries. The patch field of a real release
/// is a build number the reference does not give; vmmkit reports 0 there.
pub(super) fn hip_version_value() -> Result<i32, crate::ConfigError> {
    version().map(|v| hip_version(v.major as i32, v.minor as i32, 0))
}

/// The main code of `rule` under this process's profile.
///
/// # Panics
/// When the record lists no HIP code (a dialect defect, as `dialect::main_code`).
pub(super) fn main_code(rule: &'static Rule) -> HipError {
    match rule.code_in(Some(name())).map(HipError::try_from) {
        Some(Ok(c)) => c,
        _ => panic!("{}: its record lists no HIP code", rule.id),
    }
}

/// [HIP-VMM-002](vmmkit_sys::hip::rules::VMM_002): both granularity options give 4096 on AMD GPUs (6.x, 7.x).
pub(super) const GRANULARITY: u64 = 4096;

/// [HIP-VMM-006](vmmkit_sys::hip::rules::VMM_006): hipMemCreate sizes are multiples of 2048 (the base-address alignment).
pub(super) const CREATE_MULTIPLE: usize = 2048;

/// §3.2: `hipIpcMemLazyEnablePeerAccess` is 0 in ≤5.7 and 1 from 6.0; the
/// emulator accepts both and rejects every other value.
pub(super) const LAZY_FLAGS: [u32; 2] =
    [vmmkit_sys::hip::hipIpcMemLazyEnablePeerAccess_R0500, vmmkit_sys::hip::hipIpcMemLazyEnablePeerAccess_R0600];

/// [HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026): an `osHandle` below this is an fd value, anything else an `int*`.
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
