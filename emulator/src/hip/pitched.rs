//! Pitched allocations, 2-D and 3-D copies and fills of linear
//! memory, and the per-thread-default-stream (`_spt`) forms of the copies and
//! fills (clr hipamd/src/hip_memory.cpp). A side that is an array is its
//! memory (`array.rs`), with the array's pitch and rows.
#![allow(non_snake_case, non_upper_case_globals)]

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use super::call::{Fail, emu, run};
use super::memory::{
    On, Shape, copy_shape, fill_rows, kind_types, malloc, memcpy, memset, peer_devices, sync_rows_copy_on,
};
use super::ranges::ArrayRec;
use super::state::state;
use super::stream::spt;
use crate::ffi::{In, Out};

/// Row alignment of pitched allocations: clr's `imagePitchAlignment_`
/// (rocclr/device/rocm/rocdevice.cpp:1640).
const PITCH_ALIGN: usize = 256;

/// `ihipMallocPitch`: NULL → 1; any dimension 0 → 0 with NULL; the pitch is
/// the width rounded up to 256 (clr hip_memory.cpp:898-941).
fn malloc_pitch(ptr: Out<'_, *mut c_void>, pitch: Out<'_, usize>, width: usize, height: usize, depth: usize) -> Result<(), Fail> {
    if ptr.is_null() || pitch.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "ptr or pitch is NULL".into()));
    }
    if width == 0 || height == 0 || depth == 0 {
        ptr.write(std::ptr::null_mut())?;
        return Ok(());
    }
    let too_big = || Fail::plain(HipError::INVALID_VALUE, format!("{width} x {height} x {depth} bytes overflow"));
    let p = width.checked_next_multiple_of(PITCH_ALIGN).ok_or_else(too_big)?;
    let size = p.checked_mul(height).and_then(|n| n.checked_mul(depth)).ok_or_else(too_big)?;
    malloc(ptr, size)?;
    pitch.write(p)?;
    Ok(())
}

/// `hipError_t hipMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)`:
/// hipMalloc memory of `pitch × height` bytes.
pub extern "C" fn hipMallocPitch(ptr: Out<'_, *mut c_void>, pitch: Out<'_, usize>, width: usize, height: usize) -> hipError_t {
    run("hipMallocPitch", || malloc_pitch(ptr, pitch, width, height, 1))
}

/// `hipError_t hipMemAllocPitch(hipDeviceptr_t *dptr, size_t *pitch, size_t widthInBytes, size_t height, unsigned int elementSizeBytes)`:
/// a width or height of 0, or an element size other than 4, 8, 16 → 1 (clr
/// hip_memory.cpp:3634-3645); then hipMallocPitch.
pub extern "C" fn hipMemAllocPitch(
    dptr: Out<'_, hipDeviceptr_t>,
    pitch: Out<'_, usize>,
    widthInBytes: usize,
    height: usize,
    elementSizeBytes: u32,
) -> hipError_t {
    run("hipMemAllocPitch", || {
        if widthInBytes == 0 || height == 0 || ![4, 8, 16].contains(&elementSizeBytes) {
            return Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("width {widthInBytes}, height {height}, element size {elementSizeBytes} (4, 8 or 16)"),
            ));
        }
        malloc_pitch(dptr, pitch, widthInBytes, height, 1)
    })
}

/// `hipError_t hipMalloc3D(hipPitchedPtr *pitchedDevPtr, hipExtent extent)`:
/// NULL → 1; `extent.width` bytes per row, rows of `height` per slice.
pub extern "C" fn hipMalloc3D(pitchedDevPtr: Out<'_, hipPitchedPtr>, extent: hipExtent) -> hipError_t {
    run("hipMalloc3D", || {
        if pitchedDevPtr.is_null() {
            return Err(Fail::plain(HipError::INVALID_VALUE, "pitchedDevPtr is NULL".into()));
        }
        let mut out = hipPitchedPtr::default();
        malloc_pitch(Out::from_mut(&mut out.ptr), Out::from_mut(&mut out.pitch), extent.width, extent.height, extent.depth)?;
        out.xsize = extent.width;
        out.ysize = extent.height;
        pitchedDevPtr.write(out)?;
        Ok(())
    })
}

