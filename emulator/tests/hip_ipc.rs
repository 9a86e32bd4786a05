//! HIP IPC through the emulator's HIP table: what outlives whom across real
//! processes (an exporter that frees or exits while an importer holds the
//! memory, a forged exporter pid, the leak report of an open never closed)
//! and the rules of hip.md §4.2–§4.4 with their exact codes. The importer is
//! `common::sharing`'s; the trio itself (export, open twice, patterns both
//! ways, counted closes) is `ipc_sharing.rs`'s, run on HIP and CUDA. Each
//! test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::null_mut;

use common::dialect::{Hip, checksum};
use common::{Peer, isolated};
use hip_common::{handle_hex, hip, pattern, prop, shared_left_after_gc, write};
use vmmkit_sys::hip::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

/// The peers: this binary, run in a role by `Peer::start` (the importer of
/// `common::sharing`, whose vendor checks are HIP-IPC-027, 030, 031, 042 … 044).
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    common::sharing::serve::<Hip>(&role);
}

/// Allocates `size` bytes with hipMalloc and fills them with `data`.
fn malloc_with(api: &HipApi, data: &[u8]) -> *mut c_void {
    let mut p = null_mut();
    hok!(api, hipMalloc(&mut p, data.len()));
    write(api, p, data);
    p
}

/// HIP-IPC-046: the exporter frees while another process has the memory
/// open; the importer keeps it, a new open fails, and once the importer
/// closes nothing is left in the root. (The acceptance flow of hip.md §5
/// "IPC, several processes" is `ipc_sharing.rs`'s, run on HIP and CUDA.)
#[test]
fn the_importer_keeps_memory_the_exporter_frees() {
    isolated("the_importer_keeps_memory_the_exporter_frees", ENV, |root| {
        let api = hip();
        hok!(api, hipSetDevice(0));
        let size = (1 << 20) + 257;
        let data = pattern(size, 7);
        let p = malloc_with(&api, &data);
        let mut h = hipIpcMemHandle_t::default();
        hok!(api, hipIpcGetMemHandle(&mut h, p));
        let open = format!("open {} {size}", handle_hex(&h));
        let mut holder = Peer::start("ipc_importer");
        holder.send(&open);
        assert_eq!(holder.recv(), format!("ok {} {size}", checksum(&data)));
        hok!(api, hipFree(p));
        holder.send("sum");
        assert_eq!(holder.recv(), checksum(&data).to_string(), "the importer keeps the memory");
        let mut late = Peer::start("ipc_importer");
        late.send(&open);
        assert_eq!(late.recv(), format!("err {}", HipError::INVALID_DEVICE_POINTER.0), "a new open after the free");
        late.finish();
        holder.send("close");
        assert_eq!(holder.recv(), "closed");
        holder.finish();
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the processes");
    });
}

/// The leak report names an IPC open never closed as such (not as the
/// reservation and import behind it), with its size, its opens and the call.
#[test]
fn leak_report_names_an_open_never_closed() {
    isolated("leak_report_names_an_open_never_closed", ENV, |_| {
        let api = hip();
        let data = pattern(3 << 20, 5);
        let p = malloc_with(&api, &data);
        let mut h = hipIpcMemHandle_t::default();
        hok!(api, hipIpcGetMemHandle(&mut h, p));
        let mut holder = Peer::start("ipc_importer");
        holder.send(&format!("open {} {}", handle_hex(&h), 3 << 20));
        assert_eq!(holder.recv(), format!("ok {} {}", checksum(&data), 3 << 20));
        holder.send("leaks");
        let leaks = holder.recv();
        assert!(leaks.starts_with(&format!("IpcOpen:{}:hipIpcOpenMemHandle:", 3 << 20)), "{leaks}");
        assert!(leaks.contains("2 open(s)") && !leaks.contains(" | "), "one object, opened twice: {leaks}");
        holder.send("close");
        assert_eq!(holder.recv(), "closed");
        holder.send("leaks");
        assert_eq!(holder.recv(), "none", "closed: nothing left");
        holder.finish();
        hok!(api, hipFree(p));
    });
}

/// The exporter exits while an importer holds the memory (HIP-IPC-048): the
/// importer's data stays valid.
#[test]
fn importer_outlives_exporter() {
    isolated("importer_outlives_exporter", ENV, |root| {
        let api = hip();
        let data = pattern(4096, 3);
        let p = malloc_with(&api, &data);
        let mut h = hipIpcMemHandle_t::default();
        hok!(api, hipIpcGetMemHandle(&mut h, p));
        let mut holder = Peer::start("ipc_importer");
        holder.send(&format!("open {} 4096", handle_hex(&h)));
        assert_eq!(holder.recv(), format!("ok {} 4096", checksum(&data)));
        // The exporter lets go of everything, as its exit would.
        hok!(api, hipFree(p));
        vmmkit_emulator::core::emulator().expect("emulator").reset_all();
        holder.send("sum");
        assert_eq!(holder.recv(), checksum(&data).to_string());
        holder.send("close");
        assert_eq!(holder.recv(), "closed");
        holder.finish();
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new());
    });
}

