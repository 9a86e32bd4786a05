//! hipMalloc memory, host buffers, copies, fills, pointer queries (hip.md §2.1).
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use super::call::{Fail, current_device, emu, ensure, run};
use super::codes::Op;
use super::pointer::{KIND_MALLOC, Kind, extent, is_known_rows};
use super::profile::{GRANULARITY, WINDOW};
use super::state::state;
use super::stream;
use crate::ffi::Out;
use crate::core::{CaptureStatus, Emulator, RowCopy, StreamId, Work, new_generation};
use crate::registry::Place;

/// `hipError_t hipMalloc(void **ptr, size_t size)`: shareable device memory on
/// the current device. Size 0 → 0 with `*ptr = NULL`; too big → 2.
pub extern "C" fn hipMalloc(ptr: Out<'_, *mut c_void>, size: usize) -> hipError_t {
    run("hipMalloc", || {
        unsafe_while_capturing()?;
        malloc(ptr, size)
    })
}

/// hipMalloc's and hipFree's check: while a capture this thread's mode
/// forbids them runs, they are 900 and invalidate it ([HIP-GRF-012](vmmkit_sys::hip::rules::GRF_012), clr
/// `CHECK_STREAM_CAPTURE_SUPPORTED`).
fn unsafe_while_capturing() -> Result<(), Fail> {
    let e = emu()?;
    if e.capturing_any() {
        let broke = e.capture_forbids_unsafe();
        ensure!(!broke, rules::GRF_012, "a stream is capturing in a mode that does not permit allocations and frees");
    }
    Ok(())
}

/// Plain device memory of `size` bytes on `device` (hipMalloc's; graph allocation nodes').
pub(super) fn alloc_on(e: &Emulator, device: u32, size: usize) -> Result<usize, Fail> {
    let rounded = (size as u64)
        .checked_next_multiple_of(GRANULARITY)
        .ok_or_else(|| Fail::plain(HipError::OUT_OF_MEMORY, format!("{size} bytes cannot be allocated")))?;
    let props = [KIND_MALLOC, GRANULARITY, size as u64, new_generation()];
    e.alloc_plain(Place::Device(device), rounded, GRANULARITY, props, &WINDOW).map_err(|e| Fail::core(Op::Malloc, e))
}

/// hipMalloc's allocation, shared with hipExtMallocWithFlags.
pub(super) fn malloc(ptr: Out<'_, *mut c_void>, size: usize) -> Result<(), Fail> {
    if ptr.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "ptr is NULL".into()));
    }
    if size == 0 {
        ptr.write(std::ptr::null_mut())?;
        return Ok(());
    }
    let e = emu()?;
    let va = alloc_on(e, current_device(), size)?;
    ptr.write(va as *mut c_void)?;
    Ok(())
}

/// Frees the hipMalloc allocation holding `p` (any address inside it), or
/// closes one open of an IPC-opened range (HIP-IPC-047, emulator choice).
/// Memory that another process has open stays theirs; new opens of it fail
/// ([HIP-IPC-046](vmmkit_sys::hip::rules::IPC_046)).
pub(super) fn free(e: &Emulator, p: usize) -> Result<(), Fail> {
    // Memory HIP knows: the work of its device's streams ends first
    // (HIP-MEM-003; clr's ihipFree calls SyncAllStreams before freeing).
    if let Some(x) = extent(e, p) {
        sync_for_free(e, Some(x.device));
    }
    // Pool memory goes back to its pool, an imported pool pointer is closed
    // (clr: ihipFree hands pool memory to Device::FreeMemory).
    if let Some(r) = extent(e, p).and_then(|x| e.pool_free(x.base)) {
        return r.map(drop).map_err(|e| Fail::core(Op::Free, e));
    }
    match extent(e, p) {
        // Managed memory is host memory in vmmkit (`managed.rs`).
        Some(x) if x.kind == Kind::Managed => {
            state(e).mem.remove(x.base);
            e.free_host(x.base).map_err(|e| Fail::core(Op::Free, e))
        }
        Some(x) if x.kind == Kind::Opened => e.close_plain(p).map(drop).map_err(|e| Fail::core(Op::IpcClose, e)),
        // HIP-MEM-007: a hipHostMalloc buffer is a memory object to clr's
        // ihipFree, which frees it (hip_memory.cpp:69-92), as hipHostFree.
        Some(x) if x.kind == Kind::Host => host_free(e, x.base),
        Some(x) => match x.kind {
            Kind::Malloc(handle) => {
                e.withdraw(handle).map_err(|e| Fail::core(Op::Free, e))?;
                e.free_plain(x.base).map_err(|e| Fail::core(Op::Free, e))?;
                state(e).mem.forget(x.base);
                Ok(())
            }
            _ => Err(Fail::plain(HipError::INVALID_VALUE, format!("{p:#x} is not memory from hipMalloc"))),
        },
        None => Err(Fail::plain(HipError::INVALID_VALUE, format!("{p:#x} is not memory from hipMalloc"))),
    }
}

