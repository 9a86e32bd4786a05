//! The emulator's settings: made in code ([`Config::new`] and its `with_`
//! setters, then [`crate::install`]), or read from the environment once per
//! process when nothing was installed:
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `VMMKIT_ROOT` | shared-state directory of one emulated machine | `/dev/shm/vmmkit-<uid>` |
//! | `VMMKIT_DEVICES` | emulated device count (1..=64) | the chip's: 16 (A3), 8 (910B) |
//! | `VMMKIT_DEVICE_MEMORY` | bytes per device (`64G`, `512M`, `1073741824`) | 64 GiB |
//! | `VMMKIT_HOST_MEMORY` | bytes of memory at the HOST location, as `VMMKIT_DEVICE_MEMORY` | `MemAvailable` of `/proc/meminfo` when first read (64 GiB if unreadable) |
//! | `VMMKIT_HOST_ACCESS` | `1`: host code may dereference device addresses; `0`: as on hardware, it faults | 1 |
//! | `VMMKIT_STREAMS` | how stream work is scheduled: `eager` (done before the enqueuing call returns), `async` (in order, apart from the caller, as on a device), `adversarial[:SEED]` (each piece of work at the latest moment the vendor's ordering allows; independent streams reordered, seeded) | `async` |
//! | `VMMKIT_HAZARDS` | what an unsynchronised access does: `report` (printed, kept for `take_hazards` and `vmmkit run`), `error` (also fails the racing call, for CI; docs/streams.md), `off` (no check: no clocks, no accesses kept) | `report` |
//! | `VMMKIT_SOC` | the Ascend chip the ACL dialect plays: a SoC name (`Ascend910B1` … `Ascend910B4-1`, `Ascend910_9391` … `Ascend910_9362`) or a family (`910B`, `A3`); it decides `aclrtGetSocName`, the address windows, FABRIC handles and the default device count ([`AscendSoc`]) | `Ascend910_9391` (A3) |
//! | `VMMKIT_HIP_VERSION` | the HIP release the HIP dialect answers as: `6` (6.3), `7` (7.0), or `MAJOR.MINOR` of 6.x or 7.x | `6` |
//!
//! `VMMKIT_HIP_VERSION` and `VMMKIT_SOC` are read from the environment even
//! when settings are installed in code (each is one process's choice of
//! vendor release or chip); [`Config::from_env`] refuses a bad value, naming it.

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

use vmmkit_sys::acl::Chip;

/// Most devices an emulated machine can have. ACL accepts device ids below 64
/// in its access descriptors (acl.md §2.6), and the shareable handle has 8
/// bits of device id.
pub const MAX_DEVICES: u32 = 64;

/// The HIP release the HIP dialect answers as (`VMMKIT_HIP_VERSION`): its
/// codes follow the profile of the major version (docs/hip.md, "Version profiles").
///
/// ```
/// use vmmkit_emulator::HipVersion;
/// assert_eq!(HipVersion::parse("7"), Some(HipVersion { major: 7, minor: 0 }));
/// assert_eq!(HipVersion::parse("6.2"), Some(HipVersion { major: 6, minor: 2 }));
/// assert_eq!(HipVersion::parse("5"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HipVersion {
    /// 6 or 7: the profile.
    pub major: u32,
    /// The minor release reported by the version queries.
    pub minor: u32,
}

impl HipVersion {
    /// The default: 6.3, the reference's profile.
    pub const DEFAULT: Self = Self { major: 6, minor: 3 };
    /// The environment variable.
    pub const VAR: &'static str = "VMMKIT_HIP_VERSION";

