//! CUDA-VMM export and import of POSIX fds, in one process and with a peer
//! that receives the fd with `SCM_RIGHTS`, and the lifetime rules (cuda.md
//! §3.3, [CUDA-VMM-015](vmmkit_sys::cuda::rules::VMM_015) … 018, 020).

use std::os::fd::{AsFd, AsRawFd};

use vmmkit_sys::cuda::*;

use crate::cuda::peer::Request;
use crate::cuda::{Ctx, prop, setup};
use crate::outcome::Failure;

const FD: CUmemAllocationHandleType = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;

/// `osHandle` of an fd: its value cast to a pointer (cuda.md §2.1).
fn os_handle(fd: &std::os::fd::OwnedFd) -> *mut std::ffi::c_void {
    fd.as_raw_fd() as usize as *mut std::ffi::c_void
}

/// [CUDA-VMM-015](vmmkit_sys::cuda::rules::VMM_015) (undetermined code; emulator: 1): exporting a POSIX fd of
/// an allocation created without requesting that type.
pub fn export_not_requested(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(g, &prop(0, CU_MEM_HANDLE_TYPE_NONE))?;
    let mut fd = -1i32;
    let r = cx.cuda().cuMemExportToShareableHandle((&raw mut fd).cast(), h, FD, 0);
    drop(crate::cuda::Cuda::own_exported_fd(fd));
    cx.expect_code("cuMemExportToShareableHandle(type not requested)", r)?;
    cx.release(h)
}

/// [CUDA-VMM-016](vmmkit_sys::cuda::rules::VMM_016): export writes an `int` (the four bytes after it are left
/// alone) and every export is a new fd.
pub fn export_writes_int(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(g, &prop(0, FD))?;
    let mut slot = u64::MAX;
    let r = cx.cuda().cuMemExportToShareableHandle((&raw mut slot).cast(), h, FD, 0);
    let first = crate::cuda::Cuda::own_exported_fd(slot as u32 as i32);
    cx.expect_ok("cuMemExportToShareableHandle into an 8-byte slot", r)?;
    cx.ensure(
        "bytes 4..8 of the slot",
        slot >> 32 == 0xffff_ffff,
        "untouched (an int is written)",
        format!("{slot:#x}"),
    )?;
    let second = cx.export_fd(h)?;
    let a = first.as_ref().map_or(-1, |f| f.as_raw_fd());
    cx.ensure("a second export", a != second.as_raw_fd(), "a new fd", format!("fd {a} twice"))?;
    cx.release(h)
}

/// [CUDA-VMM-017](vmmkit_sys::cuda::rules::VMM_017), as cuda-samples memMapIPCDrv: this process creates a
/// POSIX-fd allocation, maps it, writes a pattern, exports an fd and sends
/// it with `SCM_RIGHTS`, then closes its fd and releases its handle; the peer
/// imports the fd **value**, closes the fd, maps, releases, sets access and
/// reads the pattern; its writes come back here.
pub fn import_in_peer(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 21)?;
    let fd = cx.export_fd(h)?;
    let mut peer = cx.peer("importer", 0)?;
    let r = peer.call_fds(&Request::ImportMap { size: size as u64, seed: 21, by_value: true }, &[fd.as_fd()])?;
    drop(fd);
    cx.release(h)?;
    let step = if r.text.is_empty() { "peer: import, map and read".to_string() } else { format!("peer: {}", r.text) };
    cx.expect_ok(&step, r.code)?;
    cx.ensure("peer reads the exporter's pattern", r.value != 0 && r.text.is_empty(), "pattern 21", &r.text)?;
    peer.setup(&Request::Fill { ptr: r.value, len: size as u64, seed: 22 })?;
    cx.verify("the exporter reads the peer's pattern", va, size, 22)?;
    peer.setup(&Request::UnmapFree { ptr: r.value, size: size as u64 })?;
    peer.exit()?;
    cx.unmap_free(va, size)
}

/// [CUDA-VMM-018](vmmkit_sys::cuda::rules::VMM_018) (undetermined; emulator: allowed): the exporting process
/// imports its own fd.
pub fn import_in_exporter(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(g, &prop(0, FD))?;
    let fd = cx.export_fd(h)?;
    let mut got = 0;
    let r = cx.cuda().cuMemImportFromShareableHandle(&mut got, os_handle(&fd), FD);
    cx.expect_ok("cuMemImportFromShareableHandle(own fd)", r)?;
    cx.release(got)?;
    cx.release(h)
}

/// [CUDA-VMM-020](vmmkit_sys::cuda::rules::VMM_020): the data survives releasing every handle and closing every
/// fd while a mapping remains, and a peer that mapped the memory exiting
/// while this process still has it mapped.
pub fn data_outlives_handles(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 33)?;
    let fd = cx.export_fd(h)?;
    let mut imported = 0;
    setup(
        "cuMemImportFromShareableHandle",
        cx.cuda().cuMemImportFromShareableHandle(&mut imported, os_handle(&fd), FD),
    )?;
    let vb = cx.reserve(size)?;
    cx.map(vb, size, imported)?;
    cx.access(vb, size, CU_MEM_ACCESS_FLAGS_PROT_READWRITE)?;
    let mut peer = cx.peer("importer", 0)?;
    let r = peer.call_fds(&Request::ImportMap { size: size as u64, seed: 33, by_value: true }, &[fd.as_fd()])?;
    cx.expect_ok("peer: import, map and read", r.code)?;
    cx.release(imported)?;
    cx.release(h)?;
    drop(fd);
    cx.verify("read after every release and close", vb, size, 33)?;
    peer.setup(&Request::Fill { ptr: r.value, len: size as u64, seed: 34 })?;
    peer.exit()?; // exits with the memory still mapped there
    cx.verify("read after the peer exited", vb, size, 34)?;
    cx.unmap_free(va, size)?;
    cx.verify("read after the first mapping went", vb, size, 34)?;
    cx.unmap_free(vb, size)
}