/// Waits for the work of `device`'s streams (every device's for `None`), as
/// clr's `ihipFree` does with `SyncAllStreams` before a free: a free never
/// pulls memory from under queued work, and the null stream is idle after
/// it (hip-tests `Unit_hipFreeImplicitSyncDev`/`SyncHost`). Failed work is
/// not the free's to report (clr ignores what the synchronisation returns).
fn sync_for_free(e: &Emulator, device: Option<Place>) {
    let d = match device {
        Some(Place::Device(d)) => Some(d),
        _ => None,
    };
    let _ = e.device_synchronize(d, None);
    // SyncAllStreams ends with ReleaseFreedMemory (HIP-POOL-021).
    super::pool::release_freed(e, d);
}

/// `hipError_t hipFree(void *ptr)`: NULL → 0; unknown → 1; an interior
/// pointer frees the whole allocation.
pub extern "C" fn hipFree(ptr: *mut c_void) -> hipError_t {
    run("hipFree", || {
        unsafe_while_capturing()?;
        if ptr.is_null() {
            return Ok(());
        }
        free(emu()?, ptr as usize)
    })
}

/// The bounds check of copies and fills: a range that starts in a known
/// allocation must end inside it (hip.md §2.1: an overrun → 1).
fn within(e: &Emulator, p: usize, n: usize, what: &str) -> Result<(), Fail> {
    match extent(e, p) {
        Some(x) if x.kind != Kind::Vmm && !x.holds(p, n) => Err(Fail::plain(
            HipError::INVALID_VALUE,
            format!("{what} {p:#x}+{n:#x} runs past the end of its allocation ({:#x}+{:#x})", x.base, x.size),
        )),
        _ => Ok(()),
    }
}

/// Where a copy or a fill runs: on the caller's thread, after the work the
/// NULL stream would wait for (the synchronous calls, ordered on the NULL
/// stream as clr orders them), or on a stream (the `*Async` calls).
#[derive(Debug, Clone, Copy)]
pub(super) enum On {
    /// hipMemcpy, hipMemset and their kin.
    Sync,
    /// Their `_spt` forms: the same calls on the calling thread's default
    /// stream, waited for unless their plain form would not wait. clr
    /// passes `getPerThreadDefaultStream()` to the plain forms' own common
    /// functions (ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp: hipMemcpy_spt
    /// :717-720, hipMemcpy2D_spt :2566-2571, hipMemcpy3D_spt :3096-3099,
    /// hipMemset_spt :3275-3278, hipMemset2D_spt :3446-3450, hipMemset3D_spt
    /// :3487-3491), so each decides as its plain form whether it waits on
    /// the host ([HIP-CPY-004](vmmkit_sys::hip::rules::CPY_004), [HIP-CPY-005](vmmkit_sys::hip::rules::CPY_005), [HIP-MEM-010](vmmkit_sys::hip::rules::MEM_010)).
    SyncPerThread,
    /// The `*Async` calls, with their stream.
    Stream(hipStream_t),
    /// A graph node: the checked work is handed to [`collect`]'s caller.
    Node,
}

