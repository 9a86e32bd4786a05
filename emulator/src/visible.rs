//! Which of the machine's devices a process sees, and under which numbers:
//! the vendors' visible-device variables.
//!
//! A process numbers the devices it sees from 0 (its ordinals), in the order
//! its vendor's variable lists them; the machine's own numbers (the physical
//! devices, those of `VMMKIT_DEVICES`) are what processes share: registry
//! entries, capacity rows, the device fields of keys and tokens. So memory
//! exported by a process that sees physical device 3 as its device 0 is on
//! device 1 of a process that sees "2,3".
//!
//! | Vendor | Variables | Reading |
//! |---|---|---|
//! | HIP | `ROCR_VISIBLE_DEVICES`, then `HIP_VISIBLE_DEVICES` (or `CUDA_VISIBLE_DEVICES` when it is unset or empty) over what ROCr left | [`rocr`], [`clr`] |
//! | CUDA | `CUDA_VISIBLE_DEVICES` | [`cuda`] |
//! | ACL | `ASCEND_RT_VISIBLE_DEVICES` | [`ascend`] |

use std::ffi::OsString;

/// The vendor whose variables choose the devices a process sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskVendor {
    /// AMD HIP (ROCr, then clr).
    Hip,
    /// The CUDA driver.
    Cuda,
    /// Ascend ACL.
    Acl,
}

impl MaskVendor {
    /// The variables this vendor reads, in the order it applies them.
    pub const fn vars(self) -> &'static [&'static str] {
        match self {
            MaskVendor::Hip => &["ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"],
            MaskVendor::Cuda => &["CUDA_VISIBLE_DEVICES"],
            MaskVendor::Acl => &["ASCEND_RT_VISIBLE_DEVICES"],
        }
    }
}

/// The devices one process sees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Visible {
    /// The physical device of each ordinal.
    devices: Vec<u32>,
    /// The physical devices of the machine.
    physical: u32,
    /// The variables in force, as `NAME="value"` (empty: none set, all devices seen).
    pub source: String,
    /// Why the vendor refuses the whole list (ACL: an order or a repeat it
    /// forbids, or no usable entry), when it does; the process then sees no device.
    pub refused: Option<String>,
}

impl Visible {
    /// Every one of `physical` devices, under its own number.
    pub fn all(physical: u32) -> Self {
        Self { devices: (0..physical).collect(), physical, source: String::new(), refused: None }
    }

    /// The devices `vendor`'s variables (looked up through `get`) leave a
    /// process on a machine of `physical` devices.
    pub fn from_lookup(vendor: MaskVendor, physical: u32, get: impl Fn(&str) -> Option<OsString>) -> Self {
        let var = |name: &str| get(name).map(|v| v.to_string_lossy().into_owned());
        let mut me = Self::all(physical);
        let mut shown = Vec::new();
        match vendor {
            MaskVendor::Hip => {
                if let Some(v) = var("ROCR_VISIBLE_DEVICES") {
                    shown.push(format!("ROCR_VISIBLE_DEVICES={v:?}"));
                    me.devices = rocr(&me.devices, &v);
                }
                // clr reads HIP_VISIBLE_DEVICES, or CUDA_VISIBLE_DEVICES when it is empty.
                let hip = var("HIP_VISIBLE_DEVICES").filter(|v| !v.is_empty()).map(|v| ("HIP_VISIBLE_DEVICES", v));
                let ordinals = hip.or_else(|| var("CUDA_VISIBLE_DEVICES").map(|v| ("CUDA_VISIBLE_DEVICES", v)));
                if let Some((name, v)) = ordinals.filter(|(_, v)| !v.is_empty()) {
                    shown.push(format!("{name}={v:?}"));
                    me.devices = clr(&me.devices, &v);
                }
            }
            MaskVendor::Cuda => {
                if let Some(v) = var("CUDA_VISIBLE_DEVICES") {
                    shown.push(format!("CUDA_VISIBLE_DEVICES={v:?}"));
                    me.devices = cuda(physical, &v);
                }
            }
            MaskVendor::Acl => {
                if let Some(v) = var("ASCEND_RT_VISIBLE_DEVICES") {
                    shown.push(format!("ASCEND_RT_VISIBLE_DEVICES={v:?}"));
                    match ascend(physical, &v) {
                        Ok(d) => me.devices = d,
                        Err(why) => {
                            me.devices.clear();
                            me.refused = Some(why);
                        }
                    }
                }
            }
        }
        me.source = shown.join(" ");
        me
    }

    /// The devices `vendor`'s variables leave this process.
    pub fn from_env(vendor: MaskVendor, physical: u32) -> Self {
        Self::from_lookup(vendor, physical, |k| std::env::var_os(k))
    }

    /// How many devices the process sees.
    pub fn count(&self) -> u32 {
        self.devices.len() as u32
    }

    /// The physical device behind ordinal `ordinal`, if the process has one so numbered.
    pub fn physical(&self, ordinal: u32) -> Option<u32> {
        self.devices.get(ordinal as usize).copied()
    }

