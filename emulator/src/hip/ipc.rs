//! The IPC trio: hipIpcGetMemHandle, hipIpcOpenMemHandle,
//! hipIpcCloseMemHandle (hip.md §3.2, §4.2–§4.4).
//!
//! The 64-byte handle keeps the real runtime's shape (hip.md §3.2) with a
//! private token of our own in bytes 0–31, so that garbage and all-zero
//! handles are recognised and the same-process check reads the same bytes as
//! the real one:
//!
//! | bytes | content |
//! |---|---|
//! | 0–7 | magic `VMMKHIP1` |
//! | 8–15 | registry key of the exported allocation |
//! | 16–23 | the allocation's generation (new for every hipMalloc) |
//! | 24–31 | check word: FNV-1a of bytes 0–23 and 32–55 |
//! | 32–39 | allocation size, as asked of hipMalloc (`size_t`) |
//! | 40–47 | offset of the exported pointer from the allocation base |
//! | 48–51 | exporter pid (`int`) |
//! | 52–55 | exporter device ordinal (as in ROCm develop) |
//! | 56–63 | zero |
#![allow(non_snake_case)]

use std::ffi::c_void;
use std::sync::Mutex;

use vmmkit_sys::hip::rules;
use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, put, run};
use super::codes::Op;
use super::pointer::{Kind, extent};
use super::profile::{LAZY_FLAGS, WINDOW};
use crate::core::CoreError;
use crate::registry::Place;

const MAGIC: [u8; 8] = *b"VMMKHIP1";

/// What a handle says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token {
    pub key: u64,
    pub generation: u64,
    pub size: u64,
    pub offset: u64,
    pub pid: i32,
    pub device: i32,
}