    /// `6`, `7` (their default minors, 6.3 and 7.0) or `MAJOR.MINOR` with a
    /// major of 6 or 7 and a minor below 100.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let (major, minor) = match s.split_once('.') {
            Some((a, b)) => (a.parse().ok()?, Some(b.parse::<u32>().ok().filter(|&m| m < 100)?)),
            None => (s.parse().ok()?, None),
        };
        let default_minor = match major {
            6 => 3,
            7 => 0,
            _ => return None,
        };
        Some(Self { major, minor: minor.unwrap_or(default_minor) })
    }

    /// The version `VMMKIT_HIP_VERSION` names, through `get` (the default when unset or empty).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the variable when its value is not a version of 6.x or 7.x.
    pub fn from_lookup(get: impl Fn(&str) -> Option<OsString>) -> Result<Self, ConfigError> {
        profile_from(
            get,
            Self::VAR,
            Self::DEFAULT,
            Self::parse,
            "must be a HIP version of the 6.x or 7.x profile: 6, 6.3, 7, 7.0, …",
        )
    }

    /// The version the process environment names.
    ///
    /// # Errors
    /// As [`HipVersion::from_lookup`].
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|k| std::env::var_os(k))
    }

    /// The release of a HIP library file `name` (a path or a file name):
    /// `libamdhip64.so.MAJOR[.MINOR[.BUILD]]` with a major of 5, 6 or 7, the
    /// names ROCm 5, 6 and 7 install and programs built against them ask
    /// for. Without a minor: 5.7, 6.3, 7.0. A 5.x library plays the 6.x
    /// profile's codes (the catalog has none of its own) and reports 5.x.
    ///
    /// ```
    /// use vmmkit_emulator::HipVersion;
    /// assert_eq!(HipVersion::of_library_name("/opt/x/libamdhip64.so.7"), Some(HipVersion { major: 7, minor: 0 }));
    /// assert_eq!(HipVersion::of_library_name("libamdhip64.so.6.4.60400"), Some(HipVersion { major: 6, minor: 4 }));
    /// assert_eq!(HipVersion::of_library_name("libamdhip64.so.5"), Some(HipVersion { major: 5, minor: 7 }));
    /// assert_eq!(HipVersion::of_library_name("libamdhip64.so"), None);
    /// ```
    pub fn of_library_name(name: &str) -> Option<Self> {
        let file = name.rsplit('/').next()?;
        let rest = file.strip_prefix("libamdhip64.so.")?;
        let mut parts = rest.split('.');
        let major: u32 = parts.next()?.parse().ok()?;
        let minor = match parts.next() {
            Some(m) => Some(m.parse::<u32>().ok().filter(|&m| m < 100)?),
            None => None,
        };
        let default_minor = match major {
            5 => 7,
            6 => 3,
            7 => 0,
            _ => return None,
        };
        Some(Self { major, minor: minor.unwrap_or(default_minor) })
    }

    /// How the HIP release is chosen in a process with this environment,
    /// in words (for `vmmkit run` and `vmmkit doctor`).
    pub fn rule_in_force(get: impl Fn(&str) -> Option<OsString>) -> String {
        match get(Self::VAR).filter(|v| !v.is_empty()) {
            Some(v) => match Self::from_lookup(&get) {
                Ok(h) => format!("HIP {}.{} ({}={})", h.major, h.minor, Self::VAR, v.to_string_lossy()),
                Err(e) => format!("HIP: {e}"),
            },
            None => format!(
                "HIP release of the library name loaded (libamdhip64.so.5: 5.7, .so.6: 6.3, .so.7: 7.0; other names \
                 {}.{}); {} overrides",
                Self::DEFAULT.major,
                Self::DEFAULT.minor,
                Self::VAR
            ),
        }
    }
}

/// The Ascend chip the ACL dialect plays (`VMMKIT_SOC`): a family of
/// [`Chip`] and the SoC name `aclrtGetSocName` answers. Names, windows,
/// features and the default device count come from the family
/// (`vmmkit_sys::acl::chips`, with the sources).
///
/// ```
/// use vmmkit_emulator::AscendSoc;
/// use vmmkit_sys::acl::Chip;
/// let soc = AscendSoc::parse("Ascend910B3").unwrap();
/// assert_eq!((soc.chip, soc.name.to_str().unwrap()), (Chip::Ascend910B, "Ascend910B3"));
/// assert_eq!(AscendSoc::DEFAULT.name.to_str().unwrap(), "Ascend910_9391");
/// assert_eq!(AscendSoc::parse("910B").unwrap().name.to_str().unwrap(), "Ascend910B1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AscendSoc {
    /// The family: windows, features, device count.
    pub chip: Chip,
    /// What `aclrtGetSocName` answers.
    pub name: &'static std::ffi::CStr,
}