thread_local! {
    /// The work of the node being made ([`On::Node`]).
    static COLLECTED: std::cell::RefCell<Vec<Work>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl On {
    /// A synchronous call, on either default stream.
    pub fn is_sync(self) -> bool {
        matches!(self, Self::Sync | Self::SyncPerThread)
    }

    /// Where a synchronous call's work goes when it does not wait on the
    /// host: its default stream (the NULL stream, or the calling thread's).
    fn queued(self) -> Self {
        match self {
            Self::SyncPerThread => Self::Stream(hipStreamPerThread),
            _ => Self::Stream(std::ptr::null_mut()),
        }
    }
}

/// Runs `make` (a copy or fill with [`On::Node`]) and returns the work it checked.
pub(super) fn collect(make: impl FnOnce() -> Result<(), Fail>) -> Result<Vec<Work>, Fail> {
    COLLECTED.with(|c| c.borrow_mut().clear());
    let r = make();
    let works = COLLECTED.with(|c| std::mem::take(&mut *c.borrow_mut()));
    r.map(|()| works)
}

/// The synchronous calls' check: while a stream captures they are 906 and
/// invalidate every capture ([HIP-GRF-011](vmmkit_sys::hip::rules::GRF_011), clr `CHECK_STREAM_CAPTURING`).
fn sync_while_capturing(e: &Emulator, on: On) -> Result<(), Fail> {
    if on.is_sync() && e.capturing_any() {
        let broke = e.capture_forbids_any();
        ensure!(!broke, rules::GRF_011 => HipError::STREAM_CAPTURE_IMPLICIT, "a stream is capturing; a synchronous copy or fill is not permitted");
    }
    Ok(())
}

/// The stream of an `*Async` call: a dead one is 709 ([HIP-STM-009](vmmkit_sys::hip::rules::STM_009), clr's
/// `isValid` in hipMemcpyAsync); `None` when that check was switched off.
pub(super) fn stream_of(e: &Emulator, stream: hipStream_t) -> Result<Option<StreamId>, Fail> {
    stream::or_none(stream::resolve(e, stream, &rules::STM_009, HipError::CONTEXT_IS_DESTROYED))
}

/// Runs a checked copy or fill `work` as `on` says. A copy with a host
/// side HIP does not know (pageable memory) waits for its stream before
/// returning, as clr's `ihipMemcpy` does (`isHostAsync = false`): [HIP-STM-011](vmmkit_sys::hip::rules::STM_011).
pub(super) fn submit(e: &Emulator, on: On, work: Work, host_side: bool) -> Result<(), Fail> {
    submit_all(e, on, std::iter::once(work), host_side)
}

/// [`submit`] for the rows of one call (2-D and 3-D copies and fills): one
/// fence, or one stream lookup and one wait, for all of them, in order.
pub(super) fn submit_all(e: &Emulator, on: On, mut works: impl Iterator<Item = Work>, host_side: bool) -> Result<(), Fail> {
    match on {
        On::Node => {
            COLLECTED.with(|c| c.borrow_mut().extend(works));
            Ok(())
        }
        On::Sync => {
            e.legacy_fence(current_device(), None).map_err(stream::work_failed)?;
            // SAFETY: the ranges were checked by the caller as the C contract asks (see `memcpy`, `memset`).
            works.try_for_each(|w| unsafe { run_now(e, w) }.map_err(|e| Fail::core(Op::Copy, e)))
        }
        On::SyncPerThread => {
            submit_all(e, On::Stream(hipStreamPerThread), works, host_side)?;
            match stream_of(e, hipStreamPerThread)? {
                Some(id) => super::host::sync(e, id),
                None => Ok(()),
            }
        }
        On::Stream(s) => {
            let Some(id) = stream_of(e, s)? else { return Ok(()) };
            for work in works {
                // SAFETY: device parts are checked; host parts are the caller's
                // buffers, which the vendor requires to stay valid until the
                // copy has run (a pageable one is waited for below).
                unsafe { e.enqueue(id, work) }.map_err(stream::work_failed)?;
            }
            if host_side && crate::mutation::enforced(&rules::STM_011) && e.capture_status(id) == CaptureStatus::None {
                e.stream_synchronize(id, None).map_err(|e| Fail::core(Op::Copy, e))?;
            }
            Ok(())
        }
    }
}

/// Runs a copy or fill on the caller's thread.
///
/// # Safety
/// As [`Emulator::copy`] for its ranges.
unsafe fn run_now(e: &Emulator, work: Work) -> Result<(), crate::core::CoreError> {
    match work {
        // SAFETY: the caller's promise.
        Work::Copy { dst, src, len } => unsafe { e.copy(dst, src, len) },
        // SAFETY: the caller's promise.
        Work::CopyRows(c) => unsafe { e.copy_rows(c) },
        Work::Fill { dst, pattern, width, count } => {
            e.check_host_access(dst, usize::from(width) * count, true)?;
            // SAFETY: the caller's promise.
            unsafe { e.fill_pattern(dst, pattern, width, count) }
        }
        Work::FillRows { dst, pattern, width, count, pitch, rows } => {
            e.check_host_access(dst, Work::rows_span(usize::from(width) * count, pitch, rows), true)?;
            // SAFETY: the caller's promise.
            unsafe { e.fill_rows_raw(dst, pattern, width, count, pitch, rows) }
        }
        _ => Ok(()),
    }
}

/// The rows of a copy or fill: `height` × `depth` rows of `width` bytes,
/// row `(y, z)` at `y * pitch + z * slice` from the start of each side.
/// A plain copy is one row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Shape {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
    pub dst_pitch: usize,
    pub dst_slice: usize,
    pub src_pitch: usize,
    pub src_slice: usize,
}

impl Shape {
    /// One row of `n` bytes.
    pub fn line(n: usize) -> Self {
        Self { width: n, height: 1, depth: 1, dst_pitch: n, dst_slice: n, src_pitch: n, src_slice: n }
    }

    fn is_empty(&self) -> bool {
        self.width == 0 || self.height == 0 || self.depth == 0
    }

    /// Bytes from the start of a side to the end of its last row, `None` on overflow.
    fn span(&self, pitch: usize, slice: usize) -> Option<usize> {
        let last = (self.depth - 1).checked_mul(slice)?.checked_add((self.height - 1).checked_mul(pitch)?)?;
        last.checked_add(self.width)
    }

    /// Whether the rows follow each other on both sides (one copy or fill).
    fn is_line(&self) -> bool {
        let packed = |p: usize, s: usize| {
            p == self.width && (self.depth == 1 || Some(s) == self.width.checked_mul(self.height))
        };
        packed(self.dst_pitch, self.dst_slice) && packed(self.src_pitch, self.src_slice)
    }

    /// The offsets of each row on the destination and source sides, and its
    /// length; rows that follow each other on both sides are one. The
    /// offsets stay within the spans, which the callers have checked.
    fn rows(self) -> impl Iterator<Item = (usize, usize, usize)> {
        let (height, depth, width) = if self.is_line() {
            (1, 1, self.width.saturating_mul(self.height).saturating_mul(self.depth))
        } else {
            (self.height, self.depth, self.width)
        };
        (0..depth).flat_map(move |z| {
            (0..height).map(move |y| (z * self.dst_slice + y * self.dst_pitch, z * self.src_slice + y * self.src_pitch, width))
        })
    }
}

/// Whether `kind` is a copy kind.
fn copy_kind(kind: hipMemcpyKind) -> Result<(), Fail> {
    if (0..=4).contains(&kind) || kind == hipMemcpyDeviceToDeviceNoCU {
        Ok(())
    } else {
        Err(Fail::plain(HipError::INVALID_MEMCPY_DIRECTION, format!("kind {kind} is not a copy kind")))
    }
}

pub(super) fn memcpy(dst: *mut c_void, src: *const c_void, n: usize, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    copy_shape_as(dst, src, Shape::line(n), kind, on, true)
}

