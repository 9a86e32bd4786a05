//! HIP-CPY: what a copy's kind names each pointer.

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use crate::hip::Ctx;
use crate::outcome::Failure;

/// [HIP-CPY-001](vmmkit_sys::hip::rules::CPY_001): two host buffers under HostToDevice, DeviceToHost and
/// DeviceToDevice are refused (1) and left unchanged; Default and
/// HostToHost copy them; HostToDevice into hipMalloc memory copies.
pub fn kind_names_device(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let dev = cx.malloc(64)?;
    let src = [5u8; 16];
    let mut dst = [0u8; 16];
    let (d, s): (*mut c_void, *const c_void) = (dst.as_mut_ptr().cast(), src.as_ptr().cast());
    for (kind, name) in [
        (hipMemcpyHostToDevice, "HostToDevice"),
        (hipMemcpyDeviceToHost, "DeviceToHost"),
        (hipMemcpyDeviceToDevice, "DeviceToDevice"),
    ] {
        cx.expect_code(&format!("hipMemcpy(host buffers, {name})"), hip.hipMemcpy(d, s, 16, kind))?;
    }
    cx.ensure("host buffer after refused copies", dst == [0; 16], "all 0", format!("{dst:?}"))?;
    cx.expect_code("hipMemcpyHtoD(host buffer as dst)", hip.hipMemcpyHtoD(d, s.cast_mut(), 16))?;
    cx.expect_ok("hipMemcpy(host buffers, Default)", hip.hipMemcpy(d, s, 16, hipMemcpyDefault))?;
    cx.ensure("host buffer after a Default copy", dst == src, format!("{src:?}"), format!("{dst:?}"))?;
    cx.expect_ok("hipMemcpy(into hipMalloc memory, HostToDevice)", hip.hipMemcpy(dev, s, 16, hipMemcpyHostToDevice))?;
    let mut back = [0u8; 16];
    let r = hip.hipMemcpy(back.as_mut_ptr().cast(), dev, 16, hipMemcpyDeviceToHost);
    cx.expect_ok("hipMemcpy(from hipMalloc memory, DeviceToHost)", r)?;
    cx.ensure("bytes read back", back == src, format!("{src:?}"), format!("{back:?}"))?;
    cx.free(dev)
}

/// [HIP-CPY-002](vmmkit_sys::hip::rules::CPY_002): host-side addresses no process can map (0x1000 and 2^60)
/// are refused (1) by hipMemcpy of kinds HostToHost and Default.
pub fn unmappable_host_address(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut buf = [0u8; 16];
    let b: *mut c_void = buf.as_mut_ptr().cast();
    for bad in [0x1000usize, 1 << 60] {
        let p = bad as *mut c_void;
        cx.expect_code(&format!("hipMemcpy(src {bad:#x}, HostToHost)"), hip.hipMemcpy(b, p, 16, hipMemcpyHostToHost))?;
        cx.expect_code(&format!("hipMemcpy(dst {bad:#x}, Default)"), hip.hipMemcpy(p, b, 16, hipMemcpyDefault))?;
    }
    cx.ensure("host buffer after refused copies", buf == [0; 16], "all 0", format!("{buf:?}"))
}

