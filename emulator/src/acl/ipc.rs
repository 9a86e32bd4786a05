//! IPC by key (samples 10 and 11): a plain aclrtMalloc allocation shared
//! under a printable key, as CANN's devmm v2 driver does (ACL-IPK-*,
//! docs/emulator.md "IPC by key").
//!
//! A key is 64 hex digits and a NUL: the exporter's pid, a serial of the
//! export in that process, the device, the registry key of the memory and
//! the exported range's offset in it, padded with `0` as the driver pads its
//! names. Every aclrtIpcMemGetExportKey makes a new key. The creating process
//! keeps its keys (a close destroys one, and remembers it while importers
//! hold it); every process keeps the keys it has open, with their address.
#![allow(non_snake_case)]

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;
use vmmkit_sys::rule::Rule;

use super::call::{Fail, current_device, emu, ensure, run};
use super::device::note_peer;
use super::share::trust_of;
use super::state::{lock, state};
use super::vmm::WINDOW;
use crate::core::{CoreError, Emulator, HandleId};
use crate::ffi::{CStrIn, In, Out};
use crate::registry::{Header, Place, Trust};

/// Characters of a key, without its NUL.
const KEY_CHARS: usize = ACL_IPC_KEY_MIN_LEN - 1;
/// Pids one key's list may hold in all (the driver's `IPC_WLIST_NUM`).
const LIST_CAP: usize = 32_768;

/// A key as this emulator writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    /// The exporting process.
    pid: u32,
    /// Which export of that process.
    serial: u64,
    /// The device of the block.
    device: u8,
    /// The registry key of the memory.
    entry: u64,
    /// Where the exported range starts in that memory (a page-aligned
    /// address inside an allocation or a mapping: [ACL-IPK-003](vmmkit_sys::acl::rules::IPK_003)).
    offset: u64,
}

impl Key {
    fn text(&self) -> String {
        let s = format!(
            "{:08x}{:016x}{:02x}00{:016x}{:016x}",
            self.pid, self.serial, self.device, self.entry, self.offset
        );
        format!("{s:0<KEY_CHARS$}")
    }

    /// Whether this key's text agrees with what the registry recorded of
    /// the block it names: the exporting process's pid and the device. (The
    /// serial is the creator's own record: see [`Keys::created`].)
    fn names(&self, header: &Header) -> bool {
        header.exporter.pid == self.pid && device_field(header.place) == self.device
    }

    /// The key `s` spells, if it is one of this emulator's.
    fn parse(s: &[u8]) -> Option<Self> {
        let s = std::str::from_utf8(s).ok().filter(|s| s.len() == KEY_CHARS && s.bytes().all(|b| b.is_ascii_hexdigit()))?;
        let hex = |r: std::ops::Range<usize>| u64::from_str_radix(&s[r], 16).ok();
        Some(Self {
            pid: u32::try_from(hex(0..8)?).ok()?,
            serial: hex(8..24)?,
            device: u8::try_from(hex(24..26)?).ok()?,
            entry: hex(28..44)?,
            offset: hex(44..60)?,
        })
    }
}

/// The device field of a key for memory at `place`.
fn device_field(place: Place) -> u8 {
    match place {
        Place::Device(d) => u8::try_from(d).unwrap_or(u8::MAX),
        Place::Host(_) => 0,
    }
}

/// The keys of this process.
#[derive(Debug, Default)]
pub(super) struct Keys {
    /// Keys this process created and has not closed, with the block's handle.
    created: HashMap<Key, HandleId>,
    /// Keys this process has open: address and device.
    opened: HashMap<Key, (usize, Place)>,
    /// Keys this process created and has closed once, while another process
    /// still had them open: the driver keeps such a node, no longer valid,
    /// until its last importer lets go ([ACL-IPK-013](vmmkit_sys::acl::rules::IPK_013)).
    destroyed: HashSet<Key>,
}

/// The keys of this process, held in its ACL state (process-wide, as the
/// driver's records are).
fn keys(e: &Emulator) -> std::sync::MutexGuard<'_, Keys> {
    lock(&state(e).ipc_keys)
}

/// The bytes of a key argument up to its NUL, reading at most 65 bytes.
/// NULL is 100000 (the ACL layer); an empty key, or one with no NUL in its
/// first 65 bytes, is 107000 (the driver library's length check).
fn key_bytes(key: CStrIn<'_>, rule: &'static Rule) -> Result<Vec<u8>, Fail> {
    if key.is_null() && crate::mutation::enforced(rule) {
        return Err(Fail::rule_code(rule, AclError::INVALID_PARAM, "key is NULL".into()));
    }
    if key.is_null() {
        return Err(Fail::plain(AclError::SUCCESS, String::new()));
    }
    let out = key.bytes_up_to(ACL_IPC_KEY_MIN_LEN)?;
    let len = out.len();
    if !(1..ACL_IPC_KEY_MIN_LEN).contains(&len) && crate::mutation::enforced(rule) {
        return Err(Fail::rule_code(
            rule,
            AclError::RT_PARAM_INVALID,
            format!("key of {len} characters; 1 to 64 and a NUL are needed"),
        ));
    }
    Ok(out)
}