/// A copy of `shape`'s rows from `src` to `dst` (hipMemcpy and the 2-D and
/// 3-D copies of linear memory), with hipMemcpy's checks over the whole
/// span of each side.
pub(super) fn copy_shape(dst: *mut c_void, src: *const c_void, shape: Shape, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    copy_shape_as(dst, src, shape, kind, on, false)
}

/// [`copy_shape`]; `one_d` for hipMemcpy and its 1-D kin, whose synchronous
/// form [`sync_copy_on`] places (a 2-D or 3-D call's `on` is placed by its
/// caller, [`sync_rows_copy_on`], even when it copies one row).
fn copy_shape_as(dst: *mut c_void, src: *const c_void, shape: Shape, kind: hipMemcpyKind, on: On, one_d: bool) -> Result<(), Fail> {
    sync_while_capturing(emu()?, on)?;
    if let On::Stream(s) = on {
        // clr's hipMemcpyAsync: the kind (21), then the stream (709), then ihipMemcpy.
        copy_kind(kind)?;
        if stream_of(emu()?, s)?.is_none() {
            return Ok(());
        }
    }
    if shape.is_empty() {
        return Ok(()); // checked before anything else
    }
    if dst.is_null() || src.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "dst or src is NULL".into()));
    }
    copy_kind(kind)?;
    let e = emu()?;
    let overflow = || Fail::plain(HipError::INVALID_VALUE, format!("the copy's rows {shape:?} overflow the address space"));
    let dn = shape.span(shape.dst_pitch, shape.dst_slice).ok_or_else(overflow)?;
    let sn = shape.span(shape.src_pitch, shape.src_slice).ok_or_else(overflow)?;
    within(e, dst as usize, dn, "dst")?;
    within(e, src as usize, sn, "src")?;
    // As clr's IsHtoHMemcpyValid: a kind that names device memory needs one
    // pointer HIP knows; an unknown one is then taken for host memory.
    let named_device = !matches!(kind, hipMemcpyHostToHost | hipMemcpyDefault);
    let (d, s) = (dst as usize, src as usize);
    ensure!(
        !named_device || extent(e, d).is_some() || extent(e, s).is_some(),
        rules::CPY_001,
        "kind {kind} names device memory, but neither dst {d:#x} ({}) nor src {s:#x} ({}) is memory HIP allocated, \
         mapped or opened",
        e.side(d),
        e.side(s)
    );
    // Host parts of both ranges are the caller's buffers of `n` bytes (the C
    // contract of hipMemcpy); device parts, and host addresses no process
    // can map, are checked by the core when the copy runs.
    let host_side = extent(e, d).is_none() || extent(e, s).is_none();
    if shape.is_line() {
        let on = if one_d { sync_copy_on(e, (d, s), on, false) } else { on };
        return submit(e, on, Work::Copy { dst: d, src: s, len: dn }, host_side);
    }
    // Rows: the spans must not wrap, and a side HIP does not know must be
    // mapped over its whole span (one `msync` each); then everything is
    // checked as a copy checks it before any row is queued, so a bad row
    // changes nothing: each side's whole span at once, or row by row where
    // it is a hipMemMap range (whose mappings may leave holes between rows).
    for (p, n, what) in [(d, dn, "dst"), (s, sn, "src")] {
        if p.checked_add(n).is_none() || (extent(e, p).is_none() && !e.is_host_mapped(p, n)) {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("{what} {p:#x}+{n:#x} is neither memory HIP knows nor mapped host memory"),
            ));
        }
    }
    let vmm = |p: usize| extent(e, p).is_some_and(|x| x.kind == Kind::Vmm);
    let check = |p: usize, n: usize| e.check_copy_range(p, n).map_err(|e| Fail::core(Op::Copy, e));
    if vmm(d) || vmm(s) {
        shape.rows().try_for_each(|(dof, sof, len)| check(d + dof, len).and_then(|()| check(s + sof, len)))?;
    } else {
        check(d, dn).and_then(|()| check(s, sn))?;
    }
    submit_all(e, on, copy_works(d, s, shape).into_iter(), host_side)
}

/// The work of a copy of `shape`'s rows from `s` to `d` (not a line): one
/// command, as clr queues one copy command per call (ihipMemcpyParam3D,
/// ROCm/clr@fa1d09c hipamd/src/hip_memory.cpp:2430-2450) — rows of one pitch on each
/// side — or one per slice where the slices are not rows of one pitch on
/// both sides (a height below a slice's).
fn copy_works(d: usize, s: usize, shape: Shape) -> Vec<Work> {
    let Shape { width: len, height, depth, dst_pitch, src_pitch, dst_slice, src_slice } = shape;
    let rows_of = |dst: usize, src: usize, rows: usize| match rows {
        1 => Work::Copy { dst, src, len },
        _ => Work::CopyRows(RowCopy { dst, src, len, dst_pitch, src_pitch, rows }),
    };
    let stacked = |pitch: usize, slice: usize| height.checked_mul(pitch) == Some(slice);
    if depth == 1 || (stacked(dst_pitch, dst_slice) && stacked(src_pitch, src_slice)) {
        return vec![rows_of(d, s, height.saturating_mul(depth))];
    }
    (0..depth).map(|z| rows_of(d + z * dst_slice, s + z * src_slice, height)).collect()
}

