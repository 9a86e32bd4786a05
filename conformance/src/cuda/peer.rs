//! CUDA peers: the `vmmkit` binary run again (`vmmkit __cuda_peer`) as the
//! second process of a multi-process CUDA rule, the importer of an IPC
//! handle. The suite's ACL peers (`crate::peer`) speak ACL; this one speaks
//! CUDA over the same link ([`crate::peer::link`]: one JSON packet per
//! request and per reply, a deadline on every wait). A peer that dies is a failure that
//! says how it ended; a live one is killed when its [`Peer`] is dropped, and
//! dies with its parent.
#![forbid(unsafe_code)]

use std::os::fd::{AsRawFd, OwnedFd};
use std::process::ExitCode;
use std::ptr;

use vmmkit_sys::cuda::*;
use vmmkit_sys::vendor;

use super::Cuda;
use crate::ctx::Suite;
use crate::pattern;
pub use crate::peer::Launcher;
pub use crate::peer::device::Request;
use crate::peer::device::{Code, DeviceProtocol};
pub use crate::peer::link::Args;
use crate::peer::link::{Step, serve};

/// The hidden command that runs a CUDA peer.
pub const ROLE: &str = "__cuda_peer";

/// A running CUDA peer.
pub type Peer = crate::peer::link::Peer<DeviceProtocol<CuResult>>;

/// The peer's answer, with a `CUresult`.
pub type Reply = crate::peer::device::Reply<CuResult>;

impl Code for CuResult {
    const PEER: &'static str = ROLE;

    fn from_bits(bits: u32) -> Self {
        CuResult(bits)
    }
}

/// Runs the peer until its channel closes or it is told to exit.
pub fn run(args: &Args) -> ExitCode {
    let cuda = match vendor::Cuda::table(args.backend, args.library.as_deref()) {
        Ok(t) => t,
        Err(reason) => {
            eprintln!("vmmkit {ROLE}: {reason}");
            return ExitCode::from(3);
        }
    };
    // The device whose primary context `Start` made current.
    let mut device = 0;
    serve(ROLE, |req: Request, fds| {
        let reply = serve_one(&cuda, &mut device, &req, fds);
        if req == Request::Exit { Step::ReplyAndExit(reply) } else { Step::Reply(reply) }
    })
}

fn code(r: CUresult, text: &str) -> Reply {
    Reply::of(r, text)
}