/// `h` with its pid field set to `pid` and its check word made again, as
/// anyone who knows the layout can (the handle's bytes are the caller's).
fn with_pid(h: &hipIpcMemHandle_t, pid: i32) -> hipIpcMemHandle_t {
    use vmmkit_emulator::core::IpcToken;
    const MAGIC: [u8; 8] = *b"VMMKHIP1";
    let bytes: [u8; 64] = h.reserved.map(|c| c as u8);
    let mut token = IpcToken::decode(MAGIC, &bytes).expect("a handle of this emulator");
    token.pid = pid;
    hipIpcMemHandle_t { reserved: token.encode(MAGIC).map(|b| b as std::ffi::c_char) }
}

/// The exporter of an IPC handle is the process the registry recorded for
/// its memory, never the pid written in the handle: a handle whose pid
/// field names another process (its check word made again) opens nothing,
/// in another process or in the exporter itself, while the real one opens.
#[test]
fn a_handle_naming_another_exporter_opens_nothing() {
    isolated("a_handle_naming_another_exporter_opens_nothing", ENV, |root| {
        let api = hip();
        hok!(api, hipSetDevice(0));
        let data = pattern(4096, 5);
        let p = malloc_with(&api, &data);
        let mut h = hipIpcMemHandle_t::default();
        hok!(api, hipIpcGetMemHandle(&mut h, p));
        let mut child = Peer::start("ipc_importer");
        let unknown = format!("err {}", HipError::INVALID_DEVICE_POINTER.0);
        // (The child's own pid is HIP-IPC-024's: the runtime reads the field first.)
        for pid in [1, i32::MAX] {
            child.send(&format!("open {} 4096", handle_hex(&with_pid(&h, pid))));
            assert_eq!(child.recv(), unknown, "in another process, a handle that says pid {pid} made it");
        }
        let mut q = null_mut();
        hexpect!(
            api,
            hipIpcOpenMemHandle(&mut q, with_pid(&h, child.pid() as i32), 1),
            HipError::INVALID_DEVICE_POINTER,
            "HIP-IPC-025" // the exporter, through a handle that names another process: forged
        );
        child.send(&format!("open {} 4096", handle_hex(&h)));
        assert_eq!(child.recv(), format!("ok {} 4096", checksum(&data)), "the real handle opens");
        child.send("close");
        assert_eq!(child.recv(), "closed");
        child.finish();
        hok!(api, hipFree(p));
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new());
    });
}