impl AscendSoc {
    /// The default: `Ascend910_9391`, an A3, whose windows and FABRIC
    /// handles the emulator has (so name and behaviour agree).
    pub const DEFAULT: Self = Self { chip: Chip::DEFAULT, name: Chip::DEFAULT.default_soc() };
    /// The environment variable.
    pub const VAR: &'static str = "VMMKIT_SOC";

    /// A SoC name of a known family (any case) or a family (`910B`, `A3`).
    pub fn parse(s: &str) -> Option<Self> {
        Chip::parse(s).map(|(chip, name)| Self { chip, name })
    }

    /// The chip `VMMKIT_SOC` names, through `get` (the default when unset or empty).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the variable when its value names no known chip.
    pub fn from_lookup(get: impl Fn(&str) -> Option<OsString>) -> Result<Self, ConfigError> {
        let reason = "must name an Ascend 910B or A3 chip: Ascend910B1 … Ascend910B4-1, Ascend910_9391 … \
                      Ascend910_9362, 910B or A3";
        profile_from(get, Self::VAR, Self::DEFAULT, Self::parse, reason)
    }

    /// The chip the process environment names.
    ///
    /// # Errors
    /// As [`AscendSoc::from_lookup`].
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|k| std::env::var_os(k))
    }
}

/// The profiles a process started with this environment plays, in words
/// (for `vmmkit run` and `vmmkit doctor`): the Ascend chip and how the HIP
/// release is chosen.
pub fn profiles_in_force(get: impl Fn(&str) -> Option<OsString>) -> String {
    let acl = match AscendSoc::from_lookup(&get) {
        Ok(soc) => format!("ACL chip {} ({} profile)", soc.name.to_string_lossy(), soc.chip.profile()),
        Err(e) => format!("ACL: {e}"),
    };
    format!("{acl}; {}; {}", HipVersion::rule_in_force(&get), masks_in_force(&get))
}

/// The visible-device lists in force, vendor by vendor (`visible.rs`), for
/// `vmmkit doctor` and `vmmkit run`: "all N devices" when none is set.
fn masks_in_force(get: &impl Fn(&str) -> Option<OsString>) -> String {
    use crate::visible::{MaskVendor, Visible};
    let devices = Config::from_lookup(get).map_or(Config::DEFAULT_DEVICES, |c| c.devices);
    let shown: Vec<String> = [("HIP", MaskVendor::Hip), ("CUDA", MaskVendor::Cuda), ("ACL", MaskVendor::Acl)]
        .into_iter()
        .map(|(name, v)| (name, Visible::from_lookup(v, devices, get)))
        .filter(|(_, v)| !v.source.is_empty())
        .map(|(name, v)| format!("{name} sees {}", v.describe()))
        .collect();
    if shown.is_empty() {
        format!("every vendor sees all {devices} devices (no *_VISIBLE_DEVICES set)")
    } else {
        shown.join("; ")
    }
}

/// How the work of streams is scheduled (`VMMKIT_STREAMS`), read from the
/// environment when the emulator starts, like [`HipVersion`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Schedule {
    /// Work is done before the call that enqueues it returns (a stream
    /// blocked on an event not yet reached keeps the rest for later).
    Eager,
    /// Work runs in order within a stream, apart from the caller, as soon as
    /// what it waits on allows: a device's behaviour.
    #[default]
    Async,
    /// Work is held until something needs it done (a synchronize, a query,
    /// a wait of another stream or process on an event after it), and
    /// independent streams run in an order drawn from `seed`: a program
    /// that reads before it synchronises sees stale data every time.
    Adversarial {
        /// Seeds the order of independent streams (reproducible runs).
        seed: u64,
    },
}

impl Schedule {
    /// The variable that names it.
    pub const VAR: &'static str = "VMMKIT_STREAMS";
    /// The seed of `adversarial` without one.
    pub const DEFAULT_SEED: u64 = 0x5eed;

