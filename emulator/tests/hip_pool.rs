//! HIP memory-pool IPC across real processes (HIP-POOL-017, 018): the parent
//! makes a POSIX-fd pool, allocates from it, writes a pattern, sends the
//! pool's fd (`SCM_RIGHTS`) and a pointer's 64-byte export data to a child,
//! which imports the pool and the pointer, reads the pattern, writes one
//! back, and frees it; then the exporter frees and trims an allocation the
//! child still has open, which stays readable there. Each test runs in its
//! own process and `VMMKIT_ROOT`; every wait has the channel's deadline.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::c_void;
use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};
use std::ptr::null_mut;

use common::{Peer, isolated, next_command_fds, reply};
use hip_common::{bytes_from_hex, bytes_hex, checksum, hip, pattern, read, shared_left_after_gc, write};
use vmmkit_sys::hip::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];
const SIZE: usize = 1 << 20;

fn data_hex(d: &hipMemPoolPtrExportData) -> String {
    bytes_hex(&d.reserved.map(|b| b as std::ffi::c_char))
}

fn data_from_hex(s: &str) -> hipMemPoolPtrExportData {
    let mut c = [0 as std::ffi::c_char; 64];
    bytes_from_hex(s, &mut c);
    hipMemPoolPtrExportData { reserved: c.map(|b| b as u8) }
}

