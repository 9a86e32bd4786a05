//! CUDA-IPC: the legacy IPC trio (cuda.md §3.2), within one process and
//! with a peer process that opens the handle.

use vmmkit_sys::cuda::*;

use crate::cuda::peer::{Peer, Request};
use crate::cuda::{Ctx, setup};
use crate::outcome::Failure;

/// [CUDA-IPC-001](vmmkit_sys::cuda::rules::IPC_001): VMM (cuMemMap'ed) memory and memory-pool memory are not
/// eligible for cuIpcGetMemHandle; cuMemAlloc memory is.
pub fn get_vmm_memory(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let cuda = cx.cuda();
    let mut handle = CUipcMemHandle::default();
    cx.expect_code("cuIpcGetMemHandle(cuMemMap'ed address)", cuda.cuIpcGetMemHandle(&mut handle, va))?;
    let mut pooled = 0;
    setup("cuMemAllocAsync", cuda.cuMemAllocAsync(&mut pooled, 4096, std::ptr::null_mut()))?;
    cx.expect_code("cuIpcGetMemHandle(cuMemAllocAsync'ed pool memory)", cuda.cuIpcGetMemHandle(&mut handle, pooled))?;
    setup("cuMemFreeAsync", cuda.cuMemFreeAsync(pooled, std::ptr::null_mut()))?;
    let p = cx.alloc(4096)?;
    cx.expect_ok("cuIpcGetMemHandle(cuMemAlloc'ed base)", cuda.cuIpcGetMemHandle(&mut handle, p))?;
    cx.free(p)?;
    cx.unmap_free(va, size)?;
    cx.release(h)
}

/// [CUDA-IPC-002](vmmkit_sys::cuda::rules::IPC_002) (undetermined; emulator: accepted): cuIpcGetMemHandle on
/// an interior pointer of a cuMemAlloc allocation.
pub fn get_interior(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let p = cx.alloc(8192)?;
    let mut handle = CUipcMemHandle::default();
    cx.expect_ok("cuIpcGetMemHandle(base + 256)", cx.cuda().cuIpcGetMemHandle(&mut handle, p + 256))?;
    cx.free(p)
}

/// [CUDA-IPC-003](vmmkit_sys::cuda::rules::IPC_003): Get may be repeated; memory freed and allocated again at
/// the same address gets a different handle (judged only when the address
/// does come back).
pub fn get_repeat_and_realloc(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(1 << 20)?;
    let (mut a, mut b) = (CUipcMemHandle::default(), CUipcMemHandle::default());
    cx.expect_ok("cuIpcGetMemHandle", cuda.cuIpcGetMemHandle(&mut a, p))?;
    cx.expect_ok("cuIpcGetMemHandle again", cuda.cuIpcGetMemHandle(&mut b, p))?;
    cx.note(format!("repeated Gets are {}", if a == b { "byte-identical" } else { "different bytes" }));
    cx.free(p)?;
    let q = cx.alloc(1 << 20)?;
    cx.expect_ok("cuIpcGetMemHandle after realloc", cuda.cuIpcGetMemHandle(&mut b, q))?;
    if q == p {
        cx.ensure("handle of memory reallocated at the same address", a != b, "a different handle", "the same bytes")?;
    } else {
        cx.note("the reallocation came back elsewhere; uniqueness not judged");
    }
    cx.free(q)
}

/// [CUDA-IPC-004](vmmkit_sys::cuda::rules::IPC_004) (undetermined; emulator: 1): cuIpcOpenMemHandle with flags
/// outside {0, 1}. In one process the handle is this process's own, so the
/// emulator's order (flags before [CUDA-IPC-005](vmmkit_sys::cuda::rules::IPC_005)) is what is checked.
pub fn open_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(4096)?;
    let mut handle = CUipcMemHandle::default();
    setup("cuIpcGetMemHandle", cuda.cuIpcGetMemHandle(&mut handle, p))?;
    let mut q = 0;
    cx.expect_code("cuIpcOpenMemHandle(flags 7)", cuda.cuIpcOpenMemHandle(&mut q, handle, 7))?;
    cx.free(p)
}

