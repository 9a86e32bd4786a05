//! HIP peers: the `vmmkit` binary run again (`vmmkit __hip_peer`) as the
//! second or third process of a multi-process HIP rule: the importer of an
//! IPC handle (the hipIpc trio) or of a POSIX fd (VMM sharing). It speaks
//! HIP over the suite's link ([`crate::peer::link`]: one JSON packet per
//! request and per reply, fds by `SCM_RIGHTS`, a deadline on every wait), as
//! the ACL and CUDA peers do. A peer that dies is a failure that says how it
//! ended; a live one is killed when its [`Peer`] is dropped, and dies with
//! its parent.
//!
//! **Extending it.** A request is a variant of [`Request`], shared with the
//! CUDA peer (`crate::peer::device`; new ones at the end of the enum), with
//! a line in `serve_one` here (and in the CUDA peer) that calls a function
//! of its family; the function gets the table, the peer's [`State`] and the
//! fds that came with the request, and returns a [`Reply`] whose `code` is
//! the `hipError_t` of the call named in `text`. Checks call `Peer::call`
//! (judged codes) or `Peer::setup` (preparation: a failure is a setup failure).
#![forbid(unsafe_code)]

use std::os::fd::{AsRawFd, OwnedFd};
use std::process::ExitCode;
use std::ptr;

use vmmkit_sys::hip::*;
use vmmkit_sys::vendor;

use super::Hip;
use crate::ctx::Suite;
use crate::pattern;
pub use crate::peer::Launcher;
pub use crate::peer::device::Request;
use crate::peer::device::{Code, DeviceProtocol};
pub use crate::peer::link::Args;
use crate::peer::link::{Step, serve};

/// The hidden command that runs a HIP peer.
pub const ROLE: &str = "__hip_peer";

/// A running HIP peer.
pub type Peer = crate::peer::link::Peer<DeviceProtocol<HipError>>;

/// The peer's answer, with a `hipError_t`.
pub type Reply = crate::peer::device::Reply<HipError>;

impl Code for HipError {
    const PEER: &'static str = ROLE;

    fn from_bits(bits: u32) -> Self {
        HipError(bits as i32)
    }
}

/// What a peer keeps between requests.
#[derive(Debug, Default)]
pub struct State {
    /// The device `Start` made current.
    pub device: i32,
}

/// Runs the peer until its channel closes or it is told to exit.
pub fn run(args: &Args) -> ExitCode {
    let hip = match vendor::Hip::table(args.backend, args.library.as_deref()) {
        Ok(t) => t,
        Err(reason) => {
            eprintln!("vmmkit {ROLE}: {reason}");
            return ExitCode::from(3);
        }
    };
    let mut state = State::default();
    serve(ROLE, |req: Request, fds| {
        let reply = serve_one(&hip, &mut state, &req, fds);
        if req == Request::Exit { Step::ReplyAndExit(reply) } else { Step::Reply(reply) }
    })
}

/// A reply with code `r`, naming `call` when it failed.
fn code(r: hipError_t, call: &str) -> Reply {
    Reply::of(r as u32, call)
}

/// Runs `$call`; on failure returns its [`code`] reply from the enclosing function.
macro_rules! step {
    ($call:expr, $name:expr) => {{
        let r = $call;
        if r != 0 {
            return code(r, $name);
        }
    }};
}

