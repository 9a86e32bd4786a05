//! Streams (cuStream*), stream-ordered copies and memsets (cu*Async), host
//! functions, value writes and waits, and cuCtxSynchronize, over the core's
//! streams (`core::stream`): [CUDA-STM-001](vmmkit_sys::cuda::rules::STM_001) … 011.
//!
//! Stream values: NULL and `CU_STREAM_LEGACY` name the device's legacy
//! stream (it waits for the blocking streams, and they for it),
//! `CU_STREAM_PER_THREAD` the calling thread's default stream (a blocking
//! stream made at its first use), anything else a stream of cuStreamCreate.
//! Every call needs a current context ([CUDA-GEN-002](vmmkit_sys::cuda::rules::GEN_002)); its device is the
//! device of the legacy and per-thread streams. Async copies read and write
//! host memory when they run: the caller keeps it valid until then, as the
//! driver requires of page-locked memory.
#![allow(non_snake_case)]

use std::ffi::c_void;

use vmmkit_sys::cuda::rules;
use vmmkit_sys::cuda::*;

use super::call::{Fail, emu, ensure, run};
use super::codes::Op;
use super::context::current;
use super::event::event_of;
use super::memory::check_copy;
use super::pointer::{Use, check_device_range};
use super::state::state;
use crate::ffi::Out;
use crate::core::{Emulator, Ending, HandleId, HandleTag, StreamId, StreamKind, ValueCmp, Work};

const TAG: HandleTag = HandleTag::new(0x6373);
/// The priority range of the emulated devices: least (the default) and greatest.
const LEAST_PRIORITY: i32 = 0;
const GREATEST_PRIORITY: i32 = -5;

fn to_stream(id: StreamId) -> CUstream {
    TAG.value(HandleId(id.0)) as CUstream
}

/// Whether `h` is NULL, a special stream or a live stream of ours.
pub(super) fn is_stream(e: &Emulator, h: CUstream) -> bool {
    (h as usize) <= 2 || TAG.id(h as usize).is_some_and(|id| e.stream_exists(StreamId(id.0)))
}

/// The core stream `h` names for device `d`, or [CUDA-STM-002](vmmkit_sys::cuda::rules::STM_002) (400).
pub(super) fn stream_of(e: &Emulator, h: CUstream, d: u32) -> Result<StreamId, Fail> {
    match h as usize {
        0 | 1 => Ok(e.legacy_stream(d)),
        2 => Ok(e.per_thread_stream(d)),
        v => {
            let id = TAG.id(v).map(|h| StreamId(h.0)).filter(|&id| e.stream_exists(id));
            ensure!(id.is_some(), rules::STM_002, "{h:p} is not a live stream");
            Ok(id.unwrap_or_else(|| e.legacy_stream(d)))
        }
    }
}

/// Enqueues `work` on the stream `h` names, after the current context check.
///
/// # Safety
/// Host memory `work` touches stays valid until it has run (the caller's C contract).
unsafe fn enqueue(h: CUstream, work: impl FnOnce(&Emulator, u32) -> Result<Option<Work>, Fail>) -> Result<(), Fail> {
    let d = current()?;
    let e = emu()?;
    let s = stream_of(e, h, d)?;
    let Some(w) = work(e, d)? else { return Ok(()) };
    // SAFETY: the caller's promise.
    unsafe { e.enqueue(s, w) }.map_err(|er| Fail::core(Op::Stream, er))
}

/// `CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)`: [CUDA-STM-001](vmmkit_sys::cuda::rules::STM_001).
pub extern "C" fn cuStreamCreate(phStream: Out<'_, CUstream>, Flags: u32) -> CUresult {
    run("cuStreamCreate", || create(phStream, Flags, LEAST_PRIORITY))
}

