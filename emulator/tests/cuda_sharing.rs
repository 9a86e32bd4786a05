//! CUDA sharing between real processes through the emulator's CUDA table:
//! legacy IPC (cuIpcGetMemHandle / cuIpcOpenMemHandle_v2 /
//! cuIpcCloseMemHandle, the simpleIPC pattern, cuda.md §4) and a VMM
//! POSIX-fd shareable handle sent with `SCM_RIGHTS` (the memMapIPCDrv
//! pattern). Each test runs in its own process with its own `VMMKIT_ROOT`;
//! the peer is this binary run again in a role.

// The `cucall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod cuda_common;
mod hip_common;

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use common::{Peer, isolated, next_command, next_command_fds, reply};
use cuda_common::{G, create, cu, handle_from_hex, handle_hex, map_rw, read, setup, write};
use hip_common::{checksum, pattern, shared_left_after_gc};
use vmmkit_sys::cuda::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

/// The peers: this binary, run in a role by `Peer::start`.
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    let api = cu();
    // The importer works on device 1: addresses and devices need not match the exporter's.
    setup(&api, 1);
    match role.as_str() {
        "vmm_importer" => vmm_importer(&api),
        "ipc_importer" => ipc_importer(&api),
        _ => panic!("unknown role {role}"),
    }
}

