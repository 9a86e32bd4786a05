//! CUDA streams and events on the emulator, through the emulator's CUDA
//! table (`vmmkit_emulator::cuda::api()`: the bench backends are ACL
//! tables, so these entries run only when the backend is the emulator):
//!
//! - `cuda_stream_sync`: `cuLaunchHostFunc` of an empty function on a
//!   non-blocking stream + `cuStreamSynchronize`.
//! - `cuda_event_query`: `cuEventRecord` on a non-blocking stream +
//!   `cuEventQuery` until it answers 0.
//! - `cuda_stream_copy`: `cuMemcpyDtoDAsync` of 4 KiB on a non-blocking
//!   stream + `cuStreamSynchronize`, into memory of this process only
//!   (`local`) or into memory shared by `cuIpcGetMemHandle` (`shared`),
//!   whose accesses the unsynchronised-access check also writes into the
//!   memory's shared access history (docs/streams.md); alone in it, it
//!   reads none of it. `shared_peer`: the same once a peer process has
//!   imported the memory and read it (`vmmkit-bench-peer`), so that each
//!   copy also reads the history for the peer's accesses. The first copy,
//!   before the measurement, maps the history.
//!
//! Both run under the process's `VMMKIT_STREAMS` schedule (default
//! `async`): the work runs on the stream's worker thread, so each iteration
//! hands work to another thread and waits for it to say it is done. The
//! floor of both is that hand-off and nothing else: a futex round trip
//! between two threads (A stores a word and wakes B, B stores another and
//! wakes A; each sleeps on its futex when the word has not changed). For
//! the event, whose completion the host polls (cuEventQuery, yielding the
//! CPU between queries), the floor's A polls the same way and B only
//! stores: one wake per round trip. A plain atomic is no floor: work that
//! runs apart from the caller must cross to another thread and back.

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rustix::thread::futex;
use vmmkit_sys::cuda::*;

use super::{Entry, Env};
use crate::error::{BenchError, Result};

/// The groups.
pub const STREAM_GROUP: &str = "cuda_stream_sync";
/// See the module's text.
pub const EVENT_GROUP: &str = "cuda_event_query";
/// See the module's text.
pub const COPY_GROUP: &str = "cuda_stream_copy";
/// Bytes of each copy of [`COPY_GROUP`].
const COPY_BYTES: usize = 4096;
/// Bytes of its destination: a granule, which the peer imports and maps whole.
const COPY_ALLOC: usize = 2 << 20;
/// The CUDA IPC handle's tag (`emulator/src/cuda/profile.rs`).
const CUDA_IPC_MAGIC: [u8; 8] = *b"VMMKCUD1";

fn check(rc: CUresult, call: &str) -> Result<()> {
    if rc == 0 { Ok(()) } else { Err(BenchError::Check(format!("{call} returned {}", CuResult(rc)))) }
}

/// The emulator's CUDA table with device 0's primary context current on
/// the calling thread, and a non-blocking stream.
struct Cuda {
    api: CudaApi,
    stream: CUstream,
}

