//! Sharing device memory between real processes, each flow written once and
//! run on the HIP and the CUDA table (`per_dialect!`): legacy IPC (the
//! simpleIPC pattern; cuda.md §4, hip.md §5 "IPC, several processes") and a
//! VMM POSIX-fd shareable handle sent with `SCM_RIGHTS` (the memMapIPCDrv
//! pattern; cuda.md CUDA-VMM-015 … 020, hip.md §5 "VMM, two or three
//! processes"). The importers are `common::sharing`'s peers; each vendor's
//! own checks on the way are its [`Sharing`] implementation's. Each test
//! runs in its own process with its own `VMMKIT_ROOT`.

mod common;
mod hip_common;

use std::os::fd::{AsFd, AsRawFd, FromRawFd, OwnedFd};

use common::dialect::{Cuda, Dialect, Hip, checksum, pattern};
use common::sharing::{EXPORTER, Sharing, ok, sum};
use common::{Peer, isolated};
use hip_common::shared_left_after_gc;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

/// The peers: this binary, run in a role by `Peer::start` (`ROLE-DIALECT`).
#[test]
fn peer() {
    let Some(role) = common::peer_role() else { return };
    match role.rsplit_once('-') {
        Some((role, "hip")) => common::sharing::serve::<Hip>(role),
        Some((role, "cuda")) => common::sharing::serve::<Cuda>(role),
        _ => panic!("unknown role {role}"),
    }
}

/// Starts the importer `role` of dialect `D`.
fn importer<D: Dialect>(role: &str) -> Peer {
    Peer::start(&format!("{role}-{}", D::NAME))
}

/// The rows of `size` bytes at `va`, which must all be `byte`.
fn assert_filled<D: Dialect>(d: &D, va: usize, size: usize, byte: u8, what: &str) {
    let mut out = vec![0u8; size];
    ok(d, d.read(va, &mut out), "read");
    assert!(out.iter().all(|&b| b == byte), "{what}: not all {byte}");
}

/// Legacy IPC across two processes, as simpleIPC: the parent allocates a
/// size that is no multiple of a page (exact sizes travel), writes a
/// pattern and sends the 64-byte handle, made from an interior pointer
/// (CUDA-IPC-002, HIP-IPC-003), as text; its own open is refused. The child
/// opens it twice (the same pointer), sees the exporter's range, reads the
/// pattern from element 0 and fills the memory, which the parent sees; the
/// parent writes, which the child sees; the child closes as often as it
/// opened (the vendor's checks of interior and extra closes). Once the
/// parent frees, a new open of the same handle fails, and nothing is left.
fn legacy_ipc_between_processes<D: Sharing>() {
    isolated(&format!("legacy_ipc_between_processes_{}", D::NAME), ENV, |root| {
        let d = D::open();
        ok(&d, d.set_device(EXPORTER), "set device");
        let size = (1 << 20) + 257;
        let data = pattern(size, 7);
        let p = ok(&d, d.malloc(size), "malloc");
        ok(&d, d.write(p, &data), "write");
        let handle = ok(&d, d.ipc_get(p + 128), "an IPC handle of an interior pointer");
        assert_eq!(d.ipc_open(&handle, 1), Err(D::OWN_OPEN), "the exporter opens its own handle");

        let open = format!("open {handle} {size}");
        let mut child = importer::<D>("ipc_importer");
        child.send(&open);
        assert_eq!(child.recv(), format!("ok {} {size}", checksum(&data)), "the child reads from element 0");
        child.send("fill 99");
        assert_eq!(child.recv(), "ok");
        assert_filled(&d, p, size, 99, "the child's writes, seen by the exporter");
        ok(&d, d.write(p, &data), "write again");
        child.send("sum");
        assert_eq!(child.recv(), checksum(&data).to_string(), "the exporter's writes, seen by the child");
        child.send("close");
        assert_eq!(child.recv(), "closed");
        // CUDA-IPC-009: the exporter is unaffected by the importer's closes.
        assert_eq!(sum(&d, p, size), checksum(&data));

        ok(&d, d.mem_free(p), "free");
        child.send(&open);
        assert_eq!(child.recv(), format!("err {}", D::FREED_OPEN), "an open after the free");
        child.finish();
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the allocation");
    });
}

per_dialect!(legacy_ipc_between_processes;
    legacy_ipc_between_processes_hip: Hip, legacy_ipc_between_processes_cuda: Cuda);

/// A VMM allocation shared as a POSIX fd, as memMapIPCDrv: the parent
/// creates it with the POSIX-fd type requested, maps it and writes a
/// pattern, exports an `int` fd (only the low 4 bytes of an 8-byte slot
/// are written, CUDA-VMM-016, HIP-VMM-025; every export is a new fd) and
/// sends it with `SCM_RIGHTS`, then closes its fd and releases its handle
/// while mapped (CUDA-VMM-005, HIP-VMM-030: the mapping keeps the memory).
/// The child imports it (after the vendor's checks of its conventions),
/// maps it, reads the pattern and fills the memory, which the parent sees.
/// After the child unmapped and exited, the parent still reads
/// (CUDA-VMM-020); nothing is left once it unmaps.
fn vmm_fd_over_scm_rights<D: Sharing>() {
    isolated(&format!("vmm_fd_over_scm_rights_{}", D::NAME), ENV, |root| {
        let d = D::open();
        ok(&d, d.set_device(EXPORTER), "set device");
        let mut child = importer::<D>("vmm_importer");

        let size = 2 * D::GRANULE;
        let h = ok(&d, d.alloc(EXPORTER, size), "create");
        let va = ok(&d, d.reserve(size), "reserve");
        ok(&d, d.map(va, size, h, EXPORTER), "map");
        let data = pattern(size, 3);
        ok(&d, d.write(va, &data), "write");
        let mut slot: u64 = u64::MAX;
        ok(&d, d.export_into(h, (&raw mut slot).cast()), "export");
        assert_eq!(slot >> 32, 0xffff_ffff, "only an int is written");
        let fd = slot as u32 as i32;
        assert!(fd > 2, "an fd: {fd}");
        // SAFETY: the export made this fd for us to own.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let again = ok(&d, d.export(h, false), "a second export");
        assert_ne!(again.value(), fd.as_raw_fd(), "every export is a new fd");
        drop(again);
        child.send_fds("take", &[fd.as_fd()]);
        assert_eq!(child.recv(), "ok", "the child holds the fd");
        drop(fd);
        ok(&d, d.free(h), "release while mapped");

        child.send(&format!("import {size}"));
        assert_eq!(child.recv(), format!("ok {}", checksum(&data)), "the child reads the parent's pattern");
        child.send("fill 77");
        assert_eq!(child.recv(), "ok");
        assert_filled(&d, va, size, 77, "the child's writes, seen by the parent");
        child.send("unmap");
        assert_eq!(child.recv(), "ok");
        child.finish();
        // The child is gone; the parent's mapping still holds the data.
        assert_filled(&d, va, 8, 77, "after the child exited");
        ok(&d, d.unmap(va), "unmap");
        ok(&d, d.release(va), "release the reservation");
        assert_eq!(shared_left_after_gc(root), Vec::<String>::new(), "nothing outlives the handles, maps and fds");
    });
}

per_dialect!(vmm_fd_over_scm_rights; vmm_fd_over_scm_rights_hip: Hip, vmm_fd_over_scm_rights_cuda: Cuda);