    /// The ordinal under which the process sees physical device `physical`, if it sees it.
    pub fn ordinal(&self, physical: u32) -> Option<u32> {
        self.devices.iter().position(|&d| d == physical).map(|i| i as u32)
    }

    /// The physical devices seen, in ordinal order.
    pub fn devices(&self) -> &[u32] {
        &self.devices
    }

    /// Whether the process sees every device under its own number.
    pub fn is_all(&self) -> bool {
        self.refused.is_none()
            && self.devices.len() == self.physical as usize
            && self.devices.iter().enumerate().all(|(i, &d)| i == d as usize)
    }

    /// One line for `vmmkit doctor` and `vmmkit run`: the variables and the
    /// physical devices behind ordinals 0, 1, ...
    pub fn describe(&self) -> String {
        let list = self.devices.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        match (&self.refused, self.source.is_empty()) {
            (Some(why), _) => format!("{}: refused ({why}); no device", self.source),
            (None, true) => format!("all {} devices", self.physical),
            (None, false) => format!("{} -> devices [{list}] of {}", self.source, self.physical),
        }
    }
}

/// ROCr's `ROCR_VISIBLE_DEVICES` over `seen` (rocm-systems@1b1610fc2
/// projects/rocr-runtime/runtime/hsa-runtime/core/runtime/amd_filter_device.cpp:73-89, 151-198):
/// set and empty shows none; tokens split at commas and trimmed; each an
/// index by `strtol(.., 0)` (decimal, `0x` hex, leading-0 octal) or a
/// `GPU-` uuid; the first index out of range, repeated, malformed, or uuid
/// matching no device ends the list (emulated devices have no uuid that
/// ROCr's form matches). At most as many tokens as devices are read.
pub fn rocr(seen: &[u32], value: &str) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    if value.is_empty() {
        return out;
    }
    for token in value.split(',').take(seen.len()) {
        let token = token.trim();
        let Some(i) = strtol(token) else { break };
        match usize::try_from(i).ok().and_then(|i| seen.get(i)) {
            Some(&d) if !out.contains(&d) => out.push(d),
            _ => break,
        }
    }
    out
}

/// C's `strtol(s, &end, 0)` with `*end == '\0'` required: `None` for
/// anything else (an empty token or a uuid, which ROCr's `token.at(0)`
/// would not take either: the emulator ends the list there).
fn strtol(s: &str) -> Option<i64> {
    let (neg, body) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        (16, h)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let n = i64::from_str_radix(digits, radix).ok()?;
    Some(if neg { -n } else { n })
}