/// Opens IPC handles sent as hex, reads, writes, closes, on command.
fn ipc_importer(api: &CudaApi) {
    let mut opened: Option<(CUdeviceptr, usize)> = None;
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["open", hex, size] => {
                let h = handle_from_hex(hex);
                let size: usize = size.parse().expect("size");
                let (mut a, mut b) = (0, 0);
                let rc = cucall!(api, cuIpcOpenMemHandle(&mut a, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
                if rc != CuResult::SUCCESS {
                    reply(format!("err {}", rc.0));
                    continue;
                }
                // CUDA-IPC-006: a second open in the same context returns the same pointer.
                cuok!(api, cuIpcOpenMemHandle(&mut b, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
                assert_eq!(a, b, "CUDA-IPC-006");
                // The range is the size cuMemAlloc was asked for.
                let (mut base, mut len) = (0, 0);
                cuok!(api, cuMemGetAddressRange(&mut base, &mut len, a + 1));
                assert_eq!((base, len), (a, size), "the importer's range");
                opened = Some((a, size));
                reply(format!("ok {}", checksum(&read(api, a, size))));
            }
            ["fill", byte] => {
                let (a, size) = opened.expect("opened");
                cuok!(api, cuMemsetD8(a, byte.parse::<u8>().expect("byte"), size));
                reply("ok");
            }
            ["close"] => {
                let (a, size) = opened.take().expect("opened");
                // CUDA-IPC-009: an interior pointer is not what Open returned.
                let rc = cucall!(api, cuIpcCloseMemHandle(a + 1));
                assert_eq!(rc, CuResult::INVALID_VALUE, "interior close");
                cuok!(api, cuIpcCloseMemHandle(a));
                // One open left: the memory is still there.
                assert_eq!(read(api, a, 1).len(), 1);
                cuok!(api, cuIpcCloseMemHandle(a));
                // Closed as often as opened: the pointer is gone, a third close fails.
                let rc = cucall!(api, cuIpcCloseMemHandle(a));
                let mut byte = [0u8];
                let gone = cucall!(api, cuMemcpyDtoH(byte.as_mut_ptr().cast(), a, 1));
                reply(format!("ok {} {} {size}", rc.0, gone.0));
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

/// Receives a VMM fd over the channel, imports it by value, maps it.
fn vmm_importer(api: &CudaApi) {
    // The fd that came with `take`, until `import` uses it.
    let mut held: Option<OwnedFd> = None;
    let mut mapped: Option<(CUmemGenericAllocationHandle, CUdeviceptr, usize)> = None;
    while let Some((cmd, mut fds)) = next_command_fds() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["take"] => {
                held = fds.pop();
                reply(if held.is_some() { "ok" } else { "err no fd came with take" });
            }
            ["import", size] => {
                let size: usize = size.parse().expect("size");
                let received = held.take().expect("an fd taken before import");
                // CUDA-VMM-017: the fd value cast to a pointer; the caller keeps the fd.
                let mut h = 0;
                cuok!(
                    api,
                    cuMemImportFromShareableHandle(
                        &mut h,
                        received.as_raw_fd() as usize as *mut std::ffi::c_void,
                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                    )
                );
                // The classic bug: a pointer to the fd is refused, not taken for one.
                let mut raw = received.as_raw_fd();
                let mut wrong = 0;
                let rc = cucall!(
                    api,
                    cuMemImportFromShareableHandle(
                        &mut wrong,
                        (&raw mut raw).cast(),
                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR
                    )
                );
                assert_eq!(rc, CuResult::INVALID_VALUE, "a pointer to the fd");
                drop(received); // memMapIPCDrv closes its fds after importing
                // The properties are the exporter's: its device (0), its handle types.
                let mut p = CUmemAllocationProp::default();
                cuok!(api, cuMemGetAllocationPropertiesFromHandle(&mut p, h));
                assert_eq!(
                    (p.location.type_, p.location.id, p.requestedHandleTypes),
                    (CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
                );
                // memMapIPCDrv: reserve, map, release at once (the mapping holds it), set access.
                let mut va = 0;
                cuok!(api, cuMemAddressReserve(&mut va, size, 0, 0, 0));
                cuok!(api, cuMemMap(va, size, 0, h, 0));
                cuok!(api, cuMemRelease(h));
                // CUDA-VMM-012: no access yet, for the importer's own device either.
                let mut byte = [0u8];
                let rc = cucall!(api, cuMemcpyDtoH(byte.as_mut_ptr().cast(), va, 1));
                assert_eq!(rc, CuResult::INVALID_VALUE, "CUDA-VMM-012 before SetAccess");
                let desc = cuda_common::access(1, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
                cuok!(api, cuMemSetAccess(va, size, &desc, 1));
                mapped = Some((h, va, size));
                reply(format!("ok {}", checksum(&read(api, va, size))));
            }
            ["fill", byte] => {
                let (_, va, size) = mapped.expect("mapped");
                cuok!(api, cuMemsetD8(va, byte.parse::<u8>().expect("byte"), size));
                reply("ok");
            }
            ["unmap"] => {
                let (_, va, size) = mapped.take().expect("mapped");
                cuok!(api, cuMemUnmap(va, size));
                cuok!(api, cuMemAddressFree(va, size));
                reply("ok");
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

/// Legacy IPC across two processes, as simpleIPC: the parent allocates,
/// writes a pattern and sends the 64-byte handle (made from an interior
/// pointer, CUDA-IPC-002) as text; the child opens it twice (same pointer),
/// reads the pattern and fills the memory, which the parent sees; the child
/// closes as often as it opened, and a third close fails. Then the parent
/// frees, and a new open of the same handle fails.
#[test]
fn legacy_ipc_between_processes() {
    isolated("legacy_ipc_between_processes", ENV, |root| {
        let api = cu();
        setup(&api, 0);
        let mut child = Peer::start("ipc_importer");
        let size = 3 * 4096 + 17;
        let mut p = 0;
        cuok!(api, cuMemAlloc(&mut p, size));
        let data = pattern(size, 5);
        write(&api, p, &data);
        let mut h = CUipcMemHandle::default();
        cuok!(api, cuIpcGetMemHandle(&mut h, p + 128));
        // CUDA-IPC-005: the exporting process cannot open its own handle.
        let mut own = 0;
        cuexpect!(api, cuIpcOpenMemHandle(&mut own, h, 1), CuResult::INVALID_CONTEXT, "CUDA-IPC-005");

        child.send(&format!("open {} {size}", handle_hex(&h)));
        assert_eq!(child.recv(), format!("ok {}", checksum(&data)), "the child reads the pattern from the base");
        child.send("fill 9");
        assert_eq!(child.recv(), "ok");
        assert_eq!(read(&api, p, size), vec![9u8; size], "the parent sees the child's writes");
        child.send("close");
        let gone = CuResult::INVALID_VALUE.0;
        assert_eq!(child.recv(), format!("ok {gone} {gone} {size}"), "a third close and a read after the last fail");
        // CUDA-IPC-009: the exporter and other importers are unaffected by closes.
        assert_eq!(read(&api, p, 4), vec![9u8; 4]);

        // Freed memory: a new open of its handle names nothing live (400).
        cuok!(api, cuMemFree(p));
        child.send(&format!("open {} {size}", handle_hex(&h)));
        assert_eq!(child.recv(), format!("err {}", CuResult::INVALID_HANDLE.0));
        child.finish();
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the allocation");
    });
}

/// A VMM allocation shared as a POSIX fd, as memMapIPCDrv: the parent
/// creates it with POSIX_FILE_DESCRIPTOR requested, maps it, writes a
/// pattern, exports an fd (an `int`, CUDA-VMM-016) and sends it with
/// SCM_RIGHTS, then closes its fd and releases its handle (its mapping
/// keeps the memory); the child imports by value, maps, sets access, reads
/// the pattern and fills the memory, which the parent sees. After the child
/// unmapped and exited, the parent still reads (CUDA-VMM-020); nothing is
/// left once it unmaps.
#[test]
fn vmm_fd_over_scm_rights() {
    isolated("vmm_fd_over_scm_rights", ENV, |root| {
        let api = cu();
        setup(&api, 0);
        let mut child = Peer::start("vmm_importer");

        let size = 2 * G;
        let h = create(&api, 0, size, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        let va = map_rw(&api, h, size, 0);
        let data = pattern(size, 3);
        write(&api, va, &data);
        // CUDA-VMM-016: export writes an int, a new fd at every call.
        let mut slot: u64 = u64::MAX;
        cuok!(
            api,
            cuMemExportToShareableHandle((&raw mut slot).cast(), h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)
        );
        assert_eq!(slot >> 32, 0xffff_ffff, "only an int is written");
        let mut again = -1i32;
        cuok!(
            api,
            cuMemExportToShareableHandle((&raw mut again).cast(), h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)
        );
        assert_ne!(again, slot as u32 as i32, "every export is a new fd");
        // SAFETY: the exports made these fds for us to own.
        let (fd, again) = unsafe { (OwnedFd::from_raw_fd(slot as u32 as i32), OwnedFd::from_raw_fd(again)) };
        drop(again);
        child.send_fds("take", &[fd.as_fd()]);
        assert_eq!(child.recv(), "ok", "the child holds the fd");
        drop(fd);
        // CUDA-VMM-005: release while mapped; the mapping keeps the memory.
        cuok!(api, cuMemRelease(h));

        child.send(&format!("import {size}"));
        assert_eq!(child.recv(), format!("ok {}", checksum(&data)), "the child reads the parent's pattern");
        child.send("fill 77");
        assert_eq!(child.recv(), "ok");
        assert_eq!(read(&api, va, size), vec![77u8; size], "the parent sees the child's writes");
        child.send("unmap");
        assert_eq!(child.recv(), "ok");
        child.finish();
        // CUDA-VMM-020: the child is gone; the parent's mapping still holds the data.
        assert_eq!(read(&api, va, 8), vec![77u8; 8]);
        cuok!(api, cuMemUnmap(va, size));
        cuok!(api, cuMemAddressFree(va, size));
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the handles, maps and fds");
    });
}
