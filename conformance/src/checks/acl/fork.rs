//! ACL-FORK: a process forked after the parent initialised ACL
//! (docs/emulator.md, "Processes forked after initialisation").

use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, Handle, prop};
use crate::forked::{Call, in_child};
use crate::outcome::Failure;

/// [ACL-FORK-001](vmmkit_sys::acl::rules::FORK_001): after the parent allocated and exported with the
/// trustlist on, a child forked without exec gets the rule's code from an
/// import of the parent's handle, an allocation and a free of the parent's
/// handle; the parent's handle is still its own to free afterwards.
pub fn forked_child(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    cx.device(0)?;
    let g = cx.granule()?;
    let h = cx.malloc(g)?;
    let key = cx.export(h, ACL_RT_VMM_EXPORT_FLAG_DEFAULT)?;
    let acl = cx.acl();
    let calls = in_child(|| {
        let mut out: Vec<Call> = Vec::new();
        let mut got: Handle = ptr::null_mut();
        let r = acl.aclrtMemImportFromShareableHandle(key, 0, &mut got);
        out.push(("aclrtMemImportFromShareableHandle(the parent's export) in the child".into(), r.0.into()));
        let r = acl.aclrtMallocPhysical(&mut got, g, &prop(0), 0);
        out.push(("aclrtMallocPhysical in the child".into(), r.0.into()));
        let r = acl.aclrtFreePhysical(h);
        out.push(("aclrtFreePhysical(the parent's handle) in the child".into(), r.0.into()));
        out
    })?;
    for (step, code) in calls {
        cx.expect_code(&step, AclError(code as i32))?;
    }
    cx.expect_ok("aclrtFreePhysical in the parent after the child", acl.aclrtFreePhysical(h))
}
