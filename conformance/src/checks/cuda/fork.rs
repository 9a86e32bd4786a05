//! CUDA-FORK: a process forked after the parent called cuInit
//! (docs/emulator.md, "Processes forked after initialisation").

use std::os::fd::AsRawFd;

use vmmkit_sys::cuda::*;

use crate::cuda::{Ctx, posix_prop};
use crate::forked::{Call, in_child};
use crate::outcome::Failure;

/// [CUDA-FORK-001](vmmkit_sys::cuda::rules::FORK_001): after the parent made and exported physical memory, a
/// child forked without exec gets the rule's code from cuInit, cuMemCreate,
/// an import of the parent's fd and a cuMemRelease of the parent's handle;
/// the parent still releases it.
pub fn forked_child(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    cx.context(0)?;
    let g = cx.granule()?;
    let h = cx.create(g, &posix_prop())?;
    let fd = cx.export_fd(h)?;
    let cuda = cx.cuda();
    let calls = in_child(|| {
        let mut out: Vec<Call> = Vec::new();
        out.push(("cuInit(0) in the child".into(), cuda.cuInit(0).into()));
        let mut made = 0;
        out.push(("cuMemCreate in the child".into(), cuda.cuMemCreate(&mut made, g, &posix_prop(), 0).into()));
        let os_handle = fd.as_raw_fd() as usize as *mut std::ffi::c_void;
        let r = cuda.cuMemImportFromShareableHandle(&mut made, os_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        out.push(("cuMemImportFromShareableHandle(the parent's fd) in the child".into(), r.into()));
        out.push(("cuMemRelease(the parent's handle) in the child".into(), cuda.cuMemRelease(h).into()));
        out
    })?;
    for (step, code) in calls {
        cx.expect_code(&step, CuResult(code as u32))?;
    }
    cx.release(h)
}
