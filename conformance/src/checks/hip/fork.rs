//! HIP-FORK: a process forked after the parent initialised HIP
//! (docs/emulator.md, "Processes forked after initialisation").

use std::ptr;

use vmmkit_sys::hip::*;

use crate::forked::{Call, in_child};
use crate::hip::{Ctx, posix_prop};
use crate::outcome::Failure;

/// [HIP-FORK-001](vmmkit_sys::hip::rules::FORK_001): after the parent made physical memory, a child forked
/// without exec gets the rule's code from hipMalloc, hipMemCreate and a
/// hipMemRelease of the parent's handle; the parent still releases it.
pub fn forked_child(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(g, &posix_prop())?;
    let hip = cx.hip();
    let calls = in_child(|| {
        let mut out: Vec<Call> = Vec::new();
        let mut p = ptr::null_mut();
        out.push(("hipMalloc(4096) in the child".into(), hip.hipMalloc(&mut p, 4096).into()));
        let mut made = ptr::null_mut();
        out.push(("hipMemCreate in the child".into(), hip.hipMemCreate(&mut made, g, &posix_prop(), 0).into()));
        out.push(("hipMemRelease(the parent's handle) in the child".into(), hip.hipMemRelease(h).into()));
        out
    })?;
    for (step, code) in calls {
        cx.expect_code(&step, HipError(code as i32))?;
    }
    cx.expect_ok("hipMemRelease in the parent after the child", hip.hipMemRelease(h))
}
