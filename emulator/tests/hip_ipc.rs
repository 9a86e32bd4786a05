//! HIP IPC through the emulator's HIP table: the trio across real processes
//! (parent exports hipMalloc memory, a child opens it, patterns round-trip
//! both ways, closes are counted) and the rules of hip.md §4.2–§4.4 with
//! their exact codes. Each test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::ptr::null_mut;

use common::{Peer, isolated, next_command, reply};
use hip_common::{checksum, handle_from_hex, handle_hex, hip, pattern, prop, read, shared_left_after_gc, write};
use vmmkit_sys::hip::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

/// The peers: this binary, run in a role by `Peer::start`.
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    assert_eq!(role, "ipc_importer");
    let api = hip();
    // HIP-IPC-031: the importer opens onto its own current device, here 1.
    hok!(api, hipSetDevice(1));
    let mut opened: Option<(*mut c_void, usize)> = None;
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["open", hex, size] => {
                let h = handle_from_hex(hex);
                let size: usize = size.parse().expect("size");
                let mut q = null_mut();
                let rc = hcall!(api, hipIpcOpenMemHandle(&mut q, h, hipIpcMemLazyEnablePeerAccess));
                if rc != HipError::SUCCESS {
                    reply(format!("err {}", rc.0));
                    continue;
                }
                // HIP-IPC-027: a second open (with the ≤5.7 flag value, also accepted) gives the same pointer.
                let mut q2 = null_mut();
                hok!(api, hipIpcOpenMemHandle(&mut q2, h, hipIpcMemLazyEnablePeerAccess_R0500));
                assert_eq!(q, q2, "HIP-IPC-027: a repeated open returns the same pointer");
                // HIP-IPC-030: the local base and the exporter's size.
                let (mut base, mut len) = (null_mut(), 0usize);
                hok!(api, hipMemGetAddressRange(&mut base, &mut len, q.cast::<u8>().wrapping_add(100).cast()));
                assert_eq!((base, len), (q, size), "HIP-IPC-030");
                // HIP-IPC-031: the imported memory belongs to the current device.
                let mut attr = hipPointerAttribute_t::default();
                hok!(api, hipPointerGetAttributes(&mut attr, q));
                assert_eq!((attr.type_, attr.device), (hipMemoryTypeDevice, 1), "HIP-IPC-031");
                opened = Some((q, size));
                // HIP-IPC-026: the handle was made from base+128; element 0 is at the returned pointer.
                reply(format!("ok {} {len}", checksum(&read(&api, q, size))));
            }
            ["leaks"] => {
                let leaks = vmmkit_emulator::leaks::report();
                let words: Vec<String> =
                    leaks.iter().map(|l| format!("{:?}:{}:{}:{}", l.kind, l.bytes, l.created_by, l.what)).collect();
                // (An empty packet would read as a closed channel.)
                reply(if words.is_empty() { "none".into() } else { words.join(" | ") });
            }
            ["sum"] => {
                let (q, size) = opened.expect("opened");
                reply(checksum(&read(&api, q, size)));
            }
            ["fill", byte] => {
                let (q, size) = opened.expect("opened");
                hok!(api, hipMemset(q, byte.parse::<i32>().expect("byte"), size));
                reply("ok");
            }
            ["close"] => {
                let (q, _) = opened.take().expect("opened");
                // Two opens: two closes (the second by an interior pointer, HIP-IPC-043), then one too many.
                let a = hcall!(api, hipIpcCloseMemHandle(q));
                let b = hcall!(api, hipIpcCloseMemHandle(q.cast::<u8>().wrapping_add(64).cast()));
                let c = hcall!(api, hipIpcCloseMemHandle(q));
                let rule = hip_common::message();
                // HIP-IPC-044 (6.0+): the pointer is unknown now: Unregistered, device −2.
                let mut attr = hipPointerAttribute_t::default();
                hok!(api, hipPointerGetAttributes(&mut attr, q));
                assert_eq!((attr.type_, attr.device), (hipMemoryTypeUnregistered, -2), "HIP-IPC-044");
                reply(format!("closed {} {} {} {}", a.0, b.0, c.0, rule.split(':').next().unwrap_or("")));
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

/// Allocates `size` bytes with hipMalloc and fills them with `data`.
fn malloc_with(api: &HipApi, data: &[u8]) -> *mut c_void {
    let mut p = null_mut();
    hok!(api, hipMalloc(&mut p, data.len()));
    write(api, p, data);
    p
}

/// The acceptance flow of hip.md §5 "IPC, several processes": an interior
/// export, double open with the same pointer, data visible both ways, a third
/// close → 1, the child's status checked; then HIP-IPC-046 (the exporter
/// frees while another process has the memory open) and, at the end, nothing
/// left in the root.
#[test]
fn ipc_trio_across_processes() {
    isolated("ipc_trio_across_processes", ENV, |root| {
        let api = hip();
        hok!(api, hipSetDevice(0));
        let size = (1 << 20) + 257; // not a multiple of a page: exact sizes travel (HIP-IPC-010)
        let data = pattern(size, 7);
        let p = malloc_with(&api, &data);
        let mut h = hipIpcMemHandle_t::default();
        // HIP-IPC-003: an interior pointer names its allocation.
        hok!(api, hipIpcGetMemHandle(&mut h, p.cast::<u8>().wrapping_add(128).cast()));
        let mut q = null_mut();
        // HIP-IPC-021 before the handle: one's own handle with flags 123 is 1, not 201.
        hexpect!(api, hipIpcOpenMemHandle(&mut q, h, 123), HipError::INVALID_VALUE, "HIP-IPC-021");
        hexpect!(api, hipIpcOpenMemHandle(&mut q, h, 1), HipError::INVALID_CONTEXT, "HIP-IPC-024");
        // HIP-IPC-041: the exporter's own pointer was never opened.
        hexpect!(api, hipIpcCloseMemHandle(p), HipError::INVALID_VALUE, "HIP-IPC-041");

        let open = format!("open {} {size}", handle_hex(&h));
        let mut child = Peer::start("ipc_importer");
        child.send(&open);
        assert_eq!(child.recv(), format!("ok {} {size}", checksum(&data)), "the child sees the pattern from element 0");
        child.send("fill 99");
        assert_eq!(child.recv(), "ok");
        assert_eq!(read(&api, p, size), vec![99u8; size], "the child's writes are visible to the exporter");
        write(&api, p, &data);
        child.send("sum");
        assert_eq!(child.recv(), checksum(&data).to_string(), "the exporter's writes are visible to the child");
        child.send("close");
        assert_eq!(child.recv(), "closed 0 0 1 HIP-IPC-042", "two closes, then one too many");
        child.finish();

        // HIP-IPC-046: the exporter frees while another process has it open.
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
        assert_eq!(holder.recv(), "closed 0 0 1 HIP-IPC-042");
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
        assert_eq!(holder.recv(), "closed 0 0 1 HIP-IPC-042");
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
        assert_eq!(holder.recv(), "closed 0 0 1 HIP-IPC-042");
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
        assert_eq!(child.recv(), "closed 0 0 1 HIP-IPC-042");
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