/// A kernel refusal (507899) under `rule`, or success when the rule is mutated away.
fn refused(rule: &'static Rule, msg: String) -> Fail {
    if crate::mutation::enforced(rule) {
        Fail::rule_code(rule, AclError::RT_DRV_INTERNAL_ERROR, msg)
    } else {
        Fail::plain(AclError::SUCCESS, String::new())
    }
}

/// `aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)`:
/// [ACL-IPK-001](vmmkit_sys::acl::rules::IPK_001) to 004.
pub extern "C" fn aclrtIpcMemGetExportKey(
    devPtr: *mut c_void,
    size: usize,
    key: Out<'_, c_char>,
    len: usize,
    flags: u64,
) -> aclError {
    run("aclrtIpcMemGetExportKey", || {
        ensure!(!devPtr.is_null() && !key.is_null(), rules::IPK_002 => AclError::INVALID_PARAM, "devPtr or key is NULL");
        ensure!(size != 0 && len != 0, rules::IPK_002 => AclError::RT_PARAM_INVALID, "size {size} or len {len} is 0");
        ensure!(flags <= 1, rules::IPK_002 => AclError::RT_PARAM_INVALID, "flags must be 0 or 1, got {flags}");
        ensure!(len >= ACL_IPC_KEY_MIN_LEN, rules::IPK_002 => AclError::RT_PARAM_INVALID,
            "key buffer of {len} bytes; at least 65 are needed");
        let e = emu()?;
        let (handle, offset) = exported_range(e, devPtr as usize, size)?;
        let info = e.describe(handle).map_err(|e| refused(&rules::IPK_003, e.to_string()))?;
        let entry = match info.key {
            Some(k) => {
                // Its earlier keys may all be destroyed: the block is live again.
                e.set_withdrawn(handle, false).map_err(|e| refused(&rules::IPK_003, e.to_string()))?;
                k
            }
            None => e.export(handle, trust_of(flags)).map_err(|e| refused(&rules::IPK_003, e.to_string()))?,
        };
        // The machine's number: another process, seeing other devices, reads it.
        let device = device_field(info.home);
        let serial = state(e).ipc_serial.fetch_add(1, Ordering::Relaxed) + 1;
        let k = Key { pid: e.registry().me().pid, serial, device, entry, offset: offset as u64 };
        let text = k.text();
        // `key` has room for `len` >= 65 bytes: 64 characters and the NUL.
        let mut chars: Vec<c_char> = text.as_bytes()[..KEY_CHARS].iter().map(|&b| b as c_char).collect();
        chars.push(0);
        key.write_slice(&chars)?;
        keys(e).created.insert(k, handle);
        Ok(())
    })
}

/// The memory that `size` bytes at `va` export, and their offset in it
/// ([ACL-IPK-003](vmmkit_sys::acl::rules::IPK_003)): a range inside one aclrtMalloc device allocation, or inside
/// one VMM mapping whose physical memory was neither exported as a shareable
/// handle nor imported, starting on a page of that memory (its granule).
/// Host memory, an unaligned start, a range past the allocation or mapping,
/// and memory shared the VMM way are refused (507899).
fn exported_range(e: &Emulator, va: usize, size: usize) -> Result<(HandleId, usize), Fail> {
    let refuse = |why: &str| Err(refused(&rules::IPK_003, format!("{:#x} (+{size}): {why}", va)));
    let (start, len, handle, plain) = match e.plain_at(va) {
        Some((base, n)) => match e.mapping(base) {
            Some((_, m)) => (base, n, m.handle, true),
            None => return refuse("the allocation has no memory"),
        },
        None => match e.mapping(va) {
            Some((s, m)) => (s, m.len, m.handle, false),
            None => return refuse("no device allocation or VMM mapping holds it"),
        },
    };
    let info = e.describe(handle).map_err(|e| refused(&rules::IPK_003, e.to_string()))?;
    if !matches!(info.place, Place::Device(_)) {
        return refuse("host memory");
    }
    if va % info.granule as usize != 0 {
        return refuse(&format!("not on a page of the memory ({:#x} bytes)", info.granule));
    }
    if (va - start).checked_add(size).is_none_or(|end| end > len) {
        return refuse(&format!("past the end of the {len}-byte range that holds it"));
    }
    if !plain {
        let keyed = keys(e).created.values().any(|&h| h == handle);
        if info.imported || (info.key.is_some() && !keyed) {
            return refuse("VMM memory exported or imported as a shareable handle");
        }
    }
    Ok((handle, va - start))
}