/// [HIP-CPY-003](vmmkit_sys::hip::rules::CPY_003) (hip-tests `Unit_hipDrvMemcpy2DUnaligned_FuncTst`, `_NegTst`):
/// hipDrvMemcpy2DUnaligned answers each descriptor as hipMemcpyParam2D does
/// (a 4 × 3 rectangle between device buffers, a NULL source, rows past the
/// source), a row that starts at the source's end is refused, and the rectangle it
/// copies lands.
pub fn unaligned_2d_is_param_2d(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let (src, dst) = (cx.malloc(64)?, cx.malloc(64)?);
    let bytes: Vec<u8> = (0..64).collect();
    let r = hip.hipMemcpy(src, bytes.as_ptr().cast(), 64, hipMemcpyHostToDevice);
    crate::hip::setup("hipMemcpy(fill the source)", r)?;
    let rect = hip_Memcpy2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: hipMemoryTypeDevice,
        srcHost: std::ptr::null(),
        srcDevice: src,
        srcArray: std::ptr::null_mut(),
        srcPitch: 16,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: hipMemoryTypeDevice,
        dstHost: std::ptr::null_mut(),
        dstDevice: dst,
        dstArray: std::ptr::null_mut(),
        dstPitch: 16,
        WidthInBytes: 4,
        Height: 3,
    };
    let cases = [
        ("a 4 × 3 rectangle", rect),
        ("a NULL source", hip_Memcpy2D { srcDevice: std::ptr::null_mut(), ..rect }),
        ("rows past the source", hip_Memcpy2D { srcY: 4, Height: 1, ..rect }),
    ];
    for (what, c) in cases {
        let param = hip.hipMemcpyParam2D(&c);
        let unaligned = hip.hipDrvMemcpy2DUnaligned(&c);
        let unaligned =
            unaligned.ok_or_else(|| Failure::NotSupported("the library has no hipDrvMemcpy2DUnaligned".into()))?;
        cx.ensure(
            &format!("hipDrvMemcpy2DUnaligned({what}), as hipMemcpyParam2D"),
            param == unaligned,
            param,
            unaligned,
        )?;
    }
    let past = hip_Memcpy2D { srcY: 4, Height: 1, ..rect };
    let r = hip.hipDrvMemcpy2DUnaligned(&past).unwrap_or(HipError::NOT_SUPPORTED.0);
    cx.ensure("hipDrvMemcpy2DUnaligned(a row from the source's end) is refused", r != 0, "an error", HipError(r))?;
    let zero = [0u8; 64];
    crate::hip::setup(
        "hipMemcpy(clear the destination)",
        hip.hipMemcpy(dst, zero.as_ptr().cast(), 64, hipMemcpyHostToDevice),
    )?;
    cx.expect_ok(
        "hipDrvMemcpy2DUnaligned(a 4 × 3 rectangle)",
        hip.hipDrvMemcpy2DUnaligned(&rect).unwrap_or(HipError::NOT_SUPPORTED.0),
    )?;
    let mut back = [0u8; 64];
    crate::hip::setup("hipMemcpy(read back)", hip.hipMemcpy(back.as_mut_ptr().cast(), dst, 64, hipMemcpyDeviceToHost))?;
    let want: Vec<u8> = (0..64).map(|i: u8| if i % 16 < 4 && i < 48 { i } else { 0 }).collect();
    cx.ensure("the rectangle copied", want == back, format!("{want:?}"), format!("{back:?}"))?;
    cx.free(src)?;
    cx.free(dst)
}

/// The blocking stream the copies are made beside, for messages.
const BLOCKING: &str = "the held blocking stream";

/// [HIP-CPY-004](vmmkit_sys::hip::rules::CPY_004) (hip-tests `Unit_hipPointerSetAttribute_Positive_SyncMemops`,
/// `Unit_hipMemcpyPeer_Positive_Synchronization_Behavior`): with a blocking
/// stream held, hipMemcpy between two hipMalloc allocations returns with
/// the stream still held (its query 600) and the bytes land once it is let
/// go; hipMemcpy into host memory waits for it (the query then 0). So does
/// hipMemcpy_spt with the calling thread's default stream held.
pub fn device_copy_does_not_wait(cx: &mut Ctx) -> Result<(), Failure> {
    use super::stream::{HeldCall, calls_while_held, destroy, per_thread_calls_while_held, stream};
    cx.device(0)?;
    let hip = cx.hip();
    let (a, b) = (cx.malloc(256)?, cx.malloc(256)?);
    crate::hip::setup("hipMemset", hip.hipMemset(a, 0x6e, 256))?;
    crate::hip::setup("hipDeviceSynchronize", hip.hipDeviceSynchronize())?;
    let s = stream(cx, hipStreamDefault)?;
    let mut back = [0u8; 256];
    let out: *mut c_void = back.as_mut_ptr().cast();
    let copies: [HeldCall<'_>; 2] = [
        ("hipMemcpy(device to device)", &|| hip.hipMemcpy(b, a, 256, hipMemcpyDeviceToDevice), true),
        ("hipMemcpy(device to host)", &|| hip.hipMemcpy(out, b, 256, hipMemcpyDeviceToHost), false),
    ];
    calls_while_held(cx, (s, BLOCKING), &copies)?;
    cx.ensure("the device copy landed", back == [0x6e; 256], "0x6e × 256", format!("{:#x}…", back[0]))?;
    let absent = HipError::NOT_SUPPORTED.0;
    let c = cx.malloc(256)?;
    let spt: [HeldCall<'_>; 2] = [
        (
            "hipMemcpy_spt(device to device)",
            &|| hip.hipMemcpy_spt(c, a, 256, hipMemcpyDeviceToDevice).unwrap_or(absent),
            true,
        ),
        (
            "hipMemcpy_spt(device to host)",
            &|| hip.hipMemcpy_spt(out, c, 256, hipMemcpyDeviceToHost).unwrap_or(absent),
            false,
        ),
    ];
    back.fill(0);
    if per_thread_calls_while_held(cx, "hipMemcpy_spt", &spt)? {
        cx.ensure("the _spt copies landed", back == [0x6e; 256], "0x6e × 256", format!("{:#x}…", back[0]))?;
    }
    cx.free(c)?;
    destroy(cx, s)?;
    cx.free(a)?;
    cx.free(b)
}