/// `CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)`:
/// [CUDA-STM-001](vmmkit_sys::cuda::rules::STM_001); the priority is clamped into [-5, 0] ([CUDA-STM-009](vmmkit_sys::cuda::rules::STM_009)).
pub extern "C" fn cuStreamCreateWithPriority(phStream: Out<'_, CUstream>, flags: u32, priority: i32) -> CUresult {
    run("cuStreamCreateWithPriority", || create(phStream, flags, priority))
}

fn create(out: Out<'_, CUstream>, flags: u32, priority: i32) -> Result<(), Fail> {
    let d = current()?;
    ensure!(!out.is_null(), rules::STM_001, "phStream is NULL");
    ensure!(flags <= CU_STREAM_NON_BLOCKING, rules::STM_001, "Flags {flags:#x} is not CU_STREAM_DEFAULT or CU_STREAM_NON_BLOCKING");
    if out.is_null() {
        return Ok(());
    }
    let e = emu()?;
    let kind = if flags & CU_STREAM_NON_BLOCKING != 0 { StreamKind::NonBlocking } else { StreamKind::Blocking };
    let id = e.stream_create(d, kind);
    state(e).priorities().insert(id, priority.clamp(GREATEST_PRIORITY, LEAST_PRIORITY));
    out.write(to_stream(id))?;
    Ok(())
}

/// `CUresult cuStreamDestroy_v2(CUstream hStream)`: returns at once; work
/// already enqueued still completes. The NULL and special streams are 400 ([CUDA-STM-002](vmmkit_sys::cuda::rules::STM_002)).
pub extern "C" fn cuStreamDestroy(hStream: CUstream) -> CUresult {
    run("cuStreamDestroy", || {
        let d = current()?;
        let e = emu()?;
        ensure!(hStream as usize > 2, rules::STM_002, "the NULL and special streams cannot be destroyed");
        if hStream as usize <= 2 {
            return Ok(());
        }
        let id = stream_of(e, hStream, d)?;
        state(e).priorities().remove(&id);
        e.stream_destroy(id, Ending::Detach).map_err(|er| Fail::core(Op::Stream, er))
    })
}

/// `CUresult cuStreamSynchronize(CUstream hStream)`: waits for all work
/// enqueued on the stream; reports the first failure of its work.
pub extern "C" fn cuStreamSynchronize(hStream: CUstream) -> CUresult {
    run("cuStreamSynchronize", || {
        let d = current()?;
        let e = emu()?;
        let id = stream_of(e, hStream, d)?;
        not_while_capturing(e, hStream, id)?;
        e.stream_synchronize(id, None).map_err(|er| Fail::core(Op::Stream, er))
    })
}

/// cuStreamSynchronize's and cuStreamQuery's check of a stream other than
/// the legacy one: a capture the call breaks is invalidated and the call is
/// 900 ([CUDA-GRF-006](vmmkit_sys::cuda::rules::GRF_006)).
fn not_while_capturing(e: &Emulator, h: CUstream, id: StreamId) -> Result<(), Fail> {
    if (h as usize) > 1 && e.capturing_any() {
        let broke = e.capture_ongoing(id);
        ensure!(!broke, rules::GRF_006 => CuResult::STREAM_CAPTURE_UNSUPPORTED, "a capture is in progress that this call is not permitted in");
    }
    Ok(())
}

/// `CUresult cuStreamQuery(CUstream hStream)`: 0 when all its work has
/// completed, 600 otherwise ([CUDA-STM-003](vmmkit_sys::cuda::rules::STM_003)).
pub extern "C" fn cuStreamQuery(hStream: CUstream) -> CUresult {
    run("cuStreamQuery", || {
        let d = current()?;
        let e = emu()?;
        let id = stream_of(e, hStream, d)?;
        not_while_capturing(e, hStream, id)?;
        let done = e.stream_query(id).map_err(|er| Fail::core(Op::Stream, er))?;
        ensure!(done, rules::STM_003, "work enqueued on {hStream:p} has not completed");
        Ok(())
    })
}

