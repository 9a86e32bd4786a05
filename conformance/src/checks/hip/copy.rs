//! HIP-CPY: what a copy's kind names each pointer.

use std::ffi::c_void;

use vmmkit_sys::hip::*;

use crate::hip::Ctx;
use crate::outcome::Failure;

/// HIP-CPY-001: two host buffers under HostToDevice, DeviceToHost and
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

/// HIP-CPY-002: host-side addresses no process can map (0x1000 and 2^60)
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