/// `aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)`: [ACL-IPK-005](vmmkit_sys::acl::rules::IPK_005), 006.
pub extern "C" fn aclrtIpcMemSetImportPid(key: CStrIn<'_>, pid: In<'_, i32>, num: usize) -> aclError {
    run("aclrtIpcMemSetImportPid", || {
        ensure!(!key.is_null() && !pid.is_null(), rules::IPK_005 => AclError::INVALID_PARAM, "key or pid is NULL");
        ensure!(num != 0, rules::IPK_005 => AclError::RT_PARAM_INVALID, "num is 0");
        ensure!(num <= ACL_IPC_MAX_PIDS_PER_CALL, rules::IPK_005 => AclError::RT_PARAM_INVALID,
            "{num} pids; one call takes at most 31");
        let all = pid.to_vec(num)?;
        set_import_pids(key, &all)
    })
}

/// Whether `key` names an export of this process ([ACL-IPK-006](vmmkit_sys::acl::rules::IPK_006)'s refusal if not).
pub(super) fn check_own_export(key: CStrIn<'_>) -> Result<(), Fail> {
    own_export(key).map(drop)
}

/// The export of this process that `key` names, and its header ([ACL-IPK-006](vmmkit_sys::acl::rules::IPK_006)).
fn own_export(key: CStrIn<'_>) -> Result<(Key, crate::registry::Header), Fail> {
    let bytes = key_bytes(key, &rules::IPK_005)?;
    let e = emu()?;
    let k = Key::parse(&bytes);
    let created = k.and_then(|k| keys(e).created.get(&k).copied());
    let Some((k, _)) = k.zip(created) else {
        return Err(refused(&rules::IPK_006, "the key names no export of this process".into()));
    };
    let Some((_, header)) = e.exported_as(k.entry) else {
        return Err(refused(&rules::IPK_006, "the key's block is no longer exported".into()));
    };
    Ok((k, header))
}

/// Adds `all` (less zeros and this process) to the trustlist of the export
/// `key` names: aclrtIpcMemSetImportPid after its argument checks, and
/// aclrtIpcMemImportPidInterServer.
pub(super) fn set_import_pids(key: CStrIn<'_>, all: &[i32]) -> Result<(), Fail> {
    let (k, header) = own_export(key)?;
    let num = all.len();
    ensure!(header.trust_len as usize + num <= LIST_CAP, rules::IPK_006 => AclError::RT_DRV_INTERNAL_ERROR,
        "{} pids listed and {num} more; a key lists at most 32,768", header.trust_len);
    let me = std::process::id() as i32;
    let pids: Vec<i32> = all.iter().copied().filter(|&p| p != 0 && p != me).collect();
    ensure!(!pids.is_empty(), rules::IPK_006 => AclError::RT_DRV_INTERNAL_ERROR,
        "only zeros and the creator's own pid: nothing to list");
    if header.trust == Trust::AnyProcess {
        return Ok(()); // the list is kept but not read
    }
    emu()?.set_trusted(k.entry, &pids).map_err(|e| refused(&rules::IPK_006, e.to_string()))
}

/// `aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)`: maps the memory on the
/// current device. [ACL-IPK-007](vmmkit_sys::acl::rules::IPK_007) to 011, 015, 016.
pub extern "C" fn aclrtIpcMemImportByKey(devPtr: Out<'_, *mut c_void>, key: CStrIn<'_>, flags: u64) -> aclError {
    run("aclrtIpcMemImportByKey", || {
        ensure!(!devPtr.is_null() && !key.is_null(), rules::IPK_016 => AclError::INVALID_PARAM, "devPtr or key is NULL");
        if devPtr.is_null() {
            return Ok(()); // the rule is mutated away: nowhere to write
        }
        ensure!(flags <= 1, rules::IPK_016 => AclError::RT_PARAM_INVALID, "flags must be 0 or 1, got {flags}");
        let bytes = key_bytes(key, &rules::IPK_016)?;
        let d = current_device()?;
        let e = emu()?;
        // The key's creator is the one the registry recorded for its block,
        // never the pid written in the key: a key whose text disagrees with
        // the record (another pid, another device) names no export.
        let found = Key::parse(&bytes).and_then(|k| e.live_header(k.entry).filter(|h| k.names(h)).map(|h| (k, h)));
        let Some((k, header)) = found else {
            return Err(refused(&rules::IPK_016, format!("{:?} names no live export", String::from_utf8_lossy(&bytes))));
        };
        let place = Place::Device(d);
        let held = keys(e).opened.get(&k).copied();
        if let Some((_, other)) = held.filter(|&(_, p)| p != place) {
            return Err(refused(&rules::IPK_010, format!("the key is open on {other:?} in this process")));
        }
        let mine = header.exporter == e.registry().me();
        let exporter_alive = mine || header.exporter.is_alive();
        ensure!(exporter_alive, rules::IPK_015 => AclError::RT_DRV_INTERNAL_ERROR,
            "the process that exported the key has exited");
        if flags == ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS
            && let Place::Device(src) = e.local_place(Place::Device(u32::from(k.device)), place)
            && src != d
        {
            note_peer(e, d, src);
        }
        let va = open(e, k, place, mine)? + k.offset as usize;
        keys(e).opened.insert(k, (va, place));
        devPtr.write(va as *mut c_void)?;
        Ok(())
    })
}