/// One request, dispatched to its family's function.
fn serve_one(hip: &Hip, state: &mut State, req: &Request, fds: Vec<OwnedFd>) -> Reply {
    match req {
        Request::Start { device } => {
            state.device = *device;
            code(hip.hipSetDevice(*device), "hipSetDevice")
        }
        Request::IpcOpen { handle, flags } => ipc_open(hip, handle, *flags),
        Request::IpcClose { ptr } => code(hip.hipIpcCloseMemHandle(*ptr as usize as *mut _), "hipIpcCloseMemHandle"),
        Request::Verify { ptr, len, seed } => verify(hip, *ptr, *len as usize, *seed),
        Request::Fill { ptr, len, seed } => fill(hip, *ptr, *len as usize, *seed),
        Request::ImportMap { size, seed, by_value } => import_map(hip, state, fds, *size as usize, *seed, *by_value),
        Request::UnmapFree { ptr, size } => {
            let va = *ptr as usize as *mut std::ffi::c_void;
            step!(hip.hipMemUnmap(va, *size as usize), "hipMemUnmap");
            code(hip.hipMemAddressFree(va, *size as usize), "hipMemAddressFree")
        }
        Request::Exit => Reply::default(),
        Request::PoolImport { data } => pool_import(hip, fds, data),
        Request::PoolFree { ptr } => code(hip.hipFreeAsync(*ptr as usize as *mut _, ptr::null_mut()), "hipFreeAsync"),
        Request::EventOpen { handle } => {
            let mut h = hipIpcEventHandle_t::default();
            for (d, s) in h.reserved.iter_mut().zip(handle) {
                *d = *s as std::ffi::c_char;
            }
            let mut ev = ptr::null_mut();
            code(hip.hipIpcOpenEventHandle(&mut ev, h), "hipIpcOpenEventHandle").with_value(ev as usize as u64)
        }
        Request::EventQuery { event } => code(hip.hipEventQuery(*event as usize as hipEvent_t), "hipEventQuery"),
        Request::EventWait { event, stream_wait } => event_wait(hip, *event as usize as hipEvent_t, *stream_wait),
        Request::EventElapsed { event } => {
            let (mut ms, ev) = (0f32, *event as usize as hipEvent_t);
            code(hip.hipEventElapsedTime(&mut ms, ev, ev), "hipEventElapsedTime")
        }
        Request::EventClose { event } => code(hip.hipEventDestroy(*event as usize as hipEvent_t), "hipEventDestroy"),
        Request::EventRecordStuck { event } => record_stuck(hip, *event as usize as hipEvent_t),
        Request::Devices { ptr } => devices(hip, *ptr),
    }
}

/// [`Request::Devices`].
fn devices(hip: &Hip, ptr: u64) -> Reply {
    let mut n = 0;
    step!(hip.hipGetDeviceCount(&mut n), "hipGetDeviceCount");
    let mut buses = Vec::new();
    for d in 0..n {
        let mut bus = [0 as std::ffi::c_char; 32];
        step!(hip.hipDeviceGetPCIBusId(bus.as_mut_ptr(), bus.len() as i32, d), "hipDeviceGetPCIBusId");
        let bytes: Vec<u8> = bus.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
        buses.push(String::from_utf8_lossy(&bytes).into_owned());
    }
    let mut text = buses.join(",");
    if ptr != 0 {
        let mut attr = hipPointerAttribute_t::default();
        step!(hip.hipPointerGetAttributes(&mut attr, ptr as usize as *const _), "hipPointerGetAttributes");
        text.push_str(&format!("@{}", attr.device));
    }
    Reply::default().with_text(text).with_value(n as u64)
}

/// [`Request::EventRecordStuck`]: the word and the stream are kept until the peer exits.
fn record_stuck(hip: &Hip, ev: hipEvent_t) -> Reply {
    let (mut word, mut s) = (ptr::null_mut(), ptr::null_mut());
    step!(hip.hipMalloc(&mut word, 8), "hipMalloc");
    step!(hip.hipMemset(word, 0, 8), "hipMemset");
    step!(hip.hipStreamCreateWithFlags(&mut s, hipStreamNonBlocking), "hipStreamCreateWithFlags");
    let waits = hip.hipStreamWaitValue32(s, word, 1, hipStreamWaitValueGte, u32::MAX);
    step!(waits.unwrap_or(HipError::NOT_SUPPORTED.0), "hipStreamWaitValue32");
    code(hip.hipEventRecord(ev, s), "hipEventRecord")
}

/// [`Request::EventWait`].
fn event_wait(hip: &Hip, ev: hipEvent_t, stream_wait: bool) -> Reply {
    if !stream_wait {
        return code(hip.hipEventSynchronize(ev), "hipEventSynchronize");
    }
    let mut s = ptr::null_mut();
    step!(hip.hipStreamCreateWithFlags(&mut s, hipStreamNonBlocking), "hipStreamCreateWithFlags");
    step!(hip.hipStreamWaitEvent(s, ev, 0), "hipStreamWaitEvent");
    step!(hip.hipStreamSynchronize(s), "hipStreamSynchronize");
    code(hip.hipStreamDestroy(s), "hipStreamDestroy")
}

