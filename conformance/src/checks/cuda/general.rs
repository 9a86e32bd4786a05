//! CUDA-GEN: initialisation, the current context, error names (cuda.md §3.1).

use vmmkit_sys::cuda::*;

use crate::cuda::Ctx;
use crate::outcome::Failure;

/// [CUDA-GEN-001](vmmkit_sys::cuda::rules::GEN_001): `cuInit` flags must be 0; `cuInit(0)` then works.
pub fn init_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let cuda = cx.cuda();
    cx.expect_code("cuInit(1)", cuda.cuInit(1))?;
    cx.expect_ok("cuInit(0) after", cuda.cuInit(0))
}

/// [CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002): after cuInit, with no context current on the thread, a
/// memory call is 201; with device 0's primary context current it works.
pub fn needs_context(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let cuda = cx.cuda();
    crate::cuda::setup("cuCtxSetCurrent(NULL)", cuda.cuCtxSetCurrent(std::ptr::null_mut()))?;
    let mut p = 0;
    cx.expect_code("cuMemAlloc(4096) without a context", cuda.cuMemAlloc(&mut p, 4096))?;
    cx.context(0)?;
    cx.expect_ok("cuMemAlloc(4096) with device 0's primary context", cuda.cuMemAlloc(&mut p, 4096))?;
    cx.free(p)
}

/// [CUDA-GEN-003](vmmkit_sys::cuda::rules::GEN_003): cuGetErrorName and cuGetErrorString of an unknown code
/// are 1; of a known one, its name (`CUDA_ERROR_INVALID_VALUE`).
pub fn error_strings(cx: &mut Ctx) -> Result<(), Failure> {
    let cuda = cx.cuda();
    let (r, _) = cuda.error_name(4242);
    cx.expect_code("cuGetErrorName(4242)", r.0)?;
    let (r, _) = cuda.error_string(4242);
    cx.expect_code("cuGetErrorString(4242)", r.0)?;
    let (r, name) = cuda.error_name(CuResult::INVALID_VALUE.0);
    cx.expect_ok("cuGetErrorName(1)", r.0)?;
    let name = name.unwrap_or_default();
    cx.ensure("cuGetErrorName(1) text", name == "CUDA_ERROR_INVALID_VALUE", "CUDA_ERROR_INVALID_VALUE", name)?;
    let (r, text) = cuda.error_string(CuResult::INVALID_VALUE.0);
    cx.expect_ok("cuGetErrorString(1)", r.0)?;
    cx.note(format!("cuGetErrorString(1) = {:?}", text.unwrap_or_default()));
    Ok(())
}

/// [CUDA-GEN-004](vmmkit_sys::cuda::rules::GEN_004): this process (every device) shares 1 MiB of device 2
/// through IPC. A peer that sees `CUDA_VISIBLE_DEVICES=1,2,7,0` (the list
/// stops at 7) has two devices and reads the memory opened on its device
/// 1; one that sees `2,2,0` (stops at the repeat) has one; lists that leave
/// nothing (`-1`, set and empty) make cuInit 100.
pub fn visible_devices(cx: &mut Ctx) -> Result<(), Failure> {
    use crate::cuda::peer::{Peer, Request};
    const SIZE: usize = 1 << 20;
    cx.context(2)?;
    let p = cx.alloc(SIZE)?;
    cx.write(p, SIZE, 84)?;
    let mut h = CUipcMemHandle::default();
    crate::cuda::setup("cuIpcGetMemHandle", cx.cuda().cuIpcGetMemHandle(&mut h, p))?;
    let handle: Vec<u8> = h.reserved.iter().map(|&c| c as u8).collect();
    for (list, count, open_on) in [("1,2,7,0", 2, Some(1)), ("2,2,0", 1, None)] {
        let env = [("CUDA_VISIBLE_DEVICES", list)];
        let mut peer = Peer::unstarted(&cx.launcher().with_env(&env), "masked")?;
        let r = peer.call(&Request::Devices { ptr: 0 })?;
        cx.expect_ok(&format!("peer with CUDA_VISIBLE_DEVICES={list}: cuDeviceGetCount"), r.vendor_code())?;
        cx.ensure(
            &format!("peer with CUDA_VISIBLE_DEVICES={list}: its device count"),
            r.value == count,
            count,
            r.value,
        )?;
        if let Some(d) = open_on {
            peer.setup(&Request::Start { device: d })?;
            let flags = CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS;
            let r = peer.call(&Request::IpcOpen { handle: handle.clone(), flags })?;
            cx.expect_ok(&format!("peer with CUDA_VISIBLE_DEVICES={list}: cuIpcOpenMemHandle"), r.vendor_code())?;
            let ptr = r.value;
            let r = peer.setup(&Request::Verify { ptr, len: SIZE as u64, seed: 84 })?;
            cx.ensure(
                &format!("peer with CUDA_VISIBLE_DEVICES={list} reads the memory"),
                r.value == 1,
                "pattern 84",
                &r.text,
            )?;
            peer.setup(&Request::IpcClose { ptr })?;
        }
        peer.exit()?;
    }
    for list in ["-1", ""] {
        let env = [("CUDA_VISIBLE_DEVICES", list)];
        let mut peer = Peer::unstarted(&cx.launcher().with_env(&env), "no device")?;
        let r = peer.call(&Request::Devices { ptr: 0 })?;
        cx.expect_code(&format!("peer with CUDA_VISIBLE_DEVICES={list:?}: cuInit"), r.vendor_code())?;
        peer.exit()?;
    }
    cx.free(p)
}