impl Cuda {
    fn open() -> Result<Self> {
        let api = vmmkit_emulator::cuda::api();
        let mut ctx = ptr::null_mut();
        let mut stream = ptr::null_mut();
        // SAFETY: the emulator's table; every out-pointer is a live local.
        unsafe {
            check((api.cuInit)(0), "cuInit")?;
            check((api.cuDevicePrimaryCtxRetain)(&mut ctx, 0), "cuDevicePrimaryCtxRetain")?;
            check((api.cuCtxSetCurrent)(ctx), "cuCtxSetCurrent")?;
            check((api.cuStreamCreate)(&mut stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")?;
        }
        Ok(Self { api, stream })
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        // SAFETY: the stream this value made, on the thread whose context is current.
        unsafe {
            let _ = (self.api.cuStreamSynchronize)(self.stream);
            let _ = (self.api.cuStreamDestroy)(self.stream);
            let _ = (self.api.cuDevicePrimaryCtxRelease)(0);
        }
    }
}

extern "C" fn nothing(_data: *mut c_void) {}

/// Two buffers of [`COPY_BYTES`] on a stream; the destination shared with
/// other processes or not.
struct Copies {
    cu: Cuda,
    src: CUdeviceptr,
    dst: CUdeviceptr,
    /// The registry key of the destination, when shared.
    key: Option<u64>,
}

impl Copies {
    fn open(shared: bool) -> Result<Self> {
        let cu = Cuda::open()?;
        let (mut src, mut dst) = (0, 0);
        let mut key = None;
        // SAFETY: live out-pointers; the memory this value frees.
        unsafe {
            check((cu.api.cuMemAlloc)(&mut src, COPY_BYTES), "cuMemAlloc")?;
            check((cu.api.cuMemAlloc)(&mut dst, COPY_ALLOC), "cuMemAlloc")?;
            if shared {
                let mut h = CUipcMemHandle { reserved: [0; CU_IPC_HANDLE_SIZE] };
                check((cu.api.cuIpcGetMemHandle)(&mut h, dst), "cuIpcGetMemHandle")?;
                let bytes = h.reserved.map(|c| c as u8);
                let token = vmmkit_emulator::core::IpcToken::decode(CUDA_IPC_MAGIC, &bytes)
                    .ok_or_else(|| BenchError::Check("an IPC handle the emulator did not make".into()))?;
                key = Some(token.key);
            }
        }
        let c = Self { cu, src, dst, key };
        c.copies(1)?;
        Ok(c)
    }

    /// A copy + a synchronize, `iters` times.
    fn copies(&self, iters: u64) -> Result<Duration> {
        super::timed(iters, |_| {
            // SAFETY: device memory of COPY_BYTES each; the stream is live.
            unsafe {
                check((self.cu.api.cuMemcpyDtoDAsync)(self.dst, self.src, COPY_BYTES, self.cu.stream), "copy")?;
                check((self.cu.api.cuStreamSynchronize)(self.cu.stream), "cuStreamSynchronize")
            }
        })
    }
}

impl Drop for Copies {
    fn drop(&mut self) {
        // SAFETY: the memory this value allocated, its copies synchronised.
        unsafe {
            let _ = (self.cu.api.cuStreamSynchronize)(self.cu.stream);
            let _ = (self.cu.api.cuMemFree)(self.src);
            let _ = (self.cu.api.cuMemFree)(self.dst);
        }
    }
}

/// A host function + a synchronize, `iters` times.
fn stream_sync(cu: &Cuda, iters: u64) -> Result<Duration> {
    let t = Instant::now();
    for _ in 0..iters {
        // SAFETY: the stream is live; the function touches nothing.
        unsafe {
            check((cu.api.cuLaunchHostFunc)(cu.stream, Some(nothing), ptr::null_mut()), "cuLaunchHostFunc")?;
            check((cu.api.cuStreamSynchronize)(cu.stream), "cuStreamSynchronize")?;
        }
    }
    Ok(t.elapsed())
}

/// An event record + queries until complete, `iters` times.
fn event_query(cu: &Cuda, event: CUevent, iters: u64) -> Result<Duration> {
    let t = Instant::now();
    for _ in 0..iters {
        // SAFETY: the stream and event are live.
        unsafe {
            check((cu.api.cuEventRecord)(event, cu.stream), "cuEventRecord")?;
            loop {
                match (cu.api.cuEventQuery)(event) {
                    0 => break,
                    600 => std::thread::yield_now(),
                    rc => check(rc, "cuEventQuery")?,
                }
            }
        }
    }
    Ok(t.elapsed())
}

/// The floor: a thread that answers each wake on one futex word with a
/// wake on another.
struct PingPong {
    /// A polls (yielding) for B's answer, which B stores without a wake.
    poll: bool,
    ping: Arc<AtomicU32>,
    pong: Arc<AtomicU32>,
    stop: Arc<AtomicBool>,
    peer: Option<JoinHandle<()>>,
}

fn wait_change(w: &AtomicU32, old: u32) {
    while w.load(Ordering::Acquire) == old {
        let _ = futex::wait(w, futex::Flags::PRIVATE, old, None);
    }
}

impl PingPong {
    fn start(poll: bool) -> Self {
        let (ping, pong, stop) =
            (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU32::new(0)), Arc::new(AtomicBool::new(false)));
        let peer = std::thread::spawn({
            let (ping, pong, stop) = (ping.clone(), pong.clone(), stop.clone());
            move || {
                let mut seen = 0;
                loop {
                    wait_change(&ping, seen);
                    seen = ping.load(Ordering::Acquire);
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    pong.store(seen, Ordering::Release);
                    if !poll {
                        let _ = futex::wake(&pong, futex::Flags::PRIVATE, 1);
                    }
                }
            }
        });
        Self { poll, ping, pong, stop, peer: Some(peer) }
    }

    fn round_trips(&self, iters: u64) -> Duration {
        let t = Instant::now();
        for _ in 0..iters {
            let next = self.ping.load(Ordering::Relaxed).wrapping_add(1);
            self.ping.store(next, Ordering::Release);
            let _ = futex::wake(&self.ping, futex::Flags::PRIVATE, 1);
            if self.poll {
                while self.pong.load(Ordering::Acquire) != next {
                    std::thread::yield_now();
                }
            } else {
                wait_change(&self.pong, next.wrapping_sub(1));
            }
        }
        t.elapsed()
    }
}

impl Drop for PingPong {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        self.ping.fetch_add(1, Ordering::AcqRel);
        let _ = futex::wake(&self.ping, futex::Flags::PRIVATE, 1);
        if let Some(p) = self.peer.take() {
            let _ = p.join();
        }
    }
}