/// The handle bytes as a `hipIpcMemHandle_t` (missing bytes are 0).
pub fn ipc_handle(bytes: &[u8]) -> hipIpcMemHandle_t {
    let mut h = hipIpcMemHandle_t::default();
    for (d, s) in h.reserved.iter_mut().zip(bytes) {
        *d = *s as std::ffi::c_char;
    }
    h
}

/// The bytes of `h`, as a check sends them.
pub fn ipc_bytes(h: &hipIpcMemHandle_t) -> Vec<u8> {
    h.reserved.iter().map(|&c| c as u8).collect()
}

/// [`Request::IpcOpen`].
fn ipc_open(hip: &Hip, handle: &[u8], flags: u32) -> Reply {
    let mut p = ptr::null_mut();
    let r = hip.hipIpcOpenMemHandle(&mut p, ipc_handle(handle), flags);
    code(r, "hipIpcOpenMemHandle").with_value(p as usize as u64)
}

/// [`Request::Fill`].
fn fill(hip: &Hip, ptr: u64, len: usize, seed: u8) -> Reply {
    let data = pattern::fill(seed, len);
    let r = hip.hipMemcpy(ptr as usize as *mut _, data.as_ptr().cast(), len, hipMemcpyHostToDevice);
    code(r, "hipMemcpy(host to device)")
}

/// [`Request::PoolImport`]: the pool is imported, and kept until the peer
/// exits (its pointers need it).
fn pool_import(hip: &Hip, fds: Vec<OwnedFd>, data: &[u8]) -> Reply {
    let Some(fd) = fds.into_iter().next() else {
        return Reply::of(HipError::INVALID_VALUE.0 as u32, "no fd came with the request");
    };
    let mut pool = ptr::null_mut();
    let os_handle = fd.as_raw_fd() as usize as *mut std::ffi::c_void;
    let r = hip.hipMemPoolImportFromShareableHandle(&mut pool, os_handle, hipMemHandleTypePosixFileDescriptor, 0);
    drop(fd);
    step!(r, "hipMemPoolImportFromShareableHandle");
    let mut share = hipMemPoolPtrExportData::default();
    for (d, s) in share.reserved.iter_mut().zip(data) {
        *d = *s;
    }
    let mut p = ptr::null_mut();
    let r = hip.hipMemPoolImportPointer(&mut p, pool, &mut share);
    code(r, "hipMemPoolImportPointer").with_value(p as usize as u64)
}

/// [`Request::ImportMap`]: the importer's side of the fd sharing, on the current device.
fn import_map(hip: &Hip, state: &State, fds: Vec<OwnedFd>, size: usize, seed: u8, by_value: bool) -> Reply {
    let Some(fd) = fds.into_iter().next() else {
        return Reply::of(HipError::INVALID_VALUE.0 as u32, "no fd came with the request");
    };
    let mut raw = fd.as_raw_fd();
    let os_handle: *mut std::ffi::c_void =
        if by_value { raw as usize as *mut std::ffi::c_void } else { (&raw mut raw).cast() };
    let mut h = ptr::null_mut();
    let r = hip.hipMemImportFromShareableHandle(&mut h, os_handle, hipMemHandleTypePosixFileDescriptor);
    drop(fd); // the fd stays ours, and is closed once imported
    step!(r, "hipMemImportFromShareableHandle");
    let mut va = ptr::null_mut();
    step!(hip.hipMemAddressReserve(&mut va, size, 0, ptr::null_mut(), 0), "hipMemAddressReserve");
    step!(hip.hipMemMap(va, size, 0, h, 0), "hipMemMap");
    step!(hip.hipMemRelease(h), "hipMemRelease"); // the mapping holds the memory from here on
    step!(hip.hipMemSetAccess(va, size, &super::rw_desc(state.device), 1), "hipMemSetAccess");
    verify(hip, va as usize as u64, size, seed).with_value(va as usize as u64)
}

/// Reads `len` bytes at `ptr`: `value` 1 when they are the pattern `seed`,
/// else `text` names the first differing byte.
fn verify(hip: &Hip, ptr: u64, len: usize, seed: u8) -> Reply {
    let mut data = vec![0u8; len];
    let r = hip.hipMemcpy(data.as_mut_ptr().cast(), ptr as usize as *mut _, len, hipMemcpyDeviceToHost);
    if r != 0 {
        return code(r, "hipMemcpy(device to host)");
    }
    Reply::pattern(seed, &data)
}
