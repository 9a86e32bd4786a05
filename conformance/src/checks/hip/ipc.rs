//! HIP-IPC: hipIpcGetMemHandle, hipIpcOpenMemHandle and
//! hipIpcCloseMemHandle, as far as one process can provoke them.

use std::ptr;

use vmmkit_sys::hip::*;

use crate::backend::BackendKind;
use crate::hip::{Ctx, Va};
use crate::outcome::Failure;

const SIZE: usize = 1 << 20;

/// A hipMalloc allocation on device 0 and its IPC handle.
fn exported(cx: &Ctx) -> Result<(Va, hipIpcMemHandle_t), Failure> {
    cx.device(0)?;
    let p = cx.malloc(SIZE)?;
    let mut h = hipIpcMemHandle_t::default();
    crate::hip::setup("hipIpcGetMemHandle", cx.hip().hipIpcGetMemHandle(&mut h, p))?;
    Ok((p, h))
}

/// [HIP-IPC-001](vmmkit_sys::hip::rules::IPC_001): NULL handle, then NULL devPtr.
pub fn get_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = cx.malloc(SIZE)?;
    let hip = cx.hip();
    cx.expect_code("hipIpcGetMemHandle(NULL, p)", hip.hipIpcGetMemHandle(ptr::null_mut(), p))?;
    let mut h = hipIpcMemHandle_t::default();
    cx.expect_code("hipIpcGetMemHandle(&h, NULL)", hip.hipIpcGetMemHandle(&mut h, ptr::null_mut()))?;
    cx.free(p)
}

/// [HIP-IPC-002](vmmkit_sys::hip::rules::IPC_002): freed memory, one past the end, a host address.
pub fn get_not_hipmalloc(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut h = hipIpcMemHandle_t::default();
    let p = cx.malloc(SIZE)?;
    let end = p.cast::<u8>().wrapping_add(SIZE).cast();
    cx.expect_code("hipIpcGetMemHandle(one past the end)", hip.hipIpcGetMemHandle(&mut h, end))?;
    let mut local = [0u8; 64];
    cx.expect_code("hipIpcGetMemHandle(host stack)", hip.hipIpcGetMemHandle(&mut h, local.as_mut_ptr().cast()))?;
    cx.free(p)?;
    cx.expect_code("hipIpcGetMemHandle(freed)", hip.hipIpcGetMemHandle(&mut h, p))
}

/// [HIP-IPC-003](vmmkit_sys::hip::rules::IPC_003): an interior pointer is accepted.
pub fn get_interior(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = cx.malloc(SIZE)?;
    let mut h = hipIpcMemHandle_t::default();
    let inner = p.cast::<u8>().wrapping_add(128).cast();
    cx.expect_ok("hipIpcGetMemHandle(base + 128)", cx.hip().hipIpcGetMemHandle(&mut h, inner))?;
    cx.free(p)
}

/// [HIP-IPC-007](vmmkit_sys::hip::rules::IPC_007): a hipMemMap'ed address is not exportable.
pub fn get_vmm(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, handle, size) = cx.mapped(1)?;
    let mut h = hipIpcMemHandle_t::default();
    cx.expect_code("hipIpcGetMemHandle(VMM address)", cx.hip().hipIpcGetMemHandle(&mut h, va))?;
    cx.unmapped(va, handle, size)
}

/// [HIP-IPC-020](vmmkit_sys::hip::rules::IPC_020): a NULL devPtr out-pointer.
pub fn open_null(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, h) = exported(cx)?;
    let r = cx.hip().hipIpcOpenMemHandle(ptr::null_mut(), h, hipIpcMemLazyEnablePeerAccess);
    cx.expect_code("hipIpcOpenMemHandle(NULL, …)", r)?;
    cx.free(p)
}

/// [HIP-IPC-021](vmmkit_sys::hip::rules::IPC_021): flags 123 on one's own handle is 1 (flags first), not 201.
pub fn open_bad_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, h) = exported(cx)?;
    let mut q = ptr::null_mut();
    cx.expect_code("hipIpcOpenMemHandle(own handle, flags 123)", cx.hip().hipIpcOpenMemHandle(&mut q, h, 123))?;
    cx.free(p)
}

/// [HIP-IPC-022](vmmkit_sys::hip::rules::IPC_022): an all-zero handle; one's own handle with its size field
/// (bytes 32–39, hip.md §3.2) zeroed gives 1, not the 201 of [HIP-IPC-024](vmmkit_sys::hip::rules::IPC_024).
pub fn open_zero(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, mut h) = exported(cx)?;
    let hip = cx.hip();
    let mut q = ptr::null_mut();
    let zero = hipIpcMemHandle_t::default();
    cx.expect_code("hipIpcOpenMemHandle(zeros)", hip.hipIpcOpenMemHandle(&mut q, zero, hipIpcMemLazyEnablePeerAccess))?;
    h.reserved[32..40].fill(0);
    cx.expect_code(
        "hipIpcOpenMemHandle(own, size 0)",
        hip.hipIpcOpenMemHandle(&mut q, h, hipIpcMemLazyEnablePeerAccess),
    )?;
    cx.free(p)
}

/// [HIP-IPC-023](vmmkit_sys::hip::rules::IPC_023): a garbage handle with a size.
pub fn open_garbage(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let mut q = ptr::null_mut();
    let garbage = hipIpcMemHandle_t { reserved: [0x5a; 64] };
    cx.expect_code(
        "hipIpcOpenMemHandle(garbage)",
        cx.hip().hipIpcOpenMemHandle(&mut q, garbage, hipIpcMemLazyEnablePeerAccess),
    )
}

