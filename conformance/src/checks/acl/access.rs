//! ACL-ACC: `aclrtMemSetAccess`, `aclrtMemGetAccess`.

use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, MIB, TWO_MIB, Va, rw_desc};
use crate::outcome::Failure;

fn desc(flags: aclrtMemAccessFlags, type_: aclrtMemLocationType, id: u32) -> aclrtMemAccessDesc {
    aclrtMemAccessDesc { flags, location: aclrtMemLocation { id, type_ }, rsv: [0; 12] }
}

/// `aclrtMemSetAccess(va, size, [d])`.
fn set(cx: &Ctx, va: Va, size: usize, mut d: aclrtMemAccessDesc) -> AclError {
    cx.acl().aclrtMemSetAccess(va, size, &mut d, 1)
}

/// [ACL-ACC-001](vmmkit_sys::acl::rules::ACC_001): NULL `virPtr`, then NULL `desc`.
pub fn null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let mut d = rw_desc(0);
    cx.expect_code("aclrtMemSetAccess(virPtr NULL)", acl.aclrtMemSetAccess(ptr::null_mut(), m.size, &mut d, 1))?;
    cx.expect_code("aclrtMemSetAccess(desc NULL)", acl.aclrtMemSetAccess(m.va, m.size, ptr::null_mut(), 1))
}

/// [ACL-ACC-002](vmmkit_sys::acl::rules::ACC_002): count 0.
pub fn zero_count(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let mut d = rw_desc(0);
    cx.expect_code("aclrtMemSetAccess(count 0)", cx.acl().aclrtMemSetAccess(m.va, m.size, &mut d, 0))?;
    cx.expect_ok("state unchanged: count 1", set(cx, m.va, m.size, rw_desc(0)))
}