/// The entries (the emulator only).
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let Some(name) = env.backends().iter().find(|b| b.rt().backend().is_emulator()).map(|_| "emulator-cuda") else {
        env.note(format!(
            "{STREAM_GROUP}, {EVENT_GROUP}, {COPY_GROUP}: skipped, the CUDA table is the emulator's only"
        ));
        return Ok(vec![]);
    };
    let schedule = format!("{:?}", vmmkit_emulator::core::emulator().map(|e| e.schedule()).ok());
    env.note(format!("{STREAM_GROUP}, {EVENT_GROUP}: schedule {schedule}"));
    let mut cu: Option<Cuda> = None;
    let mut floor_a: Option<PingPong> = None;
    let mut cu2: Option<(Cuda, CUevent)> = None;
    let mut floor_b: Option<PingPong> = None;
    let mut local: Option<Copies> = None;
    let mut shared: Option<Copies> = None;
    let mut peered: Option<(Copies, crate::peer::Peer)> = None;
    let backend = env.backends().iter().find(|b| b.rt().backend().is_emulator()).map(|b| b.name());
    Ok(vec![
        Entry::new(STREAM_GROUP, name, "host_func", move |n| {
            if cu.is_none() {
                cu = Some(Cuda::open()?);
            }
            stream_sync(cu.as_ref().expect("opened"), n)
        }),
        Entry::new(STREAM_GROUP, "floor", "host_func", move |n| {
            Ok(floor_a.get_or_insert_with(|| PingPong::start(false)).round_trips(n))
        }),
        Entry::new(EVENT_GROUP, name, "record_query", move |n| {
            if cu2.is_none() {
                let c = Cuda::open()?;
                let mut e = ptr::null_mut();
                // SAFETY: a live out-pointer.
                check(unsafe { (c.api.cuEventCreate)(&mut e, CU_EVENT_DISABLE_TIMING) }, "cuEventCreate")?;
                cu2 = Some((c, e));
            }
            let (c, e) = cu2.as_ref().expect("opened");
            event_query(c, *e, n)
        }),
        Entry::new(EVENT_GROUP, "floor", "record_query", move |n| {
            Ok(floor_b.get_or_insert_with(|| PingPong::start(true)).round_trips(n))
        }),
        Entry::new(COPY_GROUP, name, "local", move |n| {
            if local.is_none() {
                local = Some(Copies::open(false)?);
            }
            local.as_ref().expect("opened").copies(n)
        }),
        Entry::new(COPY_GROUP, name, "shared", move |n| {
            if shared.is_none() {
                shared = Some(Copies::open(true)?);
            }
            shared.as_ref().expect("opened").copies(n)
        }),
        Entry::new(COPY_GROUP, name, "shared_peer", move |n| {
            if peered.is_none() {
                let c = Copies::open(true)?;
                let b = backend.ok_or_else(|| BenchError::Check("no emulator backend for the peer".into()))?;
                let peer = crate::peer::Peer::spawn(env.peer_exe(), b, env.root(), env.floor_dir())?;
                let key = c.key.expect("shared");
                peer.call(crate::peer::wire::Op::ImportMapRead, &[key, COPY_ALLOC as u64])?;
                peered = Some((c, peer));
            }
            peered.as_ref().expect("opened").0.copies(n)
        }),
    ])
}