/// `CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)`:
/// [CUDA-STM-006](vmmkit_sys::cuda::rules::STM_006) (flags), -007 (order); a NULL event is 400 ([CUDA-EVT-006](vmmkit_sys::cuda::rules::EVT_006)).
pub extern "C" fn cuStreamWaitEvent(hStream: CUstream, hEvent: CUevent, Flags: u32) -> CUresult {
    run("cuStreamWaitEvent", || {
        let d = current()?;
        let e = emu()?;
        let s = stream_of(e, hStream, d)?;
        let Some(ev) = event_of(e, hEvent)? else { return Ok(()) };
        ensure!(Flags <= CU_EVENT_WAIT_EXTERNAL, rules::STM_006, "Flags {Flags:#x} is not a CUevent_wait_flags");
        e.stream_wait_event(s, ev).map_err(|er| Fail::core(Op::Stream, er))
    })
}

/// `CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)`: [CUDA-STM-009](vmmkit_sys::cuda::rules::STM_009).
pub extern "C" fn cuStreamGetFlags(hStream: CUstream, flags: Out<'_, u32>) -> CUresult {
    run("cuStreamGetFlags", || {
        let d = current()?;
        let e = emu()?;
        let id = stream_of(e, hStream, d)?;
        if flags.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "flags is NULL".into()));
        }
        let (_, kind) = e.stream_info(id).map_err(|er| Fail::core(Op::Stream, er))?;
        let v = if kind == StreamKind::NonBlocking { CU_STREAM_NON_BLOCKING } else { CU_STREAM_DEFAULT };
        flags.write(v)?;
        Ok(())
    })
}

/// `CUresult cuStreamGetPriority(CUstream hStream, int *priority)`: [CUDA-STM-009](vmmkit_sys::cuda::rules::STM_009).
pub extern "C" fn cuStreamGetPriority(hStream: CUstream, priority: Out<'_, i32>) -> CUresult {
    run("cuStreamGetPriority", || {
        let d = current()?;
        let e = emu()?;
        let id = stream_of(e, hStream, d)?;
        if priority.is_null() {
            return Err(Fail::plain(CuResult::INVALID_VALUE, "priority is NULL".into()));
        }
        let p = state(e).priorities().get(&id).copied().unwrap_or(LEAST_PRIORITY);
        priority.write(p)?;
        Ok(())
    })
}

/// A C pointer that a host function gets back, carried to the stream's worker.
#[derive(Clone, Copy)]
struct UserData(usize);

/// Enqueues host function `f` (`None`: the NULL function, [CUDA-STM-011](vmmkit_sys::cuda::rules::STM_011)) on the stream `h` names.
fn host(h: CUstream, f: Option<std::sync::Arc<dyn Fn() + Send + Sync>>, flags: u32) -> Result<(), Fail> {
    // SAFETY: a host function touches what its caller promised stays valid.
    unsafe {
        enqueue(h, |_, _| {
            ensure!(f.is_some(), rules::STM_011, "the function is NULL");
            ensure!(flags == 0, rules::STM_011, "flags must be 0, got {flags}");
            Ok(f.map(Work::Call))
        })
    }
}

/// `CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData, unsigned int flags)`:
/// [CUDA-STM-011](vmmkit_sys::cuda::rules::STM_011); the callback gets the stream and 0.
pub extern "C" fn cuStreamAddCallback(
    hStream: CUstream,
    callback: CUstreamCallback,
    userData: *mut c_void,
    flags: u32,
) -> CUresult {
    let (data, stream) = (UserData(userData as usize), UserData(hStream as usize));
    let f = callback.map(|f| -> std::sync::Arc<dyn Fn() + Send + Sync> {
        std::sync::Arc::new(move || {
            let (s, u) = (stream, data);
            // SAFETY: the program's callback, with the arguments it was registered with.
            unsafe { f(s.0 as CUstream, CuResult::SUCCESS.0, u.0 as *mut c_void) }
        })
    });
    run("cuStreamAddCallback", || host(hStream, f, flags))
}