fn fnv(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .flat_map(|p| p.iter())
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn bytes(h: &hipIpcMemHandle_t) -> [u8; 64] {
    h.reserved.map(|c| c as u8)
}

fn word(b: &[u8; 64], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

impl Token {
    pub fn encode(&self) -> hipIpcMemHandle_t {
        let mut b = [0u8; 64];
        b[0..8].copy_from_slice(&MAGIC);
        b[8..16].copy_from_slice(&self.key.to_le_bytes());
        b[16..24].copy_from_slice(&self.generation.to_le_bytes());
        b[32..40].copy_from_slice(&self.size.to_le_bytes());
        b[40..48].copy_from_slice(&self.offset.to_le_bytes());
        b[48..52].copy_from_slice(&self.pid.to_le_bytes());
        b[52..56].copy_from_slice(&self.device.to_le_bytes());
        let check = fnv(&[&b[0..24], &b[32..56]]);
        b[24..32].copy_from_slice(&check.to_le_bytes());
        hipIpcMemHandle_t { reserved: b.map(|x| x as std::ffi::c_char) }
    }

    /// The size field (bytes 32–39), read whatever else the handle holds.
    fn size_field(h: &hipIpcMemHandle_t) -> u64 {
        word(&bytes(h), 32)
    }

    /// The pid field (bytes 48–51).
    fn pid_field(h: &hipIpcMemHandle_t) -> i32 {
        i32::from_le_bytes(bytes(h)[48..52].try_into().expect("4 bytes"))
    }

    fn has_magic(h: &hipIpcMemHandle_t) -> bool {
        bytes(h)[0..8] == MAGIC
    }

    /// The token, if its check word matches (else the handle was altered or forged).
    pub fn decode(h: &hipIpcMemHandle_t) -> Option<Self> {
        let b = bytes(h);
        if b[0..8] != MAGIC || word(&b, 24) != fnv(&[&b[0..24], &b[32..56]]) {
            return None;
        }
        Some(Self {
            key: word(&b, 8),
            generation: word(&b, 16),
            size: word(&b, 32),
            offset: word(&b, 40),
            pid: i32::from_le_bytes(b[48..52].try_into().expect("4 bytes")),
            device: i32::from_le_bytes(b[52..56].try_into().expect("4 bytes")),
        })
    }
}

/// Ranges whose last open was closed, so that one close too many is told
/// apart from a pointer that was never opened (HIP-IPC-042 vs -041). Only
/// for the message and the rule id; both are 1. Bounded: the last 64.
static CLOSED: Mutex<Vec<(usize, usize)>> = Mutex::new(Vec::new());

fn was_closed(p: usize) -> bool {
    CLOSED.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|&(b, n)| p >= b && p < b + n)
}

fn note_closed(base: usize, len: usize) {
    let mut c = CLOSED.lock().unwrap_or_else(|e| e.into_inner());
    if c.len() >= 64 {
        c.remove(0);
    }
    c.push((base, len));
}

fn forget_closed(base: usize) {
    CLOSED.lock().unwrap_or_else(|e| e.into_inner()).retain(|&(b, _)| b != base);
}

/// `hipError_t hipIpcGetMemHandle(hipIpcMemHandle_t *handle, void *devPtr)`:
/// HIP-IPC-001, then HIP-IPC-008, -007, -002 (all 1); HIP-IPC-003 an
/// interior pointer names its allocation; HIP-IPC-009 a failure leaves the
/// handle zeroed.
pub unsafe extern "C" fn hipIpcGetMemHandle(handle: *mut hipIpcMemHandle_t, devPtr: *mut c_void) -> hipError_t {
    run("hipIpcGetMemHandle", || {
        // HIP-IPC-009: zero-fill first, so a failure leaves no stale bytes.
        if !handle.is_null() {
            // SAFETY: non-null; the caller passes a 64-byte handle.
            unsafe { put(handle, hipIpcMemHandle_t::default()) };
        }
        ensure!(!handle.is_null(), rules::IPC_001, "handle is NULL");
        ensure!(!devPtr.is_null(), rules::IPC_001, "devPtr is NULL");
        let e = emu()?;
        let p = devPtr as usize;
        let x = extent(e, p);
        let kind = x.map(|x| x.kind);
        // HIP-IPC-008 (undetermined; emulator 1): host buffers and opened pointers.
        ensure!(
            !matches!(kind, Some(Kind::Host | Kind::Opened)),
            rules::IPC_008 => HipError::INVALID_VALUE,
            "{devPtr:p} is a host buffer or memory opened from another process; only hipMalloc memory is exported"
        );
        // HIP-IPC-007: a hipMemMap'ed address is not exportable.
        ensure!(kind != Some(Kind::Vmm), rules::IPC_007, "{devPtr:p} is hipMemMap'ed memory, not hipMalloc memory");
        // HIP-IPC-002: inside a live hipMalloc allocation, half-open.
        ensure!(
            matches!(kind, Some(Kind::Malloc(_) | Kind::Vmm)),
            rules::IPC_002,
            "{devPtr:p} is not inside a live hipMalloc allocation"
        );
        let (key, generation, base) = match kind {
            // HIP-IPC-007 switched off: what releases before develop do, a
            // handle for the memory behind the mapping (hip.md §4.2).
            Some(Kind::Vmm) => {
                let (base, m) = e.mapping(p).ok_or_else(|| Fail::core(Op::IpcGet, CoreError::NotMapped(p)))?;
                let info = e.describe(m.handle).map_err(|e| Fail::core(Op::IpcGet, e))?;
                let key = match info.key {
                    Some(k) => k,
                    None => e.export(m.handle, false).map_err(|e| Fail::core(Op::IpcGet, e))?,
                };
                (key, info.props[3], base)
            }
            _ => {
                let exported = e.export_plain(p).map_err(|e| Fail::core(Op::IpcGet, e))?;
                (exported.key, exported.props[3], exported.base)
            }
        };
        let Some(x) = x else { return Ok(()) }; // only when HIP-IPC-002 is switched off
        let device = match x.device {
            Place::Device(d) | Place::Host(d) => d as i32,
        };
        let token = Token {
            key,
            generation,
            size: x.size as u64,
            offset: (p - base) as u64, // HIP-IPC-003
            pid: std::process::id() as i32,
            device,
        };
        // SAFETY: checked non-null.
        unsafe { put(handle, token.encode()) };
        Ok(())
    })
}

/// `hipError_t hipIpcOpenMemHandle(void **devPtr, hipIpcMemHandle_t handle, unsigned flags)`:
/// HIP-IPC-020, 021, 022, 023, 024, 025 in that order; HIP-IPC-026 returns
/// the base; HIP-IPC-027 a repeated open returns the same pointer, counted;
/// HIP-IPC-031 onto the current device.
pub unsafe extern "C" fn hipIpcOpenMemHandle(
    devPtr: *mut *mut c_void,
    handle: hipIpcMemHandle_t,
    flags: u32,
) -> hipError_t {
    run("hipIpcOpenMemHandle", || {
        ensure!(!devPtr.is_null(), rules::IPC_020, "devPtr is NULL");
        ensure!(
            LAZY_FLAGS.contains(&flags),
            rules::IPC_021,
            "flags must be hipIpcMemLazyEnablePeerAccess (1, or 0 before ROCm 6.0), got {flags}"
        );
        ensure!(Token::size_field(&handle) != 0, rules::IPC_022, "the handle's size field is 0");
        ensure!(Token::has_magic(&handle), rules::IPC_023, "not an IPC handle of this emulator");
        let me = std::process::id() as i32;
        ensure!(
            Token::pid_field(&handle) != me,
            rules::IPC_024,
            "the handle was made by this process ({me}); a process cannot open its own handle"
        );
        let token = Token::decode(&handle);
        ensure!(token.is_some(), rules::IPC_025, "the handle's check word does not match: altered or forged");
        let Some(token) = token else { return Ok(()) };
        let e = emu()?;
        let device = current_device();
        let (va, opened) =
            e.open_plain(token.key, Place::Device(device), &WINDOW).map_err(|e| Fail::core(Op::IpcOpen, e))?;
        if opened.props[3] != token.generation && crate::mutation::enforced(&rules::IPC_025) {
            let _ = e.close_plain(va);
            return Err(Fail::rule(
                &rules::IPC_025,
                format!("generation {:#x} is not that of the allocation shared as {:#x}", token.generation, token.key),
            ));
        }
        forget_closed(va);
        // HIP-IPC-031: peer access between the devices is enabled implicitly.
        if token.device >= 0 && token.device as u32 != device {
            e.enable_peer(device, token.device as u32);
        }
        // SAFETY: checked non-null.
        unsafe { put(devPtr, va as *mut c_void) };
        Ok(())
    })
}

/// `hipError_t hipIpcCloseMemHandle(void *devPtr)`: HIP-IPC-040, 041 (and
/// 042, one close too many); HIP-IPC-043 an interior pointer is accepted;
/// the last close unmaps.
pub unsafe extern "C" fn hipIpcCloseMemHandle(devPtr: *mut c_void) -> hipError_t {
    run("hipIpcCloseMemHandle", || {
        ensure!(!devPtr.is_null(), rules::IPC_040, "devPtr is NULL");
        let e = emu()?;
        let p = devPtr as usize;
        let Some((base, o)) = e.opened_at(p) else {
            if was_closed(p) {
                ensure!(false, rules::IPC_042, "{devPtr:p} was closed as often as it was opened");
                return Ok(());
            }
            // HIP-IPC-041 (or HIP-IPC-040 for NULL, when that check is switched off).
            return e.close_plain(p).map(drop).map_err(|e| Fail::core(Op::IpcClose, e));
        };
        let left = e.close_plain(p).map_err(|e| Fail::core(Op::IpcClose, e))?;
        if left == 0 {
            note_closed(base, o.len);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_round_trips_and_detects_changes() {
        let t = Token { key: 0x1_0000_0007, generation: 42, size: 257, offset: 128, pid: 1234, device: 1 };
        let h = t.encode();
        assert_eq!(Token::decode(&h), Some(t));
        assert_eq!((Token::size_field(&h), Token::pid_field(&h)), (257, 1234));
        let mut altered = h;
        altered.reserved[40] ^= 1;
        assert_eq!(Token::decode(&altered), None);
        assert!(Token::has_magic(&altered));
        assert!(!Token::has_magic(&hipIpcMemHandle_t::default()));
    }
}