/// `hipError_t hipMemcpy(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind)`:
/// n = 0 → 0 first; NULL → 1; bad kind → 21; past the end of an allocation → 1;
/// a device kind with neither pointer HIP memory → 1 ([HIP-CPY-001](vmmkit_sys::hip::rules::CPY_001)); a host
/// address no process can map → 1 ([HIP-CPY-002](vmmkit_sys::hip::rules::CPY_002)). Synchronous.
pub extern "C" fn hipMemcpy(
    dst: *mut c_void,
    src: *const c_void,
    sizeBytes: usize,
    kind: hipMemcpyKind,
) -> hipError_t {
    run("hipMemcpy", || memcpy(dst, src, sizeBytes, kind, On::Sync))
}

/// `hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t sizeBytes)`.
pub extern "C" fn hipMemcpyHtoD(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize) -> hipError_t {
    run("hipMemcpyHtoD", || memcpy(dst, src, sizeBytes, hipMemcpyHostToDevice, On::Sync))
}

/// `hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t sizeBytes)`.
pub extern "C" fn hipMemcpyDtoH(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize) -> hipError_t {
    run("hipMemcpyDtoH", || memcpy(dst, src, sizeBytes, hipMemcpyDeviceToHost, On::Sync))
}

/// Fills `count` elements of `width` bytes at `dst` with `value`, as `on` says.
pub(super) fn memset(dst: *mut c_void, value: u64, width: u8, count: usize, on: On) -> Result<(), Fail> {
    let n = count.saturating_mul(usize::from(width));
    let on = sync_fill_on(dst, on, true)?;
    fill_rows(dst, value, width, Shape::line(n), on)
}

/// Whether HIP memory at `x` is device memory to clr's ihipMemcpy: neither
/// fine-grained nor host memory (hipMalloc memory, or another process's
/// opened here).
fn is_device_memory(e: &Emulator, x: &super::pointer::Extent) -> bool {
    match x.kind {
        Kind::Malloc(_) => state(e).mem.flags(x.base) & hipDeviceMallocFinegrained == 0,
        Kind::Opened => true,
        _ => false,
    }
}

/// Where a synchronous 1-D copy between `dst` and `src` runs ([HIP-CPY-004](vmmkit_sys::hip::rules::CPY_004)):
/// as clr's ihipMemcpy (hip_memory.cpp:586-601), a copy between device
/// memory of one device does not wait on the host, and hipMemcpyPeer
/// (`peer`, hip_peer.cpp:199-200) waits for none between memory HIP knows
/// unless both sides are of one device and not both device memory; such a
/// copy is queued on the NULL stream. Any other copy, and every copy while
/// a stream captures, waits.
pub(super) fn sync_copy_on(e: &Emulator, (dst, src): (usize, usize), on: On, peer: bool) -> On {
    if !on.is_sync() || !crate::mutation::enforced(&rules::CPY_004) || e.capturing_any() {
        return on;
    }
    let (Some(xd), Some(xs)) = (extent(e, dst), extent(e, src)) else { return on };
    let device = is_device_memory(e, &xd) && is_device_memory(e, &xs);
    let queued = if xd.device == xs.device { device || peer } else { peer };
    if queued { on.queued() } else { on }
}

/// The memory types clr's descriptor gives the (source, destination) of a
/// 2-D or 3-D copy of `kind` (hip::getMemoryType, ROCm/clr@fa1d09c
/// hipamd/src/hip_conversions.hpp:598-612); a kind that is none: neither.
pub(super) fn kind_types(kind: hipMemcpyKind) -> (hipMemoryType, hipMemoryType) {
    match kind {
        hipMemcpyHostToHost => (hipMemoryTypeHost, hipMemoryTypeHost),
        hipMemcpyHostToDevice => (hipMemoryTypeHost, hipMemoryTypeDevice),
        hipMemcpyDeviceToHost => (hipMemoryTypeDevice, hipMemoryTypeHost),
        hipMemcpyDeviceToDevice | hipMemcpyDeviceToDeviceNoCU => (hipMemoryTypeDevice, hipMemoryTypeDevice),
        hipMemcpyDefault => (hipMemoryTypeUnified, hipMemoryTypeUnified),
        _ => (0, 0),
    }
}

/// Where a synchronous 2-D or 3-D copy runs ([HIP-CPY-005](vmmkit_sys::hip::rules::CPY_005)), its
/// `sides` each a first byte and the memory type its descriptor names: as
/// clr's ihipMemcpyParam3D (hip_memory.cpp:2380-2391), which hipMemcpy2D,
/// hipMemcpy3D, hipMemcpyParam2D and hipDrvMemcpy3D reach, a copy whose two
/// sides are device memory does not wait on the host and is queued on the
/// NULL stream: a side typed device, or typed unified (hipMemcpyDefault)
/// and found to be device memory, neither fine-grained nor host memory
/// (ihipCopyMemParamSet, :2056-2092; getMemoryType, :66-73). Any other
/// copy, one with an array side among them, and every copy while a stream
/// captures, waits.
pub(super) fn sync_rows_copy_on(e: &Emulator, sides: [(usize, hipMemoryType); 2], on: On) -> On {
    if !on.is_sync() || !crate::mutation::enforced(&rules::CPY_005) || e.capturing_any() {
        return on;
    }
    let device = |(p, ty): (usize, hipMemoryType)| match ty {
        hipMemoryTypeDevice => true,
        hipMemoryTypeUnified => extent(e, p).is_some_and(|x| is_device_memory(e, &x)),
        _ => false,
    };
    if sides.into_iter().all(device) { on.queued() } else { on }
}

