//! CUDA-IPC: the legacy IPC trio within one process (cuda.md §3.2).

use vmmkit_sys::cuda::*;

use crate::cuda::Ctx;
use crate::outcome::Failure;

/// CUDA-IPC-001: VMM (cuMemMap'ed) memory is not eligible for
/// cuIpcGetMemHandle; cuMemAlloc memory is.
pub fn get_vmm_memory(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let cuda = cx.cuda();
    let mut handle = CUipcMemHandle::default();
    cx.expect_code("cuIpcGetMemHandle(cuMemMap'ed address)", cuda.cuIpcGetMemHandle(&mut handle, va))?;
    let p = cx.alloc(4096)?;
    cx.expect_ok("cuIpcGetMemHandle(cuMemAlloc'ed base)", cuda.cuIpcGetMemHandle(&mut handle, p))?;
    cx.free(p)?;
    cx.unmap_free(va, size)?;
    cx.release(h)
}

/// CUDA-IPC-002 (undetermined; emulator: accepted): cuIpcGetMemHandle on
/// an interior pointer of a cuMemAlloc allocation.
pub fn get_interior(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let p = cx.alloc(8192)?;
    let mut handle = CUipcMemHandle::default();
    cx.expect_ok("cuIpcGetMemHandle(base + 256)", cx.cuda().cuIpcGetMemHandle(&mut handle, p + 256))?;
    cx.free(p)
}

/// CUDA-IPC-003: Get may be repeated; memory freed and allocated again at
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

/// CUDA-IPC-004 (undetermined; emulator: 1): cuIpcOpenMemHandle with flags
/// outside {0, 1}. In one process the handle is this process's own, so the
/// emulator's order (flags before CUDA-IPC-005) is what is checked.
pub fn open_flags(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(4096)?;
    let mut handle = CUipcMemHandle::default();
    crate::cuda::setup("cuIpcGetMemHandle", cuda.cuIpcGetMemHandle(&mut handle, p))?;
    let mut q = 0;
    cx.expect_code("cuIpcOpenMemHandle(flags 7)", cuda.cuIpcOpenMemHandle(&mut q, handle, 7))?;
    cx.free(p)
}

/// CUDA-IPC-005: a process cannot open a handle it made (201).
pub fn open_own(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let p = cx.alloc(4096)?;
    let mut handle = CUipcMemHandle::default();
    crate::cuda::setup("cuIpcGetMemHandle", cuda.cuIpcGetMemHandle(&mut handle, p))?;
    let mut q = 0;
    let r = cuda.cuIpcOpenMemHandle(&mut q, handle, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    cx.expect_code("cuIpcOpenMemHandle(own handle)", r)?;
    cx.free(p)
}

/// CUDA-IPC-009 (undetermined; emulator: 1): cuIpcCloseMemHandle of a
/// pointer that was never opened (the exporter's own allocation).
pub fn close_never_opened(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let p = cx.alloc(4096)?;
    cx.expect_code("cuIpcCloseMemHandle(cuMemAlloc'ed pointer)", cx.cuda().cuIpcCloseMemHandle(p))?;
    cx.free(p)
}