/// [ACL-ACC-003](vmmkit_sys::acl::rules::ACC_003): NONE and READ (207000), 2 and 7 (107000); READWRITE works.
pub fn flags(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    for f in [ACL_RT_MEM_ACCESS_FLAGS_NONE, ACL_RT_MEM_ACCESS_FLAGS_READ] {
        let d = desc(f, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
        cx.expect(
            &format!("aclrtMemSetAccess(flags {f})"),
            AclError::RT_FEATURE_NOT_SUPPORT,
            set(cx, m.va, m.size, d),
        )?;
    }
    for f in [2, 7] {
        let d = desc(f, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
        cx.expect(&format!("aclrtMemSetAccess(flags {f})"), AclError::RT_PARAM_INVALID, set(cx, m.va, m.size, d))?;
    }
    cx.expect_ok("aclrtMemSetAccess(READWRITE)", set(cx, m.va, m.size, rw_desc(0)))
}

/// [ACL-ACC-004](vmmkit_sys::acl::rules::ACC_004): HOST 1, DEVICE 64, MANAGED and type 5.
pub fn location(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let rw = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    for (kind, id) in [
        (ACL_MEM_LOCATION_TYPE_HOST, 1),
        (ACL_MEM_LOCATION_TYPE_DEVICE, 64),
        (ACL_MEM_LOCATION_TYPE_MANAGED, 0),
        (5, 0),
    ] {
        cx.expect_code(
            &format!("aclrtMemSetAccess(location type {kind} id {id})"),
            set(cx, m.va, m.size, desc(rw, kind, id)),
        )?;
    }
    cx.expect_ok("state unchanged: DEVICE 0", set(cx, m.va, m.size, rw_desc(0)))
}

/// [ACL-ACC-005](vmmkit_sys::acl::rules::ACC_005): a reserved but unmapped range, and a range running past the
/// mapping.
pub fn unmapped_range(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let empty = cx.reserve(TWO_MIB)?;
    cx.expect_code("aclrtMemSetAccess on a reserved, unmapped range", set(cx, empty, TWO_MIB, rw_desc(0)))?;
    let va = cx.reserve(4 * MIB)?;
    let h = cx.malloc(TWO_MIB)?;
    cx.map(va, TWO_MIB, h)?;
    cx.expect_code("aclrtMemSetAccess of 4 MiB over a 2 MiB mapping", set(cx, va, 4 * MIB, rw_desc(0)))?;
    cx.expect_ok("state unchanged: the mapped 2 MiB", set(cx, va, TWO_MIB, rw_desc(0)))
}

/// [ACL-ACC-006](vmmkit_sys::acl::rules::ACC_006): READWRITE for the owning device succeeds and changes nothing.
pub fn owner_device(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    cx.write(m.va, m.size, 6)?;
    cx.expect_code("aclrtMemSetAccess(READWRITE, owner device 0)", set(cx, m.va, m.size, rw_desc(0)))?;
    cx.verify("data after the grant", m.va, m.size, 6)?;
    cx.write(m.va, m.size, 7)?;
    cx.verify("a write after the grant", m.va, m.size, 7)
}

/// [ACL-ACC-007](vmmkit_sys::acl::rules::ACC_007): a grant to device 1 repeated (0), then for another size (507899).
pub fn repeat_grant(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(4 * MIB)?;
    cx.expect_ok("aclrtMemSetAccess(READWRITE, device 1)", set(cx, m.va, m.size, rw_desc(1)))?;
    cx.expect_ok("the identical grant again", set(cx, m.va, m.size, rw_desc(1)))?;
    cx.expect(
        "a grant to device 1 over 2 MiB of the 4 MiB",
        AclError::RT_DRV_INTERNAL_ERROR,
        set(cx, m.va, TWO_MIB, rw_desc(1)),
    )
}

/// [ACL-ACC-008](vmmkit_sys::acl::rules::ACC_008): two proper 24-byte descriptors; the code and the access
/// device 1 then has are recorded.
pub fn several_descriptors(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let mut ds = [rw_desc(0), rw_desc(1)];
    let r = acl.aclrtMemSetAccess(m.va, m.size, ds.as_mut_ptr(), 2);
    let mut loc = aclrtMemLocation { id: 1, type_: ACL_MEM_LOCATION_TYPE_DEVICE };
    let mut flag = 0u64;
    let g = acl.aclrtMemGetAccess(m.va, &mut loc, &mut flag);
    cx.note(format!("aclrtMemSetAccess(count 2) returned {r}; device 1's access: {g}, flags {flag}"));
    Ok(())
}

/// [ACL-ACC-009](vmmkit_sys::acl::rules::ACC_009): each NULL pointer of `aclrtMemGetAccess`.
pub fn get_null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let mut loc = aclrtMemLocation { id: 0, type_: ACL_MEM_LOCATION_TYPE_DEVICE };
    let mut flag = 0u64;
    cx.expect_code("aclrtMemGetAccess(virPtr NULL)", acl.aclrtMemGetAccess(ptr::null_mut(), &mut loc, &mut flag))?;
    cx.expect_code("aclrtMemGetAccess(location NULL)", acl.aclrtMemGetAccess(m.va, ptr::null_mut(), &mut flag))?;
    cx.expect_code("aclrtMemGetAccess(flag NULL)", acl.aclrtMemGetAccess(m.va, &mut loc, ptr::null_mut()))
}

/// [ACL-ACC-010](vmmkit_sys::acl::rules::ACC_010): the owner device has READWRITE; an unmapped VA is refused.
pub fn get_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let m = cx.alloc_mapped(TWO_MIB)?;
    let acl = cx.acl();
    let mut loc = aclrtMemLocation { id: 0, type_: ACL_MEM_LOCATION_TYPE_DEVICE };
    let mut flag = 0u64;
    cx.expect_ok("aclrtMemGetAccess(owner device 0)", acl.aclrtMemGetAccess(m.va, &mut loc, &mut flag))?;
    cx.ensure("access flags of the owner device", flag == 3, "3 (READWRITE)", flag)?;
    let empty = cx.reserve(TWO_MIB)?;
    cx.expect(
        "aclrtMemGetAccess on a reserved, unmapped VA",
        AclError::RT_DRV_INTERNAL_ERROR,
        acl.aclrtMemGetAccess(empty, &mut loc, &mut flag),
    )
}