/// Where a fill runs. A synchronous fill of device memory at the start of
/// its allocation is asynchronous to the host, queued on the NULL stream
/// like hipMemsetAsync (clr ihipMemset, hip_memory.cpp:3238-3260, and
/// ihipMemset3D, :3412-3435: not fine-grained, not host memory, offset 0);
/// for the 1-D fills (`one_d`) so is one of memory with SYNC_MEMOPS set
/// (:3242). Any other fill, and every fill while a stream captures, waits
/// ([HIP-MEM-010](vmmkit_sys::hip::rules::MEM_010)).
pub(super) fn sync_fill_on(dst: *mut c_void, on: On, one_d: bool) -> Result<On, Fail> {
    let e = emu()?;
    if !on.is_sync() || !crate::mutation::enforced(&rules::MEM_010) || e.capturing_any() {
        return Ok(on);
    }
    let p = dst as usize;
    let Some(x) = extent(e, p) else { return Ok(on) };
    let mem = &state(e).mem;
    let device = matches!(x.kind, Kind::Malloc(_)) && is_device_memory(e, &x);
    let queued = (device && p == x.base) || (one_d && mem.sync_memops(x.base));
    Ok(if queued { on.queued() } else { on })
}

/// Fills the rows of `shape` (its destination side) at `dst` with `value`
/// in elements of `width` bytes: hipMemset and the 2-D and 3-D fills.
pub(super) fn fill_rows(dst: *mut c_void, value: u64, width: u8, shape: Shape, on: On) -> Result<(), Fail> {
    sync_while_capturing(emu()?, on)?;
    if shape.is_empty() {
        return Ok(());
    }
    if dst.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "dst is NULL".into()));
    }
    let e = emu()?;
    let p = dst as usize;
    let n = shape
        .span(shape.dst_pitch, shape.dst_slice)
        .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("the rows {shape:?} overflow the address space")))?;
    // hipMemMap memory: each row must be mapped (there may be holes between rows).
    if !is_known_rows(e, p, n, shape.rows().map(|(dof, _, len)| (dof, len))) {
        return Err(Fail::plain(
            HipError::INVALID_VALUE,
            format!("{p:#x}+{n:#x} is not (wholly) memory that HIP allocated"),
        ));
    }
    // The range is device memory or a host buffer of ours, checked above.
    submit_all(e, on, fill_works(p, value, width, shape).into_iter(), false)
}

/// The work of a fill of `shape`'s destination rows at `p`: one command,
/// as clr queues one fill command per call (ihipMemset3D, ROCm/clr@fa1d09c
/// hipamd/src/hip_memory.cpp:3412-3435) — a line, or rows of one pitch —
/// or one per slice where the slices are not rows of one pitch (a height
/// below the slice's).
fn fill_works(p: usize, value: u64, width: u8, shape: Shape) -> Vec<Work> {
    let w = usize::from(width);
    if shape.is_line() {
        let count = shape.width.saturating_mul(shape.height).saturating_mul(shape.depth) / w;
        return vec![Work::Fill { dst: p, pattern: value, width, count }];
    }
    let count = shape.width / w;
    let rows_of = |dst: usize, rows: usize| match rows {
        1 => Work::Fill { dst, pattern: value, width, count },
        _ => Work::FillRows { dst, pattern: value, width, count, pitch: shape.dst_pitch, rows },
    };
    let uniform = shape.depth == 1 || shape.height.checked_mul(shape.dst_pitch) == Some(shape.dst_slice);
    if uniform {
        return vec![rows_of(p, shape.height.saturating_mul(shape.depth))];
    }
    (0..shape.depth).map(|z| rows_of(p + z * shape.dst_slice, shape.height)).collect()
}

/// `hipError_t hipMemset(void *dst, int value, size_t sizeBytes)`: n = 0 → 0;
/// NULL, unknown or overrun → 1.
pub extern "C" fn hipMemset(dst: *mut c_void, value: i32, sizeBytes: usize) -> hipError_t {
    run("hipMemset", || memset(dst, u64::from(value as u8), 1, sizeBytes, On::Sync))
}

/// `hipError_t hipMemsetD8(hipDeviceptr_t dest, unsigned char value, size_t count)`: as hipMemset.
pub extern "C" fn hipMemsetD8(dest: hipDeviceptr_t, value: u8, count: usize) -> hipError_t {
    run("hipMemsetD8", || memset(dest, u64::from(value), 1, count, On::Sync))
}

pub(super) fn host_malloc(ptr: Out<'_, *mut c_void>, size: usize, flags: u32) -> Result<(), Fail> {
    if ptr.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "ptr is NULL".into()));
    }
    if size == 0 {
        ptr.write(std::ptr::null_mut())?;
        return Ok(());
    }
    let both = hipHostMallocCoherent | hipHostMallocNonCoherent;
    if flags & both == both {
        return Err(Fail::plain(HipError::INVALID_VALUE, "Coherent and NonCoherent together".into()));
    }
    let e = emu()?;
    let p = e.alloc_host(size).map_err(|e| Fail::core(Op::HostMalloc, e))?;
    state(e).mem.note_flags(p, flags);
    ptr.write(p as *mut c_void)?;
    Ok(())
}