/// The rows of a 2-D copy: `height` rows of `width` bytes, `dpitch` and
/// `spitch` apart.
pub(super) fn rows_2d(dpitch: usize, spitch: usize, width: usize, height: usize) -> Shape {
    Shape { width, height, depth: 1, dst_pitch: dpitch, dst_slice: 0, src_pitch: spitch, src_slice: 0 }
}

/// A 2-D copy: 0 rows or columns → 0 first; a pitch below the width → 12
/// (clr ihipMemcpy2D, hip_memory.cpp:2570-2578); then as hipMemcpy over
/// each row.
pub(super) fn copy_2d(dst: *mut c_void, src: *const c_void, shape: Shape, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    let (width, dpitch, spitch) = (shape.width, shape.dst_pitch, shape.src_pitch);
    if width == 0 || shape.height == 0 {
        return Ok(());
    }
    if width > dpitch || width > spitch {
        return Err(Fail::plain(
            HipError::INVALID_PITCH_VALUE,
            format!("width {width} exceeds a pitch (dst {dpitch}, src {spitch})"),
        ));
    }
    copy_shape(dst, src, shape, kind, on)
}

/// `hipError_t hipMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, hipMemcpyKind kind)`.
pub extern "C" fn hipMemcpy2D(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2D", || copy_2d_sync(dst, dpitch, src, spitch, width, height, kind, On::Sync))
}

/// hipMemcpy2D and its `_spt` form (`on`): a copy between device memory
/// does not wait on the host ([`sync_rows_copy_on`]).
#[allow(clippy::too_many_arguments)] // hipMemcpy2D's own
fn copy_2d_sync(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, on: On) -> Result<(), Fail> {
    let (src_ty, dst_ty) = kind_types(kind);
    let on = sync_rows_copy_on(emu()?, [(dst as usize, dst_ty), (src as usize, src_ty)], on);
    copy_2d(dst, src, rows_2d(dpitch, spitch, width, height), kind, on)
}

/// `hipError_t hipMemcpy2DAsync(…, hipMemcpyKind kind, hipStream_t stream)`: as hipMemcpy2D, on the stream.
pub extern "C" fn hipMemcpy2DAsync(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy2DAsync", || copy_2d(dst, src, rows_2d(dpitch, spitch, width, height), kind, On::Stream(stream)))
}

/// `hipMemcpy2D` on the calling thread's default stream.
pub extern "C" fn hipMemcpy2D_spt(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy2D_spt", || copy_2d_sync(dst, dpitch, src, spitch, width, height, kind, On::SyncPerThread))
}

/// `hipMemcpy2DAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemcpy2DAsync_spt(dst: *mut c_void, dpitch: usize, src: *const c_void, spitch: usize, width: usize, height: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy2DAsync_spt", || copy_2d(dst, src, rows_2d(dpitch, spitch, width, height), kind, On::Stream(spt(stream))))
}

/// One side of a driver-style copy (`hip_Memcpy2D`, `HIP_MEMCPY3D`).
#[derive(Debug, Clone, Copy)]
struct Side {
    what: &'static str,
    ty: hipMemoryType,
    host: *const c_void,
    device: *mut c_void,
    array: hipArray_t,
    /// x in bytes, y and z in rows and slices.
    at: hipPos,
    pitch: usize,
    /// Rows per slice.
    height: usize,
}

