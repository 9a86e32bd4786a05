//! EX-FORK: a process forked after the parent called exInit (feature
//! `example-vendor`; docs/emulator.md, "Processes forked after initialisation").

use vmmkit_sys::example::*;

use crate::example::Ctx;
use crate::forked::{Call, in_child};
use crate::outcome::Failure;

/// EX-FORK-001: after the parent allocated, a child forked without exec
/// gets the rule's code from exInit, exMemAlloc and an exMemFree of the
/// parent's pointer; the parent still frees it.
pub fn forked_child(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let p = cx.alloc(EX_MEM_GRANULE)?;
    let ex = cx.example();
    let calls = in_child(|| {
        let mut out: Vec<Call> = Vec::new();
        out.push(("exInit(0) in the child".into(), ex.exInit(0).into()));
        let mut q = std::ptr::null_mut();
        out.push(("exMemAlloc in the child".into(), ex.exMemAlloc(&mut q, EX_MEM_GRANULE).into()));
        out.push(("exMemFree(the parent's pointer) in the child".into(), ex.exMemFree(p).into()));
        out
    })?;
    for (step, code) in calls {
        cx.expect_code(&step, ExResult(code as i32))?;
    }
    cx.free(p)
}