/// `hipError_t hipHostMalloc(void **ptr, size_t size, unsigned flags)`: NULL → 1;
/// size 0 → 0 with NULL; Coherent with NonCoherent → 1; other bits ignored.
pub extern "C" fn hipHostMalloc(ptr: Out<'_, *mut c_void>, size: usize, flags: u32) -> hipError_t {
    run("hipHostMalloc", || host_malloc(ptr, size, flags))
}

/// `hipError_t hipExtHostAlloc(void **ptr, size_t size, unsigned flags)` (6.3+): as hipHostMalloc.
pub extern "C" fn hipExtHostAlloc(ptr: Out<'_, *mut c_void>, size: usize, flags: u32) -> hipError_t {
    run("hipExtHostAlloc", || host_malloc(ptr, size, flags))
}

/// `hipError_t hipHostFree(void *ptr)`: NULL → 0; anything but the start of a
/// host buffer → 1 (a hipMalloc pointer too: the documented code, hip.md §2.1).
pub extern "C" fn hipHostFree(ptr: *mut c_void) -> hipError_t {
    run("hipHostFree", || {
        if ptr.is_null() {
            return Ok(());
        }
        host_free(emu()?, ptr as usize)
    })
}

/// Frees the host buffer that starts at `p` (hipHostFree, hipFreeHost).
pub(super) fn host_free(e: &Emulator, p: usize) -> Result<(), Fail> {
    // clr's ihipFree waits for the device the buffer was allocated on
    // (HIP-MEM-003); vmmkit does not record it, and waits for every device.
    if e.host_at(p).is_some_and(|(start, _)| start == p) {
        sync_for_free(e, None);
    }
    e.free_host(p)
        .map_err(|_| Fail::plain(HipError::INVALID_VALUE, format!("{p:#x} was not allocated by hipHostMalloc")))?;
    // Managed memory is a host buffer too (clr frees it here as well).
    state(e).mem.remove(p);
    Ok(())
}

/// `hipError_t hipPointerGetAttributes(hipPointerAttribute_t *attributes, const void *ptr)`,
/// profile 6.x: NULL → 1; an unknown pointer → 0 with type Unregistered and device −2.
pub extern "C" fn hipPointerGetAttributes(
    attributes: Out<'_, hipPointerAttribute_t>,
    ptr: *const c_void,
) -> hipError_t {
    run("hipPointerGetAttributes", || {
        if attributes.is_null() || ptr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "attributes or ptr is NULL".into()));
        }
        let e = emu()?;
        let p = ptr.cast_mut();
        let mut a = hipPointerAttribute_t { device: -2, ..Default::default() };
        if let Some(x) = extent(e, p as usize) {
            a.device = match x.device {
                Place::Device(d) | Place::Host(d) => d as i32,
            };
            a.devicePointer = p;
            a.allocationFlags = state(e).mem.flags(x.base);
            match x.kind {
                Kind::Host | Kind::Registered => {
                    a.type_ = hipMemoryTypeHost;
                    a.hostPointer = p;
                }
                // clr hip_memory.cpp:3806: managed memory reports its own type.
                Kind::Managed => {
                    a.type_ = hipMemoryTypeManaged;
                    a.hostPointer = p;
                    a.isManaged = 1;
                }
                _ => a.type_ = hipMemoryTypeDevice,
            }
        }
        attributes.write(a)?;
        Ok(())
    })
}

/// `hipError_t hipMemGetAddressRange(hipDeviceptr_t *pbase, size_t *psize, hipDeviceptr_t dptr)`:
/// the allocation's base and size for any address inside it; unknown → 500.
/// The real runtime does not check the out-pointers (it crashes); the
/// emulator writes only those that are not NULL.
pub extern "C" fn hipMemGetAddressRange(
    pbase: Out<'_, hipDeviceptr_t>,
    psize: Out<'_, usize>,
    dptr: hipDeviceptr_t,
) -> hipError_t {
    run("hipMemGetAddressRange", || {
        // HIP-MEM-008: clr answers any memory object's start and size,
        // hipHostMalloc buffers included (hip_memory.cpp:798-813).
        let x = extent(emu()?, dptr as usize)
            .filter(|x| x.kind != Kind::Registered)
            .ok_or_else(|| Fail::plain(HipError::NOT_FOUND, format!("{dptr:p} is not memory HIP allocated")))?;
        pbase.write_if_given(x.base as hipDeviceptr_t);
        psize.write_if_given(x.size);
        Ok(())
    })
}

// ---- stream-ordered copies and fills (clr hip_memory.cpp, hip_peer.cpp) ----

/// `hipError_t hipMemcpyAsync(void *dst, const void *src, size_t sizeBytes, hipMemcpyKind kind, hipStream_t stream)`:
/// bad kind → 21; a dead stream → 709 ([HIP-STM-009](vmmkit_sys::hip::rules::STM_009)); then as hipMemcpy. The
/// copy runs on the stream; one with a pageable host side is waited for.
pub extern "C" fn hipMemcpyAsync(
    dst: *mut c_void,
    src: *const c_void,
    sizeBytes: usize,
    kind: hipMemcpyKind,
    stream: hipStream_t,
) -> hipError_t {
    run("hipMemcpyAsync", || memcpy(dst, src, sizeBytes, kind, On::Stream(stream)))
}