    /// `eager`, `async`, `adversarial` or `adversarial:SEED`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "eager" => Some(Self::Eager),
            "async" => Some(Self::Async),
            "adversarial" => Some(Self::Adversarial { seed: Self::DEFAULT_SEED }),
            other => {
                let seed = other.strip_prefix("adversarial:")?.trim().parse().ok()?;
                Some(Self::Adversarial { seed })
            }
        }
    }

    /// The schedule `VMMKIT_STREAMS` names, through `get` (the default when unset or empty).
    ///
    /// # Errors
    /// A [`ConfigError`] when the value is not one of the above.
    pub fn from_lookup(get: impl Fn(&str) -> Option<OsString>) -> Result<Self, ConfigError> {
        match get(Self::VAR) {
            None => Ok(Self::default()),
            Some(v) if v.is_empty() => Ok(Self::default()),
            Some(v) => {
                let text = v.to_string_lossy().into_owned();
                Self::parse(&text).ok_or(ConfigError {
                    var: Self::VAR,
                    value: text,
                    reason: "must be eager, async, adversarial or adversarial:SEED".into(),
                })
            }
        }
    }

    /// The schedule of the process environment.
    ///
    /// # Errors
    /// As [`Schedule::from_lookup`].
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|k| std::env::var_os(k))
    }
}

/// Settings of one emulated machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The shared-state directory: all processes with the same root see the same devices.
    pub root: PathBuf,
    /// Number of devices.
    pub devices: u32,
    /// Capacity of each device in bytes.
    pub device_memory: u64,
    /// Capacity of the HOST location (physical allocations placed on the
    /// host) in bytes.
    pub host_memory: u64,
    /// Whether device mappings are readable and writable by host code.
    pub host_access: bool,
}

/// A vendor profile one process chooses by `var` (`VMMKIT_HIP_VERSION`,
/// `VMMKIT_SOC`), looked up through `get`: `default` when unset or empty,
/// else what `parse` makes of it, or a [`ConfigError`] saying `reason`.
fn profile_from<T>(
    get: impl Fn(&str) -> Option<OsString>,
    var: &'static str,
    default: T,
    parse: impl Fn(&str) -> Option<T>,
    reason: &str,
) -> Result<T, ConfigError> {
    let Some(v) = get(var).filter(|v| !v.is_empty()) else { return Ok(default) };
    let value = v.to_string_lossy().into_owned();
    parse(&value).ok_or_else(|| ConfigError { var, value, reason: reason.into() })
}