impl Side {
    /// The side's first byte, and whether it is device memory (an array's
    /// pitch and rows replace the given ones). A dead array, an unknown
    /// memory type or a NULL pointer → 1.
    fn start(&mut self) -> Result<(usize, bool), Fail> {
        let what = self.what;
        let base = match self.ty {
            hipMemoryTypeHost => self.host as usize,
            hipMemoryTypeDevice | hipMemoryTypeUnified | hipMemoryTypeManaged => self.device as usize,
            // An array is its memory, with its own pitch and rows.
            hipMemoryTypeArray => {
                let a = state(emu()?).mem.array(self.array as usize).ok_or_else(|| {
                    Fail::plain(HipError::INVALID_VALUE, format!("{what}Array {:p} is not a live array", self.array))
                })?;
                (self.pitch, self.height) = (a.pitch(), a.rows());
                a.mem
            }
            ty => return Err(Fail::plain(HipError::INVALID_VALUE, format!("{what}MemoryType {ty} is not a memory type"))),
        };
        if base == 0 {
            return Err(Fail::plain(HipError::INVALID_VALUE, format!("{what} pointer is NULL")));
        }
        let slice = self.pitch.checked_mul(self.height);
        let off = slice
            .and_then(|s| s.checked_mul(self.at.z))
            .and_then(|o| o.checked_add(self.at.y.checked_mul(self.pitch)?))
            .and_then(|o| o.checked_add(self.at.x))
            .and_then(|o| o.checked_add(base));
        let at = off.ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{what} offset overflows")))?;
        Ok((at, self.ty != hipMemoryTypeHost))
    }

    /// A device side is the memory object at its pointer, and the copy's
    /// rectangle from `at` (its first byte) must end within it; else 1, as
    /// clr's ihipMemcpyDtoDValidate, DtoH and HtoD (hip_memory.cpp:1765-1804,
    /// :1839, :1918): getMemoryObject of the pointer, then validateRegion.
    fn within_its_memory(&self, at: usize, extent: hipExtent) -> Result<(), Fail> {
        if self.ty != hipMemoryTypeDevice {
            return Ok(());
        }
        let what = self.what;
        let x = super::pointer::extent(emu()?, self.device as usize).ok_or_else(|| {
            Fail::plain(HipError::INVALID_VALUE, format!("{what}Device {:p} is not memory HIP knows", self.device))
        })?;
        let slice = self.pitch.saturating_mul(self.height);
        let span = (extent.depth - 1)
            .checked_mul(slice)
            .and_then(|o| o.checked_add((extent.height - 1).checked_mul(self.pitch)?))
            .and_then(|o| o.checked_add(extent.width))
            .and_then(|o| o.checked_add(at));
        match span {
            Some(end) if end <= x.base + x.size => Ok(()),
            _ => Err(Fail::plain(
                HipError::INVALID_VALUE,
                format!("the copy runs past {what}Device's allocation ({:#x}, {} bytes)", x.base, x.size),
            )),
        }
    }
}

/// The driver-style copies (`hipMemcpyParam2D`, `hipDrvMemcpy3D`): each side
/// by its memory type, then as hipMemcpy2D (one slice) or hipMemcpy3D with
/// the kind the two types name.
fn copy_sides(src: Side, dst: Side, extent: hipExtent, on: On) -> Result<(), Fail> {
    if extent.width == 0 || extent.height == 0 || extent.depth == 0 {
        return Ok(());
    }
    let (mut src, mut dst) = (src, dst);
    let (s, s_dev) = src.start()?;
    let (d, d_dev) = dst.start()?;
    src.within_its_memory(s, extent)?;
    dst.within_its_memory(d, extent)?;
    let kind = match (s_dev, d_dev) {
        (false, false) => hipMemcpyHostToHost,
        (false, true) => hipMemcpyHostToDevice,
        (true, false) => hipMemcpyDeviceToHost,
        (true, true) => hipMemcpyDeviceToDevice,
    };
    let mut shape = rows_2d(dst.pitch, src.pitch, extent.width, extent.height);
    if extent.depth > 1 {
        if src.height < extent.height || dst.height < extent.height {
            return Err(Fail::plain(HipError::INVALID_VALUE, "more rows than a slice holds (srcHeight, dstHeight)".into()));
        }
        let slices = (dst.pitch.checked_mul(dst.height), src.pitch.checked_mul(src.height));
        let (Some(dst_slice), Some(src_slice)) = slices else {
            return Err(Fail::plain(HipError::INVALID_VALUE, "a slice (pitch × height) overflows".into()));
        };
        (shape.depth, shape.dst_slice, shape.src_slice) = (extent.depth, dst_slice, src_slice);
    }
    let on = sync_rows_copy_on(emu()?, [(d, dst.ty), (s, src.ty)], on);
    copy_2d(d as *mut c_void, s as *const c_void, shape, kind, on)
}