/// [CUDA-IPC-005](vmmkit_sys::cuda::rules::IPC_005): a process cannot open a handle it made (201).
pub fn open_own(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(4096)?;
    let mut handle = CUipcMemHandle::default();
    setup("cuIpcGetMemHandle", cuda.cuIpcGetMemHandle(&mut handle, p))?;
    let mut q = 0;
    let r = cuda.cuIpcOpenMemHandle(&mut q, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    cx.expect_code("cuIpcOpenMemHandle(own handle)", r)?;
    cx.free(p)
}

/// [CUDA-IPC-009](vmmkit_sys::cuda::rules::IPC_009) (undetermined; emulator: 1): cuIpcCloseMemHandle of a
/// pointer that was never opened (the exporter's own allocation).
pub fn close_never_opened(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let p = cx.alloc(4096)?;
    cx.expect_code("cuIpcCloseMemHandle(cuMemAlloc'ed pointer)", cx.cuda().cuIpcCloseMemHandle(p))?;
    cx.free(p)
}

// ---- two processes: this one exports, a peer (`vmmkit __cuda_peer`) opens ----

/// `len` bytes of cuMemAlloc memory holding the pattern `seed`, and the 64
/// bytes of its IPC handle, copied out as plain bytes ([CUDA-IPC-011](vmmkit_sys::cuda::rules::IPC_011)).
fn exported(cx: &Ctx, len: usize, seed: u8) -> Result<(CUdeviceptr, Vec<u8>), Failure> {
    cx.context(0)?;
    let p = cx.alloc(len)?;
    cx.write(p, len, seed)?;
    let mut h = CUipcMemHandle::default();
    setup("cuIpcGetMemHandle", cx.cuda().cuIpcGetMemHandle(&mut h, p))?;
    Ok((p, h.reserved.iter().map(|&c| c as u8).collect()))
}

/// The peer's pointer for `handle`, opened with the lazy flag.
fn open_in(cx: &Ctx, peer: &mut Peer, handle: &[u8], step: &str) -> Result<u64, Failure> {
    let r = peer.call(&Request::IpcOpen { handle: handle.to_vec(), flags: CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS })?;
    cx.expect_ok(step, r.code)?;
    Ok(r.value)
}

/// The peer reads `len` bytes at `ptr` and finds the pattern `seed`.
fn peer_sees(cx: &Ctx, peer: &mut Peer, step: &str, ptr: u64, len: usize, seed: u8) -> Result<(), Failure> {
    let r = peer.setup(&Request::Verify { ptr, len: len as u64, seed })?;
    cx.ensure(step, r.value == 1, format!("pattern {seed} ({len} bytes)"), r.text)
}

/// [CUDA-IPC-006](vmmkit_sys::cuda::rules::IPC_006): a second open of the same handle in the same context
/// returns the same pointer and counts: after one close the memory is still
/// there; the second close works.
pub fn open_twice(cx: &mut Ctx) -> Result<(), Failure> {
    let len = 1 << 20;
    let (p, handle) = exported(cx, len, 41)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: cuIpcOpenMemHandle")?;
    let b = open_in(cx, &mut peer, &handle, "peer: cuIpcOpenMemHandle again")?;
    cx.ensure("the second open's pointer", a == b, format!("{a:#x}"), format!("{b:#x}"))?;
    peer_sees(cx, &mut peer, "peer reads after two opens", a, len, 41)?;
    cx.expect_ok("peer: first cuIpcCloseMemHandle", peer.call(&Request::IpcClose { ptr: a })?.code)?;
    peer_sees(cx, &mut peer, "peer reads with one open left", a, len, 41)?;
    cx.expect_ok("peer: second cuIpcCloseMemHandle", peer.call(&Request::IpcClose { ptr: a })?.code)?;
    peer.exit()?;
    cx.free(p)
}

/// [CUDA-IPC-008](vmmkit_sys::cuda::rules::IPC_008) (observed): the importer's address need not be the
/// exporter's; the note says which it was.
pub fn importer_address(cx: &mut Ctx) -> Result<(), Failure> {
    let len = 1 << 20;
    let (p, handle) = exported(cx, len, 42)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: cuIpcOpenMemHandle")?;
    cx.note(format!(
        "exporter {p:#x}, importer {a:#x}: {}",
        if a == p { "the same address" } else { "different addresses" }
    ));
    cx.expect_ok("peer: cuIpcCloseMemHandle", peer.call(&Request::IpcClose { ptr: a })?.code)?;
    peer.exit()?;
    cx.free(p)
}

/// [CUDA-IPC-010](vmmkit_sys::cuda::rules::IPC_010) (observed; undefined in CUDA): the exporter frees while the
/// importer has the memory open. The codes of the exporter's cuMemFree and
/// the importer's later close are recorded; nothing is read after the free.
pub fn free_while_open(cx: &mut Ctx) -> Result<(), Failure> {
    let len = 1 << 20;
    let (p, handle) = exported(cx, len, 43)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: cuIpcOpenMemHandle")?;
    let freed = CuResult(cx.cuda().cuMemFree(p));
    let closed = CuResult(peer.call(&Request::IpcClose { ptr: a })?.code);
    cx.note(format!("exporter's cuMemFree: {freed}; importer's cuIpcCloseMemHandle after it: {closed}"));
    peer.exit()
}

/// [CUDA-IPC-011](vmmkit_sys::cuda::rules::IPC_011): the handle is a plain 64-byte blob: its bytes, carried
/// over any channel, open the memory in another process, and writes go
/// both ways.
pub fn handle_is_bytes(cx: &mut Ctx) -> Result<(), Failure> {
    let len = 1 << 20;
    let (p, handle) = exported(cx, len, 44)?;
    cx.ensure("the handle's size", handle.len() == CU_IPC_HANDLE_SIZE, CU_IPC_HANDLE_SIZE, handle.len())?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: cuIpcOpenMemHandle of the copied bytes")?;
    peer_sees(cx, &mut peer, "peer reads the exporter's pattern", a, len, 44)?;
    peer.setup(&Request::Fill { ptr: a, len: len as u64, seed: 45 })?;
    cx.verify("the exporter reads the peer's pattern", p, len, 45)?;
    cx.expect_ok("peer: cuIpcCloseMemHandle", peer.call(&Request::IpcClose { ptr: a })?.code)?;
    peer.exit()?;
    cx.free(p)
}