/// [HIP-IPC-024](vmmkit_sys::hip::rules::IPC_024): a process cannot open its own handle.
pub fn open_own(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, h) = exported(cx)?;
    let mut q = ptr::null_mut();
    cx.expect_code(
        "hipIpcOpenMemHandle(own handle)",
        cx.hip().hipIpcOpenMemHandle(&mut q, h, hipIpcMemLazyEnablePeerAccess),
    )?;
    cx.free(p)
}

/// [HIP-IPC-025](vmmkit_sys::hip::rules::IPC_025): a handle whose pid bytes (48–51) were changed to another
/// process's, so that the token no longer resolves.
pub fn open_forged(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, mut h) = exported(cx)?;
    h.reserved[48] = h.reserved[48].wrapping_add(1);
    let mut q = ptr::null_mut();
    cx.expect_code(
        "hipIpcOpenMemHandle(forged)",
        cx.hip().hipIpcOpenMemHandle(&mut q, h, hipIpcMemLazyEnablePeerAccess),
    )?;
    cx.free(p)
}

/// [HIP-IPC-040](vmmkit_sys::hip::rules::IPC_040): a NULL devPtr.
pub fn close_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("hipIpcCloseMemHandle(NULL)", cx.hip().hipIpcCloseMemHandle(ptr::null_mut()))
}

/// [HIP-IPC-041](vmmkit_sys::hip::rules::IPC_041): the exporter's own hipMalloc pointer was never opened.
pub fn close_not_opened(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, _) = exported(cx)?;
    cx.expect_code("hipIpcCloseMemHandle(own allocation)", cx.hip().hipIpcCloseMemHandle(p))?;
    cx.free(p)
}

/// [HIP-IPC-004](vmmkit_sys::hip::rules::IPC_004): a second get of the same allocation succeeds too.
pub fn get_repeated(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, _) = exported(cx)?;
    let mut again = hipIpcMemHandle_t::default();
    cx.expect_ok("hipIpcGetMemHandle(p) again", cx.hip().hipIpcGetMemHandle(&mut again, p))?;
    cx.free(p)
}

/// [HIP-IPC-006](vmmkit_sys::hip::rules::IPC_006): free, allocate the same size again, and where the new
/// allocation lands at the same address its handle differs.
pub fn realloc_new_handle(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, first) = exported(cx)?;
    cx.free(p)?;
    let q = cx.malloc(SIZE)?;
    let mut second = hipIpcMemHandle_t::default();
    crate::hip::setup("hipIpcGetMemHandle(new allocation)", cx.hip().hipIpcGetMemHandle(&mut second, q))?;
    if q == p {
        let same = first.reserved == second.reserved;
        cx.ensure("the handle of memory allocated again at the same address", !same, "a different handle", "the same")?;
    } else {
        cx.note("the new allocation landed at another address, so its handle differs anyway");
    }
    cx.free(q)
}

/// [HIP-IPC-008](vmmkit_sys::hip::rules::IPC_008) (observed): what hipIpcGetMemHandle answers for hipHostMalloc memory.
pub fn get_host_memory(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut host: Va = ptr::null_mut();
    crate::hip::setup("hipHostMalloc", hip.hipHostMalloc(&mut host, SIZE, 0))?;
    let mut h = hipIpcMemHandle_t::default();
    let r = HipError(hip.hipIpcGetMemHandle(&mut h, host));
    cx.note(format!("hipIpcGetMemHandle(hipHostMalloc memory) gave {r}"));
    crate::hip::setup("hipHostFree", hip.hipHostFree(host))
}

/// [HIP-IPC-005](vmmkit_sys::hip::rules::IPC_005) (undetermined; the emulator's choice): two gets of the same
/// pointer give the same bytes. Judged on the emulator; another backend's
/// answer is noted.
pub fn get_identical(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, first) = exported(cx)?;
    let mut again = hipIpcMemHandle_t::default();
    crate::hip::setup("hipIpcGetMemHandle(p) again", cx.hip().hipIpcGetMemHandle(&mut again, p))?;
    let same = first.reserved == again.reserved;
    if cx.env().backend == BackendKind::Emulator {
        cx.ensure("the second handle of the same pointer", same, "the same 64 bytes", "different bytes")?;
    } else {
        cx.note(format!("two gets of one pointer gave {} handles", if same { "identical" } else { "different" }));
    }
    cx.free(p)
}

/// [HIP-IPC-009](vmmkit_sys::hip::rules::IPC_009): a get that fails (a host address, then NULL devPtr) over
/// a handle full of 0x5a leaves it zeroed on the emulator; what another
/// backend leaves is noted.
pub fn get_failure_zeroes(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut local = [0u8; 64];
    let cases: [(&str, Va); 2] = [("a host address", local.as_mut_ptr().cast()), ("NULL devPtr", ptr::null_mut())];
    for (what, dev) in cases {
        let mut h = hipIpcMemHandle_t { reserved: [0x5a; 64] };
        let r = hip.hipIpcGetMemHandle(&mut h, dev);
        cx.ensure_code(&format!("hipIpcGetMemHandle({what})"), HipError::INVALID_VALUE, r)?;
        let written = h.reserved.iter().filter(|&&b| b != 0x5a).count();
        let zero = h.reserved.iter().all(|&b| b == 0);
        if cx.env().backend == BackendKind::Emulator {
            let got = format!("{written} of 64 bytes written, {}", if zero { "all zero" } else { "not all zero" });
            cx.ensure(&format!("the handle after the failed get ({what})"), zero, "64 zero bytes", got)?;
        } else {
            cx.note(format!("a failed get ({what}) wrote {written} of the handle's 64 bytes"));
        }
    }
    Ok(())
}