/// `hipMemcpyParam2D(Async)`: NULL → 1, then [`copy_sides`].
fn copy_param_2d(p: In<'_, hip_Memcpy2D>, on: On) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "pCopy is NULL".into()));
    }
    let c = p.read()?;
    let at = |x, y| hipPos { x, y, z: 0 };
    let src = Side {
        what: "src",
        ty: c.srcMemoryType,
        host: c.srcHost,
        device: c.srcDevice,
        array: c.srcArray,
        at: at(c.srcXInBytes, c.srcY),
        pitch: c.srcPitch,
        height: 0,
    };
    let dst = Side {
        what: "dst",
        ty: c.dstMemoryType,
        host: c.dstHost.cast_const(),
        device: c.dstDevice,
        array: c.dstArray,
        at: at(c.dstXInBytes, c.dstY),
        pitch: c.dstPitch,
        height: 0,
    };
    copy_sides(src, dst, hipExtent { width: c.WidthInBytes, height: c.Height, depth: 1 }, on)
}

/// `hipDrvMemcpy3D(Async)`: NULL → 1 (clr ihipMemcpyParam3D,
/// hip_memory.cpp:2510-2522), then [`copy_sides`]; the level of detail is
/// ignored (linear memory has one).
fn copy_param_3d(p: In<'_, HIP_MEMCPY3D>, on: On) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "pCopy is NULL".into()));
    }
    let c = p.read()?;
    let src = Side {
        what: "src",
        ty: c.srcMemoryType,
        host: c.srcHost,
        device: c.srcDevice,
        array: c.srcArray,
        at: hipPos { x: c.srcXInBytes, y: c.srcY, z: c.srcZ },
        pitch: c.srcPitch,
        height: c.srcHeight,
    };
    let dst = Side {
        what: "dst",
        ty: c.dstMemoryType,
        host: c.dstHost.cast_const(),
        device: c.dstDevice,
        array: c.dstArray,
        at: hipPos { x: c.dstXInBytes, y: c.dstY, z: c.dstZ },
        pitch: c.dstPitch,
        height: c.dstHeight,
    };
    copy_sides(src, dst, hipExtent { width: c.WidthInBytes, height: c.Height, depth: c.Depth }, on)
}

/// `hipError_t hipDrvMemcpy3D(const HIP_MEMCPY3D *pCopy)`: pitched linear memory.
pub extern "C" fn hipDrvMemcpy3D(pCopy: In<'_, HIP_MEMCPY3D>) -> hipError_t {
    run("hipDrvMemcpy3D", || copy_param_3d(pCopy, On::Sync))
}

/// `hipError_t hipDrvMemcpy3DAsync(const HIP_MEMCPY3D *pCopy, hipStream_t stream)`.
pub extern "C" fn hipDrvMemcpy3DAsync(pCopy: In<'_, HIP_MEMCPY3D>, stream: hipStream_t) -> hipError_t {
    run("hipDrvMemcpy3DAsync", || copy_param_3d(pCopy, On::Stream(stream)))
}

/// `hipError_t hipMemcpyParam2D(const hip_Memcpy2D *pCopy)`.
pub extern "C" fn hipMemcpyParam2D(pCopy: In<'_, hip_Memcpy2D>) -> hipError_t {
    run("hipMemcpyParam2D", || copy_param_2d(pCopy, On::Sync))
}

/// `hipError_t hipDrvMemcpy2DUnaligned(const hip_Memcpy2D *pCopy)`: clr makes
/// the 3-D descriptor of the 2-D one and copies as hipDrvMemcpy3D on the
/// null stream (hip_memory.cpp:4251-4257), i.e. as hipMemcpyParam2D.
pub extern "C" fn hipDrvMemcpy2DUnaligned(pCopy: In<'_, hip_Memcpy2D>) -> hipError_t {
    run("hipDrvMemcpy2DUnaligned", || copy_param_2d(pCopy, On::Sync))
}

/// `hipError_t hipMemcpyParam2DAsync(const hip_Memcpy2D *pCopy, hipStream_t stream)`.
pub extern "C" fn hipMemcpyParam2DAsync(pCopy: In<'_, hip_Memcpy2D>, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyParam2DAsync", || copy_param_2d(pCopy, On::Stream(stream)))
}