/// `CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData)`: [CUDA-STM-011](vmmkit_sys::cuda::rules::STM_011).
pub extern "C" fn cuLaunchHostFunc(hStream: CUstream, fn_: CUhostFn, userData: *mut c_void) -> CUresult {
    let data = UserData(userData as usize);
    let f = fn_.map(|f| -> std::sync::Arc<dyn Fn() + Send + Sync> {
        std::sync::Arc::new(move || {
            let u = data;
            // SAFETY: the program's function, with its argument.
            unsafe { f(u.0 as *mut c_void) }
        })
    });
    run("cuLaunchHostFunc", || host(hStream, f, 0))
}

/// A value write of `width` bytes: [CUDA-STM-010](vmmkit_sys::cuda::rules::STM_010).
fn write_value(h: CUstream, addr: CUdeviceptr, value: u64, width: u8, flags: u32) -> Result<(), Fail> {
    // SAFETY: the address is checked device memory of this process.
    unsafe {
        enqueue(h, |e, d| {
            ensure!(
                flags <= CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER,
                rules::STM_010,
                "flags {flags:#x} is not a CUstreamWriteValue_flags"
            );
            check_device_range(e, addr as usize, usize::from(width), d, Use::Write, "addr")?;
            Ok(Some(Work::WriteValue { addr: addr as usize, value, width }))
        })
    }
}

/// A value wait of `width` bytes: [CUDA-STM-010](vmmkit_sys::cuda::rules::STM_010).
fn wait_value(h: CUstream, addr: CUdeviceptr, value: u64, width: u8, flags: u32) -> Result<(), Fail> {
    let cmp = match flags & !CU_STREAM_WAIT_VALUE_FLUSH {
        CU_STREAM_WAIT_VALUE_GEQ => Some(ValueCmp::Geq),
        CU_STREAM_WAIT_VALUE_EQ => Some(ValueCmp::Eq),
        CU_STREAM_WAIT_VALUE_AND => Some(ValueCmp::And),
        CU_STREAM_WAIT_VALUE_NOR => Some(ValueCmp::Nor),
        _ => None,
    };
    // SAFETY: the address is checked device memory of this process.
    unsafe {
        enqueue(h, |e, d| {
            ensure!(cmp.is_some(), rules::STM_010, "flags {flags:#x} is not a CUstreamWaitValue_flags");
            check_device_range(e, addr as usize, usize::from(width), d, Use::Read, "addr")?;
            Ok(Some(Work::WaitValue { addr: addr as usize, value, mask: u64::MAX, width, cmp: cmp.unwrap_or(ValueCmp::Geq) }))
        })
    }
}

/// `CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)`.
pub extern "C" fn cuStreamWriteValue32(stream: CUstream, addr: CUdeviceptr, value: u32, flags: u32) -> CUresult {
    run("cuStreamWriteValue32", || write_value(stream, addr, u64::from(value), 4, flags))
}

/// `CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags)`.
pub extern "C" fn cuStreamWriteValue64(stream: CUstream, addr: CUdeviceptr, value: u64, flags: u32) -> CUresult {
    run("cuStreamWriteValue64", || write_value(stream, addr, value, 8, flags))
}

/// `CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)`.
pub extern "C" fn cuStreamWaitValue32(stream: CUstream, addr: CUdeviceptr, value: u32, flags: u32) -> CUresult {
    run("cuStreamWaitValue32", || wait_value(stream, addr, u64::from(value), 4, flags))
}

/// `CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags)`.
pub extern "C" fn cuStreamWaitValue64(stream: CUstream, addr: CUdeviceptr, value: u64, flags: u32) -> CUresult {
    run("cuStreamWaitValue64", || wait_value(stream, addr, value, 8, flags))
}