/// The peers: this binary, run in a role by `Peer::start`.
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    assert_eq!(role, "pool_importer");
    let api = hip();
    hok!(api, hipSetDevice(0));
    let mut pool: hipMemPool_t = null_mut();
    // Every pool imported, in order (`pool` is the last).
    let mut pools: Vec<hipMemPool_t> = Vec::new();
    let mut held: Vec<OwnedFd> = Vec::new();
    while let Some((cmd, mut fds)) = next_command_fds() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["pool"] => {
                let fd = fds.pop().expect("the pool fd came with the command");
                // HIP-POOL-014: the fd value itself, cast to a pointer.
                let h = fd.as_raw_fd() as usize as *mut c_void;
                hok!(api, hipMemPoolImportFromShareableHandle(&mut pool, h, hipMemHandleTypePosixFileDescriptor, 0));
                pools.push(pool);
                held.push(fd);
                reply("ok");
            }
            ["import", hex] | ["import", _, hex] => {
                let into = match words.as_slice() {
                    ["import", i, _] => pools[i.parse::<usize>().expect("pool index")],
                    _ => pool,
                };
                let mut data = data_from_hex(hex);
                let mut q = null_mut();
                let rc = hcall!(api, hipMemPoolImportPointer(&mut q, into, &mut data));
                if rc == HipError::SUCCESS {
                    reply(format!("ok {}", q as usize));
                } else {
                    reply(format!("err {}", rc.0));
                }
            }
            ["read", at] => {
                let q = at.parse::<usize>().expect("address") as *mut c_void;
                reply(format!("ok {}", checksum(&read(&api, q, SIZE))));
            }
            ["fill", at, seed] => {
                let q = at.parse::<usize>().expect("address") as *mut c_void;
                write(&api, q, &pattern(SIZE, seed.parse().expect("seed")));
                reply("ok");
            }
            ["free_async", at] => {
                let q = at.parse::<usize>().expect("address") as *mut c_void;
                hok!(api, hipFreeAsync(q, null_mut()));
                reply("ok");
            }
            ["free", at] => {
                let q = at.parse::<usize>().expect("address") as *mut c_void;
                hok!(api, hipFree(q));
                reply("ok");
            }
            ["destroy"] => {
                hok!(api, hipMemPoolDestroy(pool));
                held.clear();
                reply("ok");
            }
            ["destroy", i] => {
                hok!(api, hipMemPoolDestroy(pools[i.parse::<usize>().expect("pool index")]));
                reply("ok");
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

fn export_pool(api: &HipApi, pool: hipMemPool_t) -> OwnedFd {
    let mut fd = -1i32;
    hok!(api, hipMemPoolExportToShareableHandle((&raw mut fd).cast(), pool, hipMemHandleTypePosixFileDescriptor, 0));
    assert!(fd > 2, "an fd: {fd}");
    // SAFETY: the export made this fd for us to own.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

fn alloc(api: &HipApi, pool: hipMemPool_t) -> *mut c_void {
    let mut p = null_mut();
    hok!(api, hipMallocFromPoolAsync(&mut p, SIZE, pool, null_mut()));
    p
}

fn export_pointer(api: &HipApi, p: *mut c_void) -> String {
    let mut d = hipMemPoolPtrExportData::default();
    hok!(api, hipMemPoolExportPointer(&mut d, p));
    data_hex(&d)
}

fn new_pool(api: &HipApi) -> hipMemPool_t {
    hok!(api, hipSetDevice(0));
    let props = hipMemPoolProps {
        allocType: hipMemAllocationTypePinned,
        handleTypes: hipMemHandleTypePosixFileDescriptor,
        location: hipMemLocation { type_: hipMemLocationTypeDevice, id: 0 },
        ..Default::default()
    };
    let mut pool = null_mut();
    hok!(api, hipMemPoolCreate(&mut pool, &props));
    pool
}

fn ok_value(line: String) -> String {
    line.strip_prefix("ok ").unwrap_or_else(|| panic!("the child answered {line:?}")).to_string()
}

/// HIP-POOL-017: the pool and a pointer across processes, both ways, freed by
/// the importer with hipFreeAsync and with hipFree.
#[test]
fn pool_pointer_across_processes() {
    isolated("pool_pointer_across_processes", ENV, |root| {
        let api = hip();
        let pool = new_pool(&api);
        let mut child = Peer::start("pool_importer");
        let fd = export_pool(&api, pool);
        child.send_fds("pool", &[fd.as_fd()]);
        assert_eq!(child.recv(), "ok", "the child imports the pool");
        drop(fd);

        for free in ["free_async", "free"] {
            let p = alloc(&api, pool);
            let data = pattern(SIZE, 21);
            write(&api, p, &data);
            child.send(&format!("import {}", export_pointer(&api, p)));
            let q = ok_value(child.recv());
            child.send(&format!("read {q}"));
            assert_eq!(child.recv(), format!("ok {}", checksum(&data)), "the importer reads the exporter's pattern");
            child.send(&format!("fill {q} 22"));
            assert_eq!(child.recv(), "ok");
            assert_eq!(read(&api, p, SIZE), pattern(SIZE, 22), "the exporter sees the importer's writes");
            child.send(&format!("{free} {q}"));
            assert_eq!(child.recv(), "ok", "the importer frees with {free}");
            hok!(api, hipFreeAsync(p, null_mut()));
        }
        child.send("destroy");
        assert_eq!(child.recv(), "ok");
        child.finish();
        hok!(api, hipMemPoolDestroy(pool));
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the pools");
    });
}

/// One pointer imported through two pools of the importer (the same pool
/// imported twice) is one mapping, as in clr, which retains the memory
/// object it already has (device.cpp:1003-1011): destroying one pool lets
/// go of its own import only, so the pointer still reads through the other
/// until that one lets go too.
#[test]
fn one_pointer_imported_through_two_pools_outlives_either_pool() {
    isolated("one_pointer_imported_through_two_pools_outlives_either_pool", ENV, |root| {
        let api = hip();
        let pool = new_pool(&api);
        let mut child = Peer::start("pool_importer");
        for _ in 0..2 {
            let fd = export_pool(&api, pool);
            child.send_fds("pool", &[fd.as_fd()]);
            assert_eq!(child.recv(), "ok", "the child imports the pool");
        }
        let p = alloc(&api, pool);
        let data = pattern(SIZE, 31);
        write(&api, p, &data);
        let hex = export_pointer(&api, p);
        child.send(&format!("import 0 {hex}"));
        let q0 = ok_value(child.recv());
        child.send(&format!("import 1 {hex}"));
        let q1 = ok_value(child.recv());
        assert_eq!(q0, q1, "one mapping, as clr's one memory object");
        child.send("destroy 0");
        assert_eq!(child.recv(), "ok");
        child.send(&format!("read {q1}"));
        assert_eq!(child.recv(), format!("ok {}", checksum(&data)), "the other pool's import is still mapped");
        child.send("destroy 1");
        assert_eq!(child.recv(), "ok");
        child.finish();
        hok!(api, hipFreeAsync(p, null_mut()));
        hok!(api, hipMemPoolDestroy(pool));
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the pools");
    });
}

/// HIP-POOL-018: the exporter frees and trims an allocation the importer has
/// open: the importer still reads it; once the importer let go, a new import
/// of its export data fails with 2 (the emulator withdraws a freed block).
#[test]
fn exporter_frees_first() {
    isolated("exporter_frees_first", ENV, |root| {
        let api = hip();
        let pool = new_pool(&api);
        let mut child = Peer::start("pool_importer");
        let fd = export_pool(&api, pool);
        child.send_fds("pool", &[fd.as_fd()]);
        assert_eq!(child.recv(), "ok");
        let p = alloc(&api, pool);
        let data = pattern(SIZE, 31);
        write(&api, p, &data);
        let hex = export_pointer(&api, p);
        child.send(&format!("import {hex}"));
        let q = ok_value(child.recv());
        hok!(api, hipFreeAsync(p, null_mut()));
        hok!(api, hipMemPoolTrimTo(pool, 0));
        child.send(&format!("read {q}"));
        assert_eq!(child.recv(), format!("ok {}", checksum(&data)), "the importer's view outlives the exporter's free");
        // A process that holds it gets the same pointer again, counted.
        child.send(&format!("import {hex}"));
        assert_eq!(child.recv(), format!("ok {q}"), "a repeated import returns the same pointer");
        for _ in 0..2 {
            child.send(&format!("free_async {q}"));
            assert_eq!(child.recv(), "ok");
        }
        // Once it let go, the freed block cannot be imported again.
        child.send(&format!("import {hex}"));
        assert_eq!(child.recv(), "err 2", "a freed block cannot be imported again");
        child.send("destroy");
        assert_eq!(child.recv(), "ok");
        child.finish();
        drop(fd);
        hok!(api, hipMemPoolDestroy(pool));
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the pools");
    });
}

/// HIP-POOL-014: clr reads the fd back as the low 32 bits of the pointer (a
/// union of `void*` and `int`, hipamd/src/hip_mempool.cpp:423-430), so bits
/// above them do not matter: hip-tests keeps the fd in an `int64_t` that the
/// export wrote only 4 bytes of.
#[test]
fn pool_import_reads_the_fd_from_the_low_32_bits() {
    isolated("pool_import_reads_the_fd_from_the_low_32_bits", ENV, |root| {
        let api = hip();
        let pool = new_pool(&api);
        let fd = export_pool(&api, pool);
        let raw = fd.as_raw_fd() as u32 as usize;
        let h = (0x5a5a_5a5a_0000_0000_usize | raw) as *mut c_void;
        let mut imported = null_mut();
        hok!(api, hipMemPoolImportFromShareableHandle(&mut imported, h, hipMemHandleTypePosixFileDescriptor, 0));
        assert!(!imported.is_null());
        hok!(api, hipMemPoolDestroy(imported));
        drop(fd);
        hok!(api, hipMemPoolDestroy(pool));
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the pools");
    });
}