/// Opens `k` onto `place`; a refusal is the rule the case belongs to.
fn open(e: &Emulator, k: Key, place: Place, mine: bool) -> Result<usize, Fail> {
    match e.open_key(k.entry, place, &WINDOW) {
        Ok((va, _)) => Ok(va),
        Err(err @ CoreError::NotTrusted { .. }) => {
            Err(refused(if mine { &rules::IPK_009 } else { &rules::IPK_007 }, err.to_string()))
        }
        Err(err @ (CoreError::UnknownShareable(_) | CoreError::ShareableReleasing(_))) => {
            Err(refused(&rules::IPK_016, err.to_string()))
        }
        Err(err) => Err(Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, err.to_string())),
    }
}

/// `aclError aclrtIpcMemClose(const char *key)`: closes one import of the key
/// in this process; in the process that created it (and has it not open), destroys it.
/// [ACL-IPK-012](vmmkit_sys::acl::rules::IPK_012), 013.
pub extern "C" fn aclrtIpcMemClose(key: CStrIn<'_>) -> aclError {
    run("aclrtIpcMemClose", || {
        let bytes = key_bytes(key, &rules::IPK_013)?;
        let e = emu()?;
        let Some(k) = Key::parse(&bytes) else {
            return Err(refused(&rules::IPK_013, "not a key of this emulator".into()));
        };
        let mut keys = keys(e);
        if let Some(&(va, _)) = keys.opened.get(&k) {
            let left = e.close_plain(va).map_err(|e| Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, e.to_string()))?;
            if left == 0 {
                keys.opened.remove(&k);
            }
            return Ok(());
        }
        let held_elsewhere = || !e.registry().other_holders(k.entry).is_empty();
        let Some(handle) = keys.created.remove(&k) else {
            // A second close by the creator: the driver's node lives on,
            // invalid, while an importer holds it (-EFAULT, 107017), and is
            // gone once none does (-EINVAL, 507899).
            ensure!(!(keys.destroyed.contains(&k) && held_elsewhere()), rules::IPK_013 => AclError::RT_INVALID_HANDLE,
                "the key was destroyed by an earlier close; another process still has it open");
            keys.destroyed.remove(&k);
            return Err(refused(&rules::IPK_013, "this process neither created the key nor has it open".into()));
        };
        let others = keys.created.keys().any(|c| c.entry == k.entry);
        if held_elsewhere() {
            keys.destroyed.insert(k);
        }
        drop(keys);
        if !others && crate::mutation::enforced(&rules::IPK_012) {
            // The block's last key is gone: no new import finds it.
            let _ = e.set_withdrawn(handle, true);
        }
        Ok(())
    })
}

/// Before aclrtFree of the block at `va`: its keys stop importing ([ACL-IPK-014](vmmkit_sys::acl::rules::IPK_014)).
pub(super) fn freeing(e: &Emulator, va: usize) {
    let Some((_, m)) = e.mapping(va) else { return };
    let exported = keys(e).created.values().any(|&h| h == m.handle);
    if exported && crate::mutation::enforced(&rules::IPK_014) {
        let _ = e.set_withdrawn(m.handle, true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_are_64_characters() {
        let k = Key { pid: 4242, serial: 7, device: 1, entry: 0x1_0000_0003, offset: 0x40_0000 };
        let t = k.text();
        assert_eq!(t.len(), KEY_CHARS);
        assert_eq!(Key::parse(t.as_bytes()), Some(k));
        assert_eq!(Key::parse(&t.as_bytes()[..63]), None);
        assert_eq!(Key::parse(b"vmmkit:0000000100000003"), None);
    }
}
