//! CUDA-CPY: the host side of a copy.

use std::ffi::c_void;

use crate::cuda::Ctx;
use crate::outcome::Failure;

/// [CUDA-CPY-001](vmmkit_sys::cuda::rules::CPY_001): a host pointer no process can map (0x1000 and 2^60) is
/// refused (1) by cuMemcpyHtoD and cuMemcpyDtoH; the device memory is
/// unchanged and a copy from a real buffer still works.
pub fn unmappable_host_address(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let dev = cx.alloc(64)?;
    let zero = [0u8; 16];
    cx.expect_ok("cuMemcpyHtoD(16 zero bytes)", cuda.cuMemcpyHtoD(dev, zero.as_ptr().cast(), 16))?;
    for bad in [0x1000usize, 1 << 60] {
        let p = bad as *mut c_void;
        cx.expect_code(&format!("cuMemcpyHtoD(srcHost {bad:#x})"), cuda.cuMemcpyHtoD(dev, p.cast_const(), 16))?;
        cx.expect_code(&format!("cuMemcpyDtoH(dstHost {bad:#x})"), cuda.cuMemcpyDtoH(p, dev, 16))?;
    }
    let mut back = [1u8; 16];
    cx.expect_ok("cuMemcpyDtoH(a real buffer)", cuda.cuMemcpyDtoH(back.as_mut_ptr().cast(), dev, 16))?;
    cx.ensure("device bytes after refused copies", back == zero, "all 0", format!("{back:?}"))?;
    cx.free(dev)
}