/// `hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t sizeBytes, hipStream_t stream)`.
pub extern "C" fn hipMemcpyHtoDAsync(dst: hipDeviceptr_t, src: *mut c_void, sizeBytes: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyHtoDAsync", || memcpy(dst, src, sizeBytes, hipMemcpyHostToDevice, On::Stream(stream)))
}

/// `hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)`.
pub extern "C" fn hipMemcpyDtoHAsync(dst: *mut c_void, src: hipDeviceptr_t, sizeBytes: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyDtoHAsync", || memcpy(dst, src, sizeBytes, hipMemcpyDeviceToHost, On::Stream(stream)))
}

/// `hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes, hipStream_t stream)`.
pub extern "C" fn hipMemcpyDtoDAsync(dst: hipDeviceptr_t, src: hipDeviceptr_t, sizeBytes: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyDtoDAsync", || memcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice, On::Stream(stream)))
}

/// `hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t sizeBytes)`: as hipMemcpy.
pub extern "C" fn hipMemcpyDtoD(dst: hipDeviceptr_t, src: hipDeviceptr_t, sizeBytes: usize) -> hipError_t {
    run("hipMemcpyDtoD", || memcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice, On::Sync))
}

/// The device checks of clr's hipMemcpyPeer: either out of range → 101.
pub(super) fn peer_devices(dst: i32, src: i32) -> Result<(), Fail> {
    super::device::device(src)?;
    super::device::device(dst).map(drop)
}

/// `hipError_t hipMemcpyPeer(void *dst, int dstDeviceId, const void *src, int srcDeviceId, size_t sizeBytes)`:
/// a device out of range → 101; then a device-to-device hipMemcpy.
pub extern "C" fn hipMemcpyPeer(dst: *mut c_void, dstDeviceId: i32, src: *const c_void, srcDeviceId: i32, sizeBytes: usize) -> hipError_t {
    run("hipMemcpyPeer", || {
        peer_devices(dstDeviceId, srcDeviceId)?;
        let on = sync_copy_on(emu()?, (dst as usize, src as usize), On::Sync, true);
        memcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice, on)
    })
}

/// `hipError_t hipMemcpyPeerAsync(void *dst, int dstDeviceId, const void *src, int srcDevice, size_t sizeBytes, hipStream_t stream)`:
/// a device out of range → 101; a dead stream → 709; then as hipMemcpyDtoDAsync.
pub extern "C" fn hipMemcpyPeerAsync(
    dst: *mut c_void,
    dstDeviceId: i32,
    src: *const c_void,
    srcDevice: i32,
    sizeBytes: usize,
    stream: hipStream_t,
) -> hipError_t {
    run("hipMemcpyPeerAsync", || {
        peer_devices(dstDeviceId, srcDevice)?;
        memcpy(dst, src, sizeBytes, hipMemcpyDeviceToDevice, On::Stream(stream))
    })
}

/// `hipError_t hipMemsetAsync(void *dst, int value, size_t sizeBytes, hipStream_t stream)`:
/// as hipMemset, on the stream. clr's ihipMemset does not check the stream;
/// the emulator answers a dead one 709 as the copies do ([HIP-STM-009](vmmkit_sys::hip::rules::STM_009)).
pub extern "C" fn hipMemsetAsync(dst: *mut c_void, value: i32, sizeBytes: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetAsync", || memset(dst, u64::from(value as u8), 1, sizeBytes, On::Stream(stream)))
}

/// `hipError_t hipMemsetD8Async(hipDeviceptr_t dest, unsigned char value, size_t count, hipStream_t stream)`.
pub extern "C" fn hipMemsetD8Async(dest: hipDeviceptr_t, value: u8, count: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetD8Async", || memset(dest, u64::from(value), 1, count, On::Stream(stream)))
}

/// `hipError_t hipMemsetD16(hipDeviceptr_t dest, unsigned short value, size_t count)`: `count` 2-byte elements.
pub extern "C" fn hipMemsetD16(dest: hipDeviceptr_t, value: u16, count: usize) -> hipError_t {
    run("hipMemsetD16", || memset(dest, u64::from(value), 2, count, On::Sync))
}

/// `hipError_t hipMemsetD16Async(hipDeviceptr_t dest, unsigned short value, size_t count, hipStream_t stream)`.
pub extern "C" fn hipMemsetD16Async(dest: hipDeviceptr_t, value: u16, count: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetD16Async", || memset(dest, u64::from(value), 2, count, On::Stream(stream)))
}

/// `hipError_t hipMemsetD32(hipDeviceptr_t dest, int value, size_t count)`: `count` 4-byte elements.
pub extern "C" fn hipMemsetD32(dest: hipDeviceptr_t, value: i32, count: usize) -> hipError_t {
    run("hipMemsetD32", || memset(dest, u64::from(value as u32), 4, count, On::Sync))
}

/// `hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int value, size_t count, hipStream_t stream)`.
pub extern "C" fn hipMemsetD32Async(dst: hipDeviceptr_t, value: i32, count: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetD32Async", || memset(dst, u64::from(value as u32), 4, count, On::Stream(stream)))
}