/// [HIP-CPY-005](vmmkit_sys::hip::rules::CPY_005) (hip-tests `Unit_hipMemcpyParam2D_Positive_Synchronization_Behavior`):
/// with a blocking stream held, a 2-D copy between two hipMalloc
/// allocations returns with the stream still held (its query 600), typed
/// device by its kind (hipMemcpy2D, hipMemcpyDeviceToDevice) or unified in
/// its descriptor (hipMemcpyParam2D), and the rows land once the stream is
/// let go; a 2-D copy into host memory waits for it (the query then 0).
/// So does hipMemcpy2D_spt with the calling thread's default stream held.
pub fn rows_copy_between_device_memory_does_not_wait(cx: &mut Ctx) -> Result<(), Failure> {
    use super::stream::{HeldCall, calls_while_held, destroy, per_thread_calls_while_held, stream};
    cx.device(0)?;
    let hip = cx.hip();
    let (a, b, c) = (cx.malloc(256)?, cx.malloc(256)?, cx.malloc(256)?);
    crate::hip::setup("hipMemset", hip.hipMemset(a, 0x5a, 256))?;
    crate::hip::setup("hipDeviceSynchronize", hip.hipDeviceSynchronize())?;
    let s = stream(cx, hipStreamDefault)?;
    let mut back = [0u8; 256];
    let out: *mut c_void = back.as_mut_ptr().cast();
    // Both sides unified: each pointer's memory decides (device memory here).
    let param = hip_Memcpy2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: hipMemoryTypeUnified,
        srcHost: std::ptr::null(),
        srcDevice: a,
        srcArray: std::ptr::null_mut(),
        srcPitch: 64,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: hipMemoryTypeUnified,
        dstHost: std::ptr::null_mut(),
        dstDevice: c,
        dstArray: std::ptr::null_mut(),
        dstPitch: 64,
        WidthInBytes: 64,
        Height: 4,
    };
    let copies: [HeldCall<'_>; 3] = [
        (
            "hipMemcpy2D(device to device, 4 rows)",
            &|| hip.hipMemcpy2D(b, 64, a, 64, 64, 4, hipMemcpyDeviceToDevice),
            true,
        ),
        ("hipMemcpyParam2D(unified to unified, both hipMalloc memory)", &|| hip.hipMemcpyParam2D(&param), true),
        ("hipMemcpy2D(device to host)", &|| hip.hipMemcpy2D(out, 64, b, 64, 64, 4, hipMemcpyDeviceToHost), false),
    ];
    calls_while_held(cx, (s, BLOCKING), &copies)?;
    cx.ensure("the device rows landed", back == [0x5a; 256], "0x5a × 256", format!("{:#x}…", back[0]))?;
    crate::hip::setup("hipMemcpy(read the unified copy back)", hip.hipMemcpy(out, c, 256, hipMemcpyDeviceToHost))?;
    cx.ensure("the unified rows landed", back == [0x5a; 256], "0x5a × 256", format!("{:#x}…", back[0]))?;
    let absent = HipError::NOT_SUPPORTED.0;
    let d = cx.malloc(256)?;
    let spt: [HeldCall<'_>; 2] = [
        (
            "hipMemcpy2D_spt(device to device, 4 rows)",
            &|| hip.hipMemcpy2D_spt(d, 64, a, 64, 64, 4, hipMemcpyDeviceToDevice).unwrap_or(absent),
            true,
        ),
        (
            "hipMemcpy2D_spt(device to host)",
            &|| hip.hipMemcpy2D_spt(out, 64, d, 64, 64, 4, hipMemcpyDeviceToHost).unwrap_or(absent),
            false,
        ),
    ];
    back.fill(0);
    if per_thread_calls_while_held(cx, "hipMemcpy2D_spt", &spt)? {
        cx.ensure("the _spt rows landed", back == [0x5a; 256], "0x5a × 256", format!("{:#x}…", back[0]))?;
    }
    cx.free(d)?;
    destroy(cx, s)?;
    cx.free(a)?;
    cx.free(b)?;
    cx.free(c)
}