/// A 3-D copy of pitched linear memory or arrays, with clr's
/// `ihipMemcpy3D_validate` (hip_memory.cpp:2960-3000): NULL, both or neither
/// of array and pointer on a side → 1; a dead array → 1; two arrays of
/// different element sizes → 1; a pitch below `xsize` → 12; a
/// pitch of 2^31 − 1 or more → 1; a row past its pitch → 1; more rows than a
/// slice holds (`ysize`) with more than one slice → 1 (emulator).
fn copy_3d(p: In<'_, hipMemcpy3DParms>, on: On) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "p is NULL".into()));
    }
    copy_3d_parms(p.read()?, on)
}

/// [`copy_3d`] of parameters already read.
fn copy_3d_parms(c: hipMemcpy3DParms, on: On) -> Result<(), Fail> {
    let bad = |m: &str| Err(Fail::plain(HipError::INVALID_VALUE, m.to_owned()));
    let (sa, sp, da, dp) = (c.srcArray.is_null(), c.srcPtr.ptr.is_null(), c.dstArray.is_null(), c.dstPtr.ptr.is_null());
    if sa == sp || da == dp {
        return bad("each side needs exactly one of an array and a pointer");
    }
    // An array side is its memory, pitched; with an array in the copy, the
    // extent's width and the array side's x are in its elements (the two
    // arrays of an array-to-array copy must have one element size).
    let e = emu()?;
    let array = |a: hipArray_t| {
        state(e).mem.array(a as usize).ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{a:p} is not a live array")))
    };
    let (sr, dr) = ((!sa).then(|| array(c.srcArray)).transpose()?, (!da).then(|| array(c.dstArray)).transpose()?);
    if let (Some(a), Some(b)) = (sr, dr) {
        if a.elem != b.elem {
            return bad("the two arrays have different element sizes");
        }
    }
    let elem = sr.or(dr).map_or(1, |a| a.elem);
    let as_ptr = |a: ArrayRec| hipPitchedPtr { ptr: a.mem as *mut c_void, pitch: a.pitch(), xsize: a.pitch(), ysize: a.rows() };
    let in_bytes = |pos: hipPos, a: Option<ArrayRec>| hipPos { x: pos.x.saturating_mul(a.map_or(1, |a| a.elem)), ..pos };
    let (s, d) = (sr.map_or(c.srcPtr, as_ptr), dr.map_or(c.dstPtr, as_ptr));
    let c = hipMemcpy3DParms { srcPos: in_bytes(c.srcPos, sr), dstPos: in_bytes(c.dstPos, dr), ..c };
    let x = hipExtent { width: c.extent.width.saturating_mul(elem), ..c.extent };
    if s.pitch < s.xsize || d.pitch < d.xsize {
        return Err(Fail::plain(HipError::INVALID_PITCH_VALUE, format!("a pitch below its xsize ({s:?}, {d:?})")));
    }
    if s.pitch >= i32::MAX as usize || d.pitch >= i32::MAX as usize {
        return bad("a pitch of 2^31 - 1 or more");
    }
    if x.width.saturating_add(c.dstPos.x) > d.pitch || x.width.saturating_add(c.srcPos.x) > s.pitch {
        return bad("extent.width plus the x position runs past the pitch");
    }
    if x.depth > 1 && (s.ysize < x.height || d.ysize < x.height) {
        return bad("more rows than a slice holds (ysize)");
    }
    let start = |ptr: &hipPitchedPtr, pos: &hipPos| {
        let slice = ptr.pitch.checked_mul(ptr.ysize)?;
        pos.z.checked_mul(slice)?.checked_add(pos.y.checked_mul(ptr.pitch)?)?.checked_add(pos.x)?.checked_add(ptr.ptr as usize)
    };
    let (Some(src), Some(dst)) = (start(&s, &c.srcPos), start(&d, &c.dstPos)) else {
        return bad("a position overflows");
    };
    let (Some(dst_slice), Some(src_slice)) = (d.pitch.checked_mul(d.ysize), s.pitch.checked_mul(s.ysize)) else {
        return bad("a slice (pitch × ysize) overflows");
    };
    let shape = Shape {
        width: x.width,
        height: x.height,
        depth: x.depth,
        dst_pitch: d.pitch,
        dst_slice,
        src_pitch: s.pitch,
        src_slice,
    };
    let (src_ty, dst_ty) = kind_types(c.kind);
    let ty = |pointer: bool, ty| if pointer { ty } else { hipMemoryTypeArray };
    let on = sync_rows_copy_on(e, [(dst, ty(da, dst_ty)), (src, ty(sa, src_ty))], on);
    copy_shape(dst as *mut c_void, src as *const c_void, shape, c.kind, on)
}