/// A setting that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}={value:?}: {reason}")]
pub struct ConfigError {
    /// The environment variable.
    pub var: &'static str,
    /// Its value.
    pub value: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Config {
    /// Default number of devices: those of the default chip's server
    /// ([`AscendSoc::DEFAULT`], 16); from the environment, those of the
    /// chip `VMMKIT_SOC` names.
    pub const DEFAULT_DEVICES: u32 = Chip::DEFAULT.default_devices();
    /// Default capacity of a device: 64 GiB.
    pub const DEFAULT_DEVICE_MEMORY: u64 = 64 << 30;
    /// Capacity of the HOST location when `/proc/meminfo` cannot be read: 64 GiB.
    pub const FALLBACK_HOST_MEMORY: u64 = 64 << 30;

    /// Default capacity of the HOST location: `MemAvailable` of
    /// `/proc/meminfo` as this process first read it (one value per process,
    /// so two default configs compare equal), or
    /// [`Config::FALLBACK_HOST_MEMORY`] where it cannot be read.
    pub fn default_host_memory() -> u64 {
        static AVAILABLE: OnceLock<u64> = OnceLock::new();
        *AVAILABLE.get_or_init(|| {
            std::fs::read_to_string("/proc/meminfo")
                .ok()
                .and_then(|text| mem_available(&text))
                .unwrap_or(Self::FALLBACK_HOST_MEMORY)
        })
    }

    /// The settings of a machine whose shared state lives in `root`, with
    /// the default devices, memory and host access (the environment is not read).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            devices: Self::DEFAULT_DEVICES,
            device_memory: Self::DEFAULT_DEVICE_MEMORY,
            host_memory: Self::default_host_memory(),
            host_access: true,
        }
    }

    /// With its shared state in `root` (an absolute path).
    #[must_use]
    pub fn with_root(self, root: impl Into<PathBuf>) -> Self {
        Self { root: root.into(), ..self }
    }

    /// With `devices` devices (1 to [`MAX_DEVICES`]; [`crate::install`] refuses others).
    #[must_use]
    pub fn with_devices(self, devices: u32) -> Self {
        Self { devices, ..self }
    }

    /// With `bytes` of memory per device.
    #[must_use]
    pub fn with_device_memory(self, bytes: u64) -> Self {
        Self { device_memory: bytes, ..self }
    }

    /// With `bytes` of memory at the HOST location.
    #[must_use]
    pub fn with_host_memory(self, bytes: u64) -> Self {
        Self { host_memory: bytes, ..self }
    }

    /// With host code allowed (`true`) or not (`false`, as on hardware) to
    /// dereference device addresses.
    #[must_use]
    pub fn with_host_access(self, allowed: bool) -> Self {
        Self { host_access: allowed, ..self }
    }

    /// Checks the settings as [`Config::from_env`] checks the environment.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the setting (by its variable) that is unusable.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = |var, value: String, reason: &str| Err(ConfigError { var, value, reason: reason.into() });
        if !self.root.is_absolute() {
            return bad("VMMKIT_ROOT", self.root.display().to_string(), "must be an absolute path");
        }
        if !(1..=MAX_DEVICES).contains(&self.devices) {
            return bad("VMMKIT_DEVICES", self.devices.to_string(), &format!("must be from 1 to {MAX_DEVICES}"));
        }
        if self.device_memory == 0 {
            return bad("VMMKIT_DEVICE_MEMORY", "0".into(), "must be a positive byte count");
        }
        if self.host_memory == 0 {
            return bad("VMMKIT_HOST_MEMORY", "0".into(), "must be a positive byte count");
        }
        Ok(())
    }

    /// Reads the settings from the process environment.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the variable whose value is unusable.
    pub fn from_env() -> Result<Self, ConfigError> {
        Self::from_lookup(|k| std::env::var_os(k))
    }

    /// Reads the settings through `get` (a stand-in for the environment in tests).
    ///
    /// # Errors
    /// As [`Config::from_env`].
    pub fn from_lookup(get: impl Fn(&str) -> Option<OsString>) -> Result<Self, ConfigError> {
        HipVersion::from_lookup(&get)?;
        Schedule::from_lookup(&get)?;
        let soc = AscendSoc::from_lookup(&get)?;
        let text = |var: &'static str| -> Result<Option<String>, ConfigError> {
            match get(var) {
                None => Ok(None),
                Some(v) if v.is_empty() => Ok(None),
                Some(v) => v.into_string().map(Some).map_err(|v| ConfigError {
                    var,
                    value: v.to_string_lossy().into_owned(),
                    reason: "not valid UTF-8".into(),
                }),
            }
        };
        let root = match get("VMMKIT_ROOT") {
            // Set but empty is a mistake to name (an unset variable in a
            // script), not a request for the shared default root.
            Some(v) if v.is_empty() => {
                return Err(ConfigError {
                    var: "VMMKIT_ROOT",
                    value: String::new(),
                    reason: format!("is set but empty; unset it for the default root, {}", default_root().display()),
                });
            }
            Some(v) => {
                let p = PathBuf::from(v);
                if !p.is_absolute() {
                    return Err(ConfigError {
                        var: "VMMKIT_ROOT",
                        value: p.display().to_string(),
                        reason: "must be an absolute path".into(),
                    });
                }
                p
            }
            None => default_root(),
        };
        let devices = match text("VMMKIT_DEVICES")? {
            None => soc.chip.default_devices(),
            Some(v) => match v.trim().parse::<u32>() {
                Ok(n) if (1..=MAX_DEVICES).contains(&n) => n,
                _ => {
                    return Err(ConfigError {
                        var: "VMMKIT_DEVICES",
                        value: v,
                        reason: format!("must be a whole number from 1 to {MAX_DEVICES}"),
                    });
                }
            },
        };
        let bytes = |var: &'static str, default: fn() -> u64| -> Result<u64, ConfigError> {
            match text(var)? {
                None => Ok(default()),
                Some(v) => parse_bytes(&v).filter(|&n| n > 0).ok_or_else(|| ConfigError {
                    var,
                    value: v.clone(),
                    reason: "must be a positive byte count such as 68719476736, 64G or 512M".into(),
                }),
            }
        };
        let device_memory = bytes("VMMKIT_DEVICE_MEMORY", || Self::DEFAULT_DEVICE_MEMORY)?;
        let host_memory = bytes("VMMKIT_HOST_MEMORY", Self::default_host_memory)?;
        let host_access = match text("VMMKIT_HOST_ACCESS")?.as_deref().map(str::trim) {
            None | Some("1") => true,
            Some("0") => false,
            Some(v) => {
                return Err(ConfigError {
                    var: "VMMKIT_HOST_ACCESS",
                    value: v.into(),
                    reason: "must be 0 or 1".into(),
                });
            }
        };
        Ok(Self { root, devices, device_memory, host_memory, host_access })
    }
}