/// An async copy: the checks of its synchronous twin, then a copy on the stream.
fn copy_async(h: CUstream, dst: usize, src: usize, n: usize, device_dst: bool, device_src: bool) -> Result<(), Fail> {
    // SAFETY: device sides are checked; host sides are the caller's buffers,
    // valid until the copy has run (the C contract of the async copies).
    unsafe {
        enqueue(h, |_, _| Ok(check_copy(dst, src, n, device_dst, device_src)?.map(|_| Work::Copy { dst, src, len: n })))
    }
}

/// `CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream hStream)`:
/// unified addressing; each side is checked as device memory when it is some.
pub extern "C" fn cuMemcpyAsync(dst: CUdeviceptr, src: CUdeviceptr, ByteCount: usize, hStream: CUstream) -> CUresult {
    run("cuMemcpyAsync", || {
        let e = emu()?;
        let device = |p: CUdeviceptr| e.extent(p as usize).is_some_and(|x| x.kind != crate::core::ExtentKind::Host);
        copy_async(hStream, dst as usize, src as usize, ByteCount, device(dst), device(src))
    })
}

/// `CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount, CUstream hStream)`.
pub extern "C" fn cuMemcpyHtoDAsync(
    dstDevice: CUdeviceptr,
    srcHost: *const c_void,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    run("cuMemcpyHtoDAsync", || copy_async(hStream, dstDevice as usize, srcHost as usize, ByteCount, true, false))
}

/// `CUresult cuMemcpyDtoHAsync_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)`.
pub extern "C" fn cuMemcpyDtoHAsync(
    dstHost: *mut c_void,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    run("cuMemcpyDtoHAsync", || copy_async(hStream, dstHost as usize, srcDevice as usize, ByteCount, false, true))
}

/// `CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)`.
pub extern "C" fn cuMemcpyDtoDAsync(
    dstDevice: CUdeviceptr,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    run("cuMemcpyDtoDAsync", || copy_async(hStream, dstDevice as usize, srcDevice as usize, ByteCount, true, true))
}

/// A memset of `count` elements of `width` bytes on a stream.
fn fill_async(h: CUstream, dst: CUdeviceptr, pattern: u64, width: u8, count: usize) -> Result<(), Fail> {
    // SAFETY: the range is checked device memory of this process.
    unsafe {
        enqueue(h, |e, d| {
            if count == 0 {
                return Ok(None);
            }
            let n = count.saturating_mul(usize::from(width));
            check_device_range(e, dst as usize, n, d, Use::Write, "dstDevice")?;
            Ok(Some(Work::Fill { dst: dst as usize, pattern, width, count }))
        })
    }
}

/// `CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)`.
pub extern "C" fn cuMemsetD8Async(dstDevice: CUdeviceptr, uc: u8, N: usize, hStream: CUstream) -> CUresult {
    run("cuMemsetD8Async", || fill_async(hStream, dstDevice, u64::from(uc), 1, N))
}

/// `CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)`.
pub extern "C" fn cuMemsetD32Async(dstDevice: CUdeviceptr, ui: u32, N: usize, hStream: CUstream) -> CUresult {
    run("cuMemsetD32Async", || fill_async(hStream, dstDevice, u64::from(ui), 4, N))
}

/// `CUresult cuCtxSynchronize(void)`: waits for the work of every stream of
/// the current context's device; reports the first failure of its work.
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    run("cuCtxSynchronize", || {
        let d = current()?;
        emu()?.device_synchronize(Some(d), None).map_err(|er| Fail::core(Op::Stream, er))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_values_are_not_addresses_nor_special() {
        let h = to_stream(StreamId(7));
        assert!(h as usize > 0x0000_7fff_ffff_ffff, "non-canonical");
        assert_eq!(TAG.id(h as usize), Some(HandleId(7)));
        assert_eq!(TAG.id(CU_STREAM_PER_THREAD as usize), None);
    }
}