/// clr's `HIP_VISIBLE_DEVICES` over the devices ROCr left (`seen`)
/// (ROCm/clr@f9f995c6d rocclr/device/rocm/rocdevice.cpp:496-541): entries
/// split at commas; one must be the decimal spelling of an index below the
/// count (`str_id == std::to_string(atoi(str_id))`: no sign, no leading
/// zero, no space); the first that is not ends the list; a repeat is
/// skipped. `GPU-` uuids are not matched (emulated devices have none that
/// clr's form matches) and end the list.
pub fn clr(seen: &[u32], value: &str) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    for entry in value.split(',') {
        let index = entry.parse::<usize>().ok().filter(|i| i.to_string() == entry);
        let Some(&d) = index.and_then(|i| seen.get(i)) else { break };
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// The CUDA driver's `CUDA_VISIBLE_DEVICES` on a machine of `physical`
/// devices (CUDA C++ Programming Guide, "CUDA Environment Variables": only
/// the devices before the first invalid index are visible): entries split
/// at commas, each a decimal index (spaces around it allowed); the first
/// that is not a device, or repeats one, ends the list.
pub fn cuda(physical: u32, value: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in value.split(',') {
        match entry.trim().parse::<u32>() {
            Ok(d) if d < physical && !out.contains(&d) => out.push(d),
            _ => break,
        }
    }
    out
}

/// Ascend's `ASCEND_RT_VISIBLE_DEVICES` on a machine of `physical` devices
/// (hicann/runtime@681ef7610 src/runtime/core/src/runtime.cc:4725-4768,
/// 4955-5061): the first 128 characters; it must start with a digit; digit
/// runs separated by single commas, anything else (or a second comma) ends
/// it; the first index beyond the devices ends the list; an index not above
/// the one before it refuses the whole list ("configured in ascending
/// order", "cannot be duplicated"), as does a list with no index left;
/// `aclrtGetDeviceCount` then fails ([ACL-GEN-011](vmmkit_sys::acl::rules::GEN_011)).
///
/// # Errors
/// The reason the runtime logs when it refuses the list.
pub fn ascend(physical: u32, value: &str) -> Result<Vec<u32>, String> {
    let value: String = value.chars().take(128).collect();
    let mut tokens: Vec<&str> = Vec::new();
    if value.starts_with(|c: char| c.is_ascii_digit()) {
        for (i, run) in value.split(',').enumerate() {
            let digits = run.len() - run.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if digits > 0 {
                tokens.push(&run[..digits]);
            }
            // A run with something else in it, or an empty run (two commas), ends it.
            if digits < run.len() || (digits == 0 && i > 0) {
                break;
            }
        }
    }
    let mut out: Vec<u32> = Vec::new();
    for t in tokens {
        // stoi: a number past i32 is logged and taken as out of range.
        let d = t.parse::<i32>().ok().and_then(|d| u32::try_from(d).ok());
        let Some(d) = d.filter(|&d| d < physical) else { break };
        if let Some(&last) = out.last() {
            if d < last {
                return Err(format!("{value} must be configured in ascending order"));
            }
            if out.contains(&d) {
                return Err(format!("{value} cannot be duplicated"));
            }
        }
        out.push(d);
        if out.len() as u32 >= physical {
            break;
        }
    }
    if out.is_empty() {
        return Err(format!("{value:?} names no device in [0, {physical})"));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect();
        move |k| vars.iter().find(|(n, _)| n == k).map(|(_, v)| OsString::from(v))
    }

    #[test]
    fn rocr_filters_first_then_clr_renumbers_what_is_left() {
        let all: Vec<u32> = (0..8).collect();
        assert_eq!(rocr(&all, "3,1,5"), [3, 1, 5]);
        assert_eq!(rocr(&all, ""), [] as [u32; 0], "set and empty: no device");
        assert_eq!(rocr(&all, "-1"), [] as [u32; 0]);
        assert_eq!(rocr(&all, " 2 , 0x3,010,9"), [2, 3], "trimmed; 0x hex; 010 is octal 8, out of range");
        assert_eq!(rocr(&all, "2,2,4"), [2], "a repeat ends it");
        assert_eq!(rocr(&all, "1,GPU-XX,2"), [1]);
        assert_eq!(clr(&[3, 1, 5], "2,0"), [5, 3]);
        assert_eq!(clr(&[3, 1, 5], "1,1,0"), [1, 3], "a repeat is skipped");
        assert_eq!(clr(&all, "1,01,2"), [1], "01 is not the spelling of 1: it ends the list");
        assert_eq!(clr(&all, "1, 2"), [1]);
        assert_eq!(clr(&all, "1,,2"), [1]);
        assert_eq!(clr(&all, "7,8,1"), [7]);
        let v = Visible::from_lookup(
            MaskVendor::Hip,
            8,
            lookup(&[("ROCR_VISIBLE_DEVICES", "4,5,6"), ("HIP_VISIBLE_DEVICES", "2,0")]),
        );
        assert_eq!((v.devices(), v.physical(0), v.ordinal(4), v.ordinal(5)), (&[6, 4][..], Some(6), Some(1), None));
        let v = Visible::from_lookup(
            MaskVendor::Hip,
            8,
            lookup(&[("HIP_VISIBLE_DEVICES", ""), ("CUDA_VISIBLE_DEVICES", "5")]),
        );
        assert_eq!(v.devices(), [5], "clr falls back on CUDA_VISIBLE_DEVICES when HIP's is empty");
        assert!(Visible::from_lookup(MaskVendor::Hip, 8, lookup(&[])).is_all());
    }

    #[test]
    fn cuda_stops_at_the_first_invalid_entry() {
        assert_eq!(cuda(4, "2,0"), [2, 0]);
        assert_eq!(cuda(4, "1,7,2"), [1]);
        assert_eq!(cuda(4, "1,x,2"), [1]);
        assert_eq!(cuda(4, ""), [] as [u32; 0]);
        assert_eq!(cuda(4, "-1"), [] as [u32; 0]);
        assert_eq!(cuda(4, "3,3,1"), [3]);
    }

    #[test]
    fn ascend_wants_ascending_distinct_ids_and_refuses_otherwise() {
        assert_eq!(ascend(8, "1,2,3"), Ok(vec![1, 2, 3]));
        assert_eq!(ascend(8, "3"), Ok(vec![3]));
        assert_eq!(ascend(8, "1,2,9,4"), Ok(vec![1, 2]), "the first beyond the devices ends it");
        assert_eq!(ascend(8, "1,2;4"), Ok(vec![1, 2]), "another character ends it");
        assert_eq!(ascend(8, "1,,4"), Ok(vec![1]), "two commas end it");
        assert_eq!(ascend(8, "01,2"), Ok(vec![1, 2]), "stoi takes leading zeros");
        assert!(ascend(8, "3,1").unwrap_err().contains("ascending"));
        assert!(ascend(8, "1,2,2").unwrap_err().contains("duplicated"));
        assert!(ascend(8, "9").is_err());
        assert!(ascend(8, "").is_err());
        assert!(ascend(8, " 1").is_err(), "it must start with a digit");
        let v = Visible::from_lookup(MaskVendor::Acl, 8, lookup(&[("ASCEND_RT_VISIBLE_DEVICES", "2,1")]));
        assert_eq!((v.count(), v.refused.is_some()), (0, true));
    }
}