/// `hipError_t hipMemcpy3D(const hipMemcpy3DParms *p)`: pitched linear memory.
pub extern "C" fn hipMemcpy3D(p: In<'_, hipMemcpy3DParms>) -> hipError_t {
    run("hipMemcpy3D", || copy_3d(p, On::Sync))
}

/// `hipError_t hipMemcpy3DAsync(const hipMemcpy3DParms *p, hipStream_t stream)`.
pub extern "C" fn hipMemcpy3DAsync(p: In<'_, hipMemcpy3DParms>, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy3DAsync", || copy_3d(p, On::Stream(stream)))
}

/// `hipMemcpy3D` on the calling thread's default stream.
pub extern "C" fn hipMemcpy3D_spt(p: In<'_, hipMemcpy3DParms>) -> hipError_t {
    run("hipMemcpy3D_spt", || copy_3d(p, On::SyncPerThread))
}

/// `hipMemcpy3DAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemcpy3DAsync_spt(p: In<'_, hipMemcpy3DParms>, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy3DAsync_spt", || copy_3d(p, On::Stream(spt(stream))))
}

/// `hipMemcpy3DPeer[Async]` (`@hip_7.1`): NULL → 1; a device out of range
/// → 101 (as hipMemcpyPeer); then the 3-D copy of `p`'s sides, device to
/// device (driver_types.h 7.2.4: a `hipMemcpy3DParms` without the kind, with
/// each side's device).
fn copy_3d_peer(p: In<'_, hipMemcpy3DPeerParms>, on: On) -> Result<(), Fail> {
    if p.is_null() {
        return Err(Fail::plain(HipError::INVALID_VALUE, "p is NULL".into()));
    }
    let c = p.read()?;
    peer_devices(c.dstDevice, c.srcDevice)?;
    let parms = hipMemcpy3DParms {
        srcArray: c.srcArray,
        srcPos: c.srcPos,
        srcPtr: c.srcPtr,
        dstArray: c.dstArray,
        dstPos: c.dstPos,
        dstPtr: c.dstPtr,
        extent: c.extent,
        kind: hipMemcpyDeviceToDevice,
    };
    copy_3d_parms(parms, on)
}

/// `hipError_t hipMemcpy3DPeer(hipMemcpy3DPeerParms *p)`.
pub extern "C" fn hipMemcpy3DPeer(p: In<'_, hipMemcpy3DPeerParms>) -> hipError_t {
    run("hipMemcpy3DPeer", || copy_3d_peer(p, On::Sync))
}

/// `hipError_t hipMemcpy3DPeerAsync(hipMemcpy3DPeerParms *p, hipStream_t stream)`.
pub extern "C" fn hipMemcpy3DPeerAsync(p: In<'_, hipMemcpy3DPeerParms>, stream: hipStream_t) -> hipError_t {
    run("hipMemcpy3DPeerAsync", || copy_3d_peer(p, On::Stream(stream)))
}

/// A 2-D or 3-D fill of bytes: `extent.width` bytes per row, `pitch` apart,
/// `ysize` rows per slice; the whole span must lie in one allocation (clr
/// ihipMemset3D_validate, hip_memory.cpp:3475-3493); a pitch below the width → 1.
fn fill_3d(p: hipPitchedPtr, value: i32, x: hipExtent, on: On) -> Result<(), Fail> {
    fill_elems(p, u64::from(value as u8), 1, x, on)
}