/// `/dev/shm/vmmkit-<uid>`: one emulated machine per user by default.
pub fn default_root() -> PathBuf {
    PathBuf::from(format!("/dev/shm/vmmkit-{}", rustix::process::getuid().as_raw()))
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes (the file says kB).
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find_map(|l| l.strip_prefix("MemAvailable:"))?;
    let kib: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    kib.checked_mul(1024).filter(|&n| n > 0)
}

/// Parses `1073741824`, `1G`, `1GiB`, `512M`, `4K` (binary multiples).
pub fn parse_bytes(s: &str) -> Option<u64> {
    let s = s.trim();
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let n: u64 = num.parse().ok()?;
    let shift = match unit.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 0,
        "K" | "KB" | "KIB" => 10,
        "M" | "MB" | "MIB" => 20,
        "G" | "GB" | "GIB" => 30,
        "T" | "TB" | "TIB" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(vars: &[(&str, &str)]) -> Result<Config, ConfigError> {
        Config::from_lookup(|k| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| OsString::from(v)))
    }

    #[test]
    fn the_chip_decides_the_default_device_count_and_a_bad_name_is_refused() {
        assert_eq!(cfg(&[("VMMKIT_SOC", "Ascend910B2")]).unwrap().devices, 8);
        assert_eq!(cfg(&[("VMMKIT_SOC", "A3")]).unwrap().devices, 16);
        assert_eq!(cfg(&[("VMMKIT_SOC", "910B"), ("VMMKIT_DEVICES", "3")]).unwrap().devices, 3);
        let e = cfg(&[("VMMKIT_SOC", "Ascend310P3")]).unwrap_err();
        assert_eq!((e.var, e.value.as_str()), ("VMMKIT_SOC", "Ascend310P3"));
        assert_eq!(Config::new("/r").devices, 16);
    }

    #[test]
    fn defaults() {
        let c = cfg(&[]).unwrap();
        assert_eq!((c.devices, c.device_memory, c.host_access), (16, 64 << 30, true), "an A3 server by default");
        assert!(c.root.starts_with("/dev/shm"));
    }

    #[test]
    fn values() {
        let c = cfg(&[("VMMKIT_ROOT", "/tmp/r"), ("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "512M")]).unwrap();
        assert_eq!((c.root, c.devices, c.device_memory), (PathBuf::from("/tmp/r"), 2, 512 << 20));
    }

    #[test]
    fn bad_values_name_the_variable() {
        for (var, val) in [
            ("VMMKIT_DEVICES", "0"),
            ("VMMKIT_DEVICES", "65"),
            ("VMMKIT_DEVICES", "eight"),
            ("VMMKIT_DEVICE_MEMORY", "0"),
            ("VMMKIT_DEVICE_MEMORY", "12Q"),
            ("VMMKIT_DEVICE_MEMORY", "99999999999999999999"),
            ("VMMKIT_HOST_MEMORY", "0"),
            ("VMMKIT_HOST_MEMORY", "lots"),
            ("VMMKIT_HOST_MEMORY", "16E"),
            ("VMMKIT_HOST_MEMORY", "99999999999999999999"),
            ("VMMKIT_ROOT", "relative/dir"),
            ("VMMKIT_ROOT", ""),
            ("VMMKIT_HOST_ACCESS", "yes"),
            ("VMMKIT_HIP_VERSION", "5"),
            ("VMMKIT_HIP_VERSION", "8.0"),
            ("VMMKIT_HIP_VERSION", "seven"),
            ("VMMKIT_HIP_VERSION", "6.x"),
            ("VMMKIT_STREAMS", "lazy"),
            ("VMMKIT_STREAMS", "adversarial:x"),
        ] {
            let e = cfg(&[(var, val)]).unwrap_err();
            assert_eq!(e.var, var);
            assert!(e.to_string().contains(var), "{e}");
        }
    }

    #[test]
    fn host_memory_defaults_to_mem_available_and_takes_sizes() {
        let c = cfg(&[]).unwrap();
        assert_eq!(c.host_memory, Config::default_host_memory());
        assert!(c.host_memory > 0);
        if let Some(avail) = std::fs::read_to_string("/proc/meminfo").ok().and_then(|t| mem_available(&t)) {
            // Read once per process: the same order of magnitude as now.
            assert!(c.host_memory / 2 <= avail && avail / 2 <= c.host_memory, "{} vs {avail}", c.host_memory);
        }
        assert_eq!(cfg(&[("VMMKIT_HOST_MEMORY", "3G")]).unwrap().host_memory, 3 << 30);
        assert_eq!(cfg(&[("VMMKIT_HOST_MEMORY", "")]).unwrap().host_memory, Config::default_host_memory());
        assert_eq!(Config::new("/r").host_memory, Config::default_host_memory());
        assert_eq!(Config::new("/r").with_host_memory(5).host_memory, 5);
        let e = Config::new("/r").with_host_memory(0).validate().unwrap_err();
        assert_eq!(e.var, "VMMKIT_HOST_MEMORY");
    }

    #[test]
    fn mem_available_lines() {
        let text = "MemTotal:       32000000 kB\nMemFree:  1000 kB\nMemAvailable:   16000000 kB\n";
        assert_eq!(mem_available(text), Some(16_000_000 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(mem_available("MemAvailable: many kB\n"), None);
        assert_eq!(mem_available("MemAvailable: 0 kB\n"), None);
    }

    #[test]
    fn hip_versions() {
        let v = |s: &str| HipVersion::from_lookup(|_| Some(OsString::from(s)));
        assert_eq!(v("").unwrap(), HipVersion::DEFAULT);
        assert_eq!(v("6").unwrap(), HipVersion { major: 6, minor: 3 });
        assert_eq!(v("7").unwrap(), HipVersion { major: 7, minor: 0 });
        assert_eq!(v(" 7.2 ").unwrap(), HipVersion { major: 7, minor: 2 });
        assert_eq!(v("6.0").unwrap(), HipVersion { major: 6, minor: 0 });
        assert_eq!(v("7.100").unwrap_err().var, "VMMKIT_HIP_VERSION");
        assert_eq!(HipVersion::from_lookup(|_| None).unwrap(), HipVersion::DEFAULT);
    }

    #[test]
    fn schedules() {
        let v = |s: &str| Schedule::from_lookup(|_| Some(OsString::from(s)));
        assert_eq!(v("").unwrap(), Schedule::Async);
        assert_eq!(v("eager").unwrap(), Schedule::Eager);
        assert_eq!(v("adversarial").unwrap(), Schedule::Adversarial { seed: Schedule::DEFAULT_SEED });
        assert_eq!(v(" adversarial:42 ").unwrap(), Schedule::Adversarial { seed: 42 });
        assert_eq!(v("sync").unwrap_err().var, "VMMKIT_STREAMS");
    }

    #[test]
    fn byte_units() {
        assert_eq!(parse_bytes("4K"), Some(4096));
        assert_eq!(parse_bytes("64GiB"), Some(64 << 30));
        assert_eq!(parse_bytes(" 7 "), Some(7));
        assert_eq!(parse_bytes("G"), None);
    }
}