fn serve_one(cuda: &Cuda, current: &mut i32, req: &Request, fds: Vec<OwnedFd>) -> Reply {
    match req {
        Request::Start { device } => {
            *current = *device;
            let r = cuda.cuInit(0);
            if r != 0 {
                return code(r, "cuInit(0)");
            }
            let mut ctx = ptr::null_mut();
            let r = cuda.cuDevicePrimaryCtxRetain(&mut ctx, *device);
            if r != 0 {
                return code(r, "cuDevicePrimaryCtxRetain");
            }
            code(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        }
        Request::IpcOpen { handle, flags } => {
            let mut h = CUipcMemHandle::default();
            for (d, s) in h.reserved.iter_mut().zip(handle) {
                *d = *s as std::ffi::c_char;
            }
            let mut p = 0;
            let r = cuda.cuIpcOpenMemHandle(&mut p, h, *flags);
            code(r, "cuIpcOpenMemHandle").with_value(p)
        }
        Request::IpcClose { ptr } => code(cuda.cuIpcCloseMemHandle(*ptr), "cuIpcCloseMemHandle"),
        Request::Verify { ptr, len, seed } => verify(cuda, *ptr, *len as usize, *seed),
        Request::Fill { ptr, len, seed } => {
            let data = pattern::fill(*seed, *len as usize);
            code(cuda.cuMemcpyHtoD(*ptr, data.as_ptr().cast(), data.len()), "cuMemcpyHtoD")
        }
        Request::ImportMap { size, seed, by_value } => {
            import_map(cuda, *current, fds, *size as usize, *seed, *by_value)
        }
        Request::UnmapFree { ptr, size } => {
            let r = cuda.cuMemUnmap(*ptr, *size as usize);
            if r != 0 {
                return code(r, "cuMemUnmap");
            }
            code(cuda.cuMemAddressFree(*ptr, *size as usize), "cuMemAddressFree")
        }
        Request::Exit => Reply::default(),
        Request::PoolImport { data } => pool_import(cuda, fds, data),
        Request::PoolFree { ptr } => code(cuda.cuMemFreeAsync(*ptr, ptr::null_mut()), "cuMemFreeAsync"),
        // CUDA_ERROR_NOT_SUPPORTED until the CUDA peer serves IPC events.
        Request::EventOpen { handle } => {
            let mut h = CUipcEventHandle::default();
            for (d, s) in h.reserved.iter_mut().zip(handle) {
                *d = *s as std::ffi::c_char;
            }
            let mut e = ptr::null_mut();
            code(cuda.cuIpcOpenEventHandle(&mut e, h), "cuIpcOpenEventHandle").with_value(e as u64)
        }
        Request::EventQuery { event } => code(cuda.cuEventQuery(*event as usize as CUevent), "cuEventQuery"),
        Request::EventWait { event, stream_wait } => event_wait(cuda, *event as usize as CUevent, *stream_wait),
        Request::EventElapsed { event } => {
            let (mut ms, ev) = (0f32, *event as usize as CUevent);
            code(cuda.cuEventElapsedTime(&mut ms, ev, ev), "cuEventElapsedTime")
        }
        Request::EventClose { event } => code(cuda.cuEventDestroy(*event as usize as CUevent), "cuEventDestroy"),
        Request::EventRecordStuck { event } => record_stuck(cuda, *event as usize as CUevent),
        Request::Devices { .. } => {
            let r = cuda.cuInit(0);
            if r != 0 {
                return code(r, "cuInit");
            }
            let mut n = 0;
            code(cuda.cuDeviceGetCount(&mut n), "cuDeviceGetCount").with_value(n as u64)
        }
    }
}

/// [`Request::EventWait`].
fn event_wait(cuda: &Cuda, ev: CUevent, stream_wait: bool) -> Reply {
    if !stream_wait {
        return code(cuda.cuEventSynchronize(ev), "cuEventSynchronize");
    }
    let mut s = ptr::null_mut();
    let r = cuda.cuStreamCreate(&mut s, CU_STREAM_NON_BLOCKING);
    if r != 0 {
        return code(r, "cuStreamCreate");
    }
    for (r, what) in
        [(cuda.cuStreamWaitEvent(s, ev, 0), "cuStreamWaitEvent"), (cuda.cuStreamSynchronize(s), "cuStreamSynchronize")]
    {
        if r != 0 {
            let _ = cuda.cuStreamDestroy(s);
            return code(r, what);
        }
    }
    code(cuda.cuStreamDestroy(s), "cuStreamDestroy")
}

/// [`Request::PoolImport`].
fn pool_import(cuda: &Cuda, fds: Vec<OwnedFd>, data: &[u8]) -> Reply {
    let Some(fd) = fds.into_iter().next() else {
        return Reply::of(CuResult::INVALID_VALUE.0, "no fd came with the request");
    };
    let mut pool = ptr::null_mut();
    let os_handle = fd.as_raw_fd() as usize as *mut std::ffi::c_void;
    let r = cuda.cuMemPoolImportFromShareableHandle(&mut pool, os_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    drop(fd);
    if r != 0 {
        return code(r, "cuMemPoolImportFromShareableHandle");
    }
    let mut share = CUmemPoolPtrExportData::default();
    for (d, s) in share.reserved.iter_mut().zip(data) {
        *d = *s;
    }
    let mut p = 0;
    let r = cuda.cuMemPoolImportPointer(&mut p, pool, &mut share);
    code(r, "cuMemPoolImportPointer").with_value(p)
}

/// [`Request::ImportMap`]: the memMapIPCDrv child's steps, on `device`.
fn import_map(cuda: &Cuda, device: i32, fds: Vec<OwnedFd>, size: usize, seed: u8, by_value: bool) -> Reply {
    let Some(fd) = fds.into_iter().next() else {
        return Reply::of(CuResult::INVALID_VALUE.0, "no fd came with the request");
    };
    let mut h = 0;
    // cuda.md §2.1: the fd value cast to a pointer (`by_value`, what CUDA
    // documents); the fd stays ours, and is closed once imported.
    let mut raw = fd.as_raw_fd();
    let os_handle: *mut std::ffi::c_void =
        if by_value { raw as usize as *mut std::ffi::c_void } else { (&raw mut raw).cast() };
    let r = cuda.cuMemImportFromShareableHandle(&mut h, os_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    drop(fd);
    if r != 0 {
        return code(r, "cuMemImportFromShareableHandle");
    }
    let mut va = 0;
    let r = cuda.cuMemAddressReserve(&mut va, size, 0, 0, 0);
    if r != 0 {
        return code(r, "cuMemAddressReserve");
    }
    let r = cuda.cuMemMap(va, size, 0, h, 0);
    if r != 0 {
        return code(r, "cuMemMap");
    }
    let r = cuda.cuMemRelease(h); // the mapping holds the memory from here on
    if r != 0 {
        return code(r, "cuMemRelease");
    }
    let r = cuda.cuMemSetAccess(va, size, &super::desc(device, CU_MEM_ACCESS_FLAGS_PROT_READWRITE), 1);
    if r != 0 {
        return code(r, "cuMemSetAccess");
    }
    verify(cuda, va, size, seed).with_value(va)
}

/// Reads `len` bytes at `ptr`: `value` 1 when they are the pattern `seed`,
/// else `text` names the first differing byte.
fn verify(cuda: &Cuda, ptr: u64, len: usize, seed: u8) -> Reply {
    let mut data = vec![0u8; len];
    let r = cuda.cuMemcpyDtoH(data.as_mut_ptr().cast(), ptr, data.len());
    if r != 0 {
        return code(r, "cuMemcpyDtoH");
    }
    Reply::pattern(seed, &data)
}

/// [`Request::EventRecordStuck`]: the word and the stream are kept until the peer exits.
fn record_stuck(cuda: &Cuda, ev: CUevent) -> Reply {
    let (mut word, mut s): (CUdeviceptr, CUstream) = (0, ptr::null_mut());
    let r = cuda.cuMemAlloc(&mut word, 8);
    if r != 0 {
        return code(r, "cuMemAlloc");
    }
    let r = cuda.cuMemsetD8(word, 0, 8);
    if r != 0 {
        return code(r, "cuMemsetD8");
    }
    // Flags 1: CU_STREAM_NON_BLOCKING.
    let r = cuda.cuStreamCreate(&mut s, 1);
    if r != 0 {
        return code(r, "cuStreamCreate");
    }
    // Flags 0: CU_STREAM_WAIT_VALUE_GEQ; the word stays 0.
    let r = cuda.cuStreamWaitValue32(s, word, 1, 0);
    if r != 0 {
        return code(r, "cuStreamWaitValue32");
    }
    code(cuda.cuEventRecord(ev, s), "cuEventRecord")
}