/// [`fill_3d`] in elements of `elem` bytes (1, 2 or 4) of `value`;
/// `x.width` is in bytes.
fn fill_elems(p: hipPitchedPtr, value: u64, elem: u8, x: hipExtent, on: On) -> Result<(), Fail> {
    if x.width == 0 || x.height == 0 || x.depth == 0 {
        return Ok(());
    }
    if p.pitch < x.width || (x.depth > 1 && p.ysize < x.height) {
        return Err(Fail::plain(HipError::INVALID_VALUE, format!("extent {x:?} does not fit pitch {} and ysize {}", p.pitch, p.ysize)));
    }
    let slice = p.pitch.saturating_mul(p.ysize);
    let shape = Shape { width: x.width, height: x.height, depth: x.depth, dst_pitch: p.pitch, dst_slice: slice, src_pitch: p.pitch, src_slice: slice };
    let on = super::memory::sync_fill_on(p.ptr, on, false)?;
    fill_rows(p.ptr, value, elem, shape, on)
}

/// `hipMemsetD2D{8,16,32}[Async]` (`@hip_7.1`): `height` rows of `width`
/// elements of `elem` bytes, `dst_pitch` bytes apart (hip_runtime_api.h
/// 7.2.4, "Fills 2D memory range of 'width' N-bit values"); the row's bytes
/// overflowing → 1; then as hipMemset2D, in elements.
fn fill_d2d(dst: hipDeviceptr_t, dst_pitch: usize, value: u64, elem: u8, width: usize, height: usize, on: On) -> Result<(), Fail> {
    let bytes = width
        .checked_mul(usize::from(elem))
        .ok_or_else(|| Fail::plain(HipError::INVALID_VALUE, format!("{width} elements of {elem} bytes overflow")))?;
    let (p, x) = pitched(dst, dst_pitch, bytes, height);
    fill_elems(p, value, elem, x, on)
}

/// The pitched pointer of a 2-D fill.
fn pitched(dst: *mut c_void, pitch: usize, width: usize, height: usize) -> (hipPitchedPtr, hipExtent) {
    (hipPitchedPtr { ptr: dst, pitch, xsize: width, ysize: height }, hipExtent { width, height, depth: 1 })
}

/// `hipError_t hipMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height)`.
pub extern "C" fn hipMemset2D(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize) -> hipError_t {
    let (p, x) = pitched(dst, pitch, width, height);
    run("hipMemset2D", || fill_3d(p, value, x, On::Sync))
}

/// `hipError_t hipMemset2DAsync(…, hipStream_t stream)`.
pub extern "C" fn hipMemset2DAsync(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize, stream: hipStream_t) -> hipError_t {
    let (p, x) = pitched(dst, pitch, width, height);
    run("hipMemset2DAsync", || fill_3d(p, value, x, On::Stream(stream)))
}

/// `hipMemset2D` on the calling thread's default stream.
pub extern "C" fn hipMemset2D_spt(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize) -> hipError_t {
    let (p, x) = pitched(dst, pitch, width, height);
    run("hipMemset2D_spt", || fill_3d(p, value, x, On::SyncPerThread))
}

/// `hipMemset2DAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemset2DAsync_spt(dst: *mut c_void, pitch: usize, value: i32, width: usize, height: usize, stream: hipStream_t) -> hipError_t {
    let (p, x) = pitched(dst, pitch, width, height);
    run("hipMemset2DAsync_spt", || fill_3d(p, value, x, On::Stream(spt(stream))))
}

/// `hipError_t hipMemset3D(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent)`.
pub extern "C" fn hipMemset3D(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent) -> hipError_t {
    run("hipMemset3D", || fill_3d(pitchedDevPtr, value, extent, On::Sync))
}

/// `hipError_t hipMemset3DAsync(hipPitchedPtr pitchedDevPtr, int value, hipExtent extent, hipStream_t stream)`.
pub extern "C" fn hipMemset3DAsync(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent, stream: hipStream_t) -> hipError_t {
    run("hipMemset3DAsync", || fill_3d(pitchedDevPtr, value, extent, On::Stream(stream)))
}