/// hipIpcGetMemHandle rules (hip.md §4.2) with their codes.
#[test]
fn get_handle_rules() {
    isolated("get_handle_rules", ENV, |_| {
        let api = hip();
        let p = malloc_with(&api, &pattern(1000, 1));
        let mut h = hipIpcMemHandle_t::default();
        // HIP-IPC-001.
        hexpect!(api, hipIpcGetMemHandle(null_mut(), p), HipError::INVALID_VALUE, "HIP-IPC-001");
        // HIP-IPC-009: a failure leaves the handle zeroed.
        h.reserved = [0x55; 64];
        hexpect!(api, hipIpcGetMemHandle(&mut h, null_mut()), HipError::INVALID_VALUE, "HIP-IPC-001");
        assert_eq!(h, hipIpcMemHandle_t::default(), "HIP-IPC-009");
        // HIP-IPC-002: one past the end (of the 1000 bytes asked for), host memory, a random address.
        hexpect!(
            api,
            hipIpcGetMemHandle(&mut h, p.cast::<u8>().wrapping_add(1000).cast()),
            HipError::INVALID_VALUE,
            "HIP-IPC-002"
        );
        let mut local = 0u64;
        hexpect!(api, hipIpcGetMemHandle(&mut h, (&raw mut local).cast()), HipError::INVALID_VALUE, "HIP-IPC-002");
        hexpect!(api, hipIpcGetMemHandle(&mut h, 0x1234_5678 as *mut c_void), HipError::INVALID_VALUE, "HIP-IPC-002");
        // HIP-IPC-004/005: repeated gets are byte-identical in the emulator.
        let (mut a, mut b) = (hipIpcMemHandle_t::default(), hipIpcMemHandle_t::default());
        hok!(api, hipIpcGetMemHandle(&mut a, p));
        hok!(api, hipIpcGetMemHandle(&mut b, p));
        assert_eq!(a, b, "HIP-IPC-005");
        // HIP-IPC-008: host buffers are not exportable.
        let mut host = null_mut();
        hok!(api, hipHostMalloc(&mut host, 4096, 0));
        hexpect!(api, hipIpcGetMemHandle(&mut h, host), HipError::INVALID_VALUE, "HIP-IPC-008");
        hok!(api, hipHostFree(host));
        // HIP-IPC-007: nor hipMemMap'ed memory.
        let mut mem = null_mut();
        hok!(api, hipMemCreate(&mut mem, 4096, &prop(0, hipMemHandleTypeNone), 0));
        let mut va = null_mut();
        hok!(api, hipMemAddressReserve(&mut va, 4096, 0, null_mut(), 0));
        hok!(api, hipMemMap(va, 4096, 0, mem, 0));
        hexpect!(api, hipIpcGetMemHandle(&mut h, va), HipError::INVALID_VALUE, "HIP-IPC-007");
        hok!(api, hipMemUnmap(va, 4096));
        hok!(api, hipMemAddressFree(va, 4096));
        hok!(api, hipMemRelease(mem));
        // HIP-IPC-002 for freed memory, and HIP-IPC-006: a realloc gives a different handle.
        hok!(api, hipFree(p));
        hexpect!(api, hipIpcGetMemHandle(&mut h, p), HipError::INVALID_VALUE, "HIP-IPC-002");
        let again = malloc_with(&api, &pattern(1000, 2));
        hok!(api, hipIpcGetMemHandle(&mut b, again));
        assert_ne!(a, b, "HIP-IPC-006");
        // HIP-IPC-010: one byte works.
        let mut one = null_mut();
        hok!(api, hipMalloc(&mut one, 1));
        hok!(api, hipIpcGetMemHandle(&mut h, one));
        hok!(api, hipFree(one));
        hok!(api, hipFree(again));
    });
}

/// hipIpcOpenMemHandle and hipIpcCloseMemHandle rules on bad handles and
/// pointers (hip.md §4.3, §4.4), in one process.
#[test]
fn open_and_close_rules() {
    isolated("open_and_close_rules", ENV, |_| {
        let api = hip();
        let p = malloc_with(&api, &pattern(8192, 5));
        let mut h = hipIpcMemHandle_t::default();
        hok!(api, hipIpcGetMemHandle(&mut h, p));
        let mut q = null_mut();
        // HIP-IPC-020, then 021 (any value but 0 and 1).
        hexpect!(api, hipIpcOpenMemHandle(null_mut(), h, 1), HipError::INVALID_VALUE, "HIP-IPC-020");
        for flags in [2, 123, u32::MAX] {
            hexpect!(api, hipIpcOpenMemHandle(&mut q, h, flags), HipError::INVALID_VALUE, "HIP-IPC-021");
        }
        // HIP-IPC-022: all zero.
        hexpect!(
            api,
            hipIpcOpenMemHandle(&mut q, hipIpcMemHandle_t::default(), 1),
            HipError::INVALID_VALUE,
            "HIP-IPC-022"
        );
        // HIP-IPC-023: garbage with a size.
        let mut garbage = hipIpcMemHandle_t { reserved: [0x5a; 64] };
        hexpect!(api, hipIpcOpenMemHandle(&mut q, garbage, 1), HipError::INVALID_VALUE, "HIP-IPC-023");
        garbage.reserved[0..8].copy_from_slice(&[0; 8]);
        hexpect!(api, hipIpcOpenMemHandle(&mut q, garbage, 1), HipError::INVALID_VALUE, "HIP-IPC-023");
        // HIP-IPC-025: our magic, another pid, a check word that no longer matches.
        let mut forged = h;
        forged.reserved[48] = forged.reserved[48].wrapping_add(1);
        hexpect!(api, hipIpcOpenMemHandle(&mut q, forged, 1), HipError::INVALID_DEVICE_POINTER, "HIP-IPC-025");
        // HIP-IPC-040, 041.
        hexpect!(api, hipIpcCloseMemHandle(null_mut()), HipError::INVALID_VALUE, "HIP-IPC-040");
        hexpect!(api, hipIpcCloseMemHandle(0xdead_0000 as *mut c_void), HipError::INVALID_VALUE, "HIP-IPC-041");
        hexpect!(api, hipIpcCloseMemHandle(p), HipError::INVALID_VALUE, "HIP-IPC-041");
        hok!(api, hipFree(p));
    });
}