/// `hipMemset3D` on the calling thread's default stream.
pub extern "C" fn hipMemset3D_spt(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent) -> hipError_t {
    run("hipMemset3D_spt", || fill_3d(pitchedDevPtr, value, extent, On::SyncPerThread))
}

/// `hipMemset3DAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemset3DAsync_spt(pitchedDevPtr: hipPitchedPtr, value: i32, extent: hipExtent, stream: hipStream_t) -> hipError_t {
    run("hipMemset3DAsync_spt", || fill_3d(pitchedDevPtr, value, extent, On::Stream(spt(stream))))
}

/// `hipError_t hipMemsetD2D8(hipDeviceptr_t dst, size_t dstPitch, unsigned char value, size_t width, size_t height)`.
pub extern "C" fn hipMemsetD2D8(dst: hipDeviceptr_t, dstPitch: usize, value: u8, width: usize, height: usize) -> hipError_t {
    run("hipMemsetD2D8", || fill_d2d(dst, dstPitch, u64::from(value), 1, width, height, On::Sync))
}

/// `hipMemsetD2D8` on `stream`.
pub extern "C" fn hipMemsetD2D8Async(dst: hipDeviceptr_t, dstPitch: usize, value: u8, width: usize, height: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetD2D8Async", || fill_d2d(dst, dstPitch, u64::from(value), 1, width, height, On::Stream(stream)))
}

/// `hipError_t hipMemsetD2D16(hipDeviceptr_t dst, size_t dstPitch, unsigned short value, size_t width, size_t height)`.
pub extern "C" fn hipMemsetD2D16(dst: hipDeviceptr_t, dstPitch: usize, value: u16, width: usize, height: usize) -> hipError_t {
    run("hipMemsetD2D16", || fill_d2d(dst, dstPitch, u64::from(value), 2, width, height, On::Sync))
}

/// `hipMemsetD2D16` on `stream`.
pub extern "C" fn hipMemsetD2D16Async(dst: hipDeviceptr_t, dstPitch: usize, value: u16, width: usize, height: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetD2D16Async", || fill_d2d(dst, dstPitch, u64::from(value), 2, width, height, On::Stream(stream)))
}

/// `hipError_t hipMemsetD2D32(hipDeviceptr_t dst, size_t dstPitch, unsigned int value, size_t width, size_t height)`.
pub extern "C" fn hipMemsetD2D32(dst: hipDeviceptr_t, dstPitch: usize, value: u32, width: usize, height: usize) -> hipError_t {
    run("hipMemsetD2D32", || fill_d2d(dst, dstPitch, u64::from(value), 4, width, height, On::Sync))
}

/// `hipMemsetD2D32` on `stream`.
pub extern "C" fn hipMemsetD2D32Async(dst: hipDeviceptr_t, dstPitch: usize, value: u32, width: usize, height: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetD2D32Async", || fill_d2d(dst, dstPitch, u64::from(value), 4, width, height, On::Stream(stream)))
}

/// `hipMemcpy` on the calling thread's default stream.
pub extern "C" fn hipMemcpy_spt(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind) -> hipError_t {
    run("hipMemcpy_spt", || memcpy(dst, src, sizeBytes, kind, On::SyncPerThread))
}

/// `hipMemcpyAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemcpyAsync_spt(dst: *mut c_void, src: *const c_void, sizeBytes: usize, kind: hipMemcpyKind, stream: hipStream_t) -> hipError_t {
    run("hipMemcpyAsync_spt", || memcpy(dst, src, sizeBytes, kind, On::Stream(spt(stream))))
}

/// `hipMemset` on the calling thread's default stream.
pub extern "C" fn hipMemset_spt(dst: *mut c_void, value: i32, sizeBytes: usize) -> hipError_t {
    run("hipMemset_spt", || memset(dst, u64::from(value as u8), 1, sizeBytes, On::SyncPerThread))
}

/// `hipMemsetAsync` with NULL meaning the calling thread's default stream.
pub extern "C" fn hipMemsetAsync_spt(dst: *mut c_void, value: i32, sizeBytes: usize, stream: hipStream_t) -> hipError_t {
    run("hipMemsetAsync_spt", || memset(dst, u64::from(value as u8), 1, sizeBytes, On::Stream(spt(stream))))
}
