//! ACL-GRAN: `aclrtMemGetAllocationGranularity`.

use std::ptr;

use vmmkit_sys::acl::*;

use crate::acl::{Ctx, GIB, TWO_MIB, prop, prop_with};
use crate::outcome::Failure;

/// Attributes accepted with a DEVICE location that are not 1G.
const DEVICE_ATTRS: &[aclrtMemAttr] =
    &[ACL_HBM_MEM_HUGE, ACL_HBM_MEM_NORMAL, ACL_MEM_NORMAL, ACL_MEM_HUGE, ACL_MEM_P2P_NORMAL, ACL_MEM_P2P_HUGE];
/// DDR attributes: host only.
const DDR_ATTRS: &[aclrtMemAttr] =
    &[ACL_DDR_MEM_HUGE, ACL_DDR_MEM_NORMAL, ACL_DDR_MEM_P2P_HUGE, ACL_DDR_MEM_P2P_NORMAL];
/// Attributes never accepted, and values outside the enum.
const BAD_ATTRS: &[aclrtMemAttr] = &[
    ACL_DDR_MEM,
    ACL_HBM_MEM,
    ACL_HBM_MEM_P2P_HUGE,
    ACL_HBM_MEM_P2P_NORMAL,
    ACL_HBM_MEM_P2P_HUGE1G,
    18,
    -1,
    0x7fff_ffff,
];

/// The granularity of `p` for `option`, and the code.
fn query(cx: &Ctx, mut p: aclrtPhysicalMemProp, option: aclrtMemGranularityOptions) -> (AclError, usize) {
    let mut g = 0usize;
    let r = cx.acl().aclrtMemGetAllocationGranularity(&mut p, option, &mut g);
    (r, g)
}

const MIN: aclrtMemGranularityOptions = ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM;
const REC: aclrtMemGranularityOptions = ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED;

/// [ACL-GRAN-001](vmmkit_sys::acl::rules::GRAN_001): NULL `prop`, then NULL `granularity`.
pub fn null_pointers(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let acl = cx.acl();
    let mut g = 0usize;
    cx.expect_code("granularity with prop NULL", acl.aclrtMemGetAllocationGranularity(ptr::null_mut(), MIN, &mut g))?;
    let mut p = prop(0);
    cx.expect_code("granularity with out NULL", acl.aclrtMemGetAllocationGranularity(&mut p, MIN, ptr::null_mut()))
}

/// [ACL-GRAN-002](vmmkit_sys::acl::rules::GRAN_002): each DDR attribute at DEVICE 0.
pub fn ddr_on_device(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for &attr in DDR_ATTRS {
        let p = prop_with(attr, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
        cx.expect_code(&format!("granularity of attr {attr} at DEVICE 0"), query(cx, p, MIN).0)?;
    }
    Ok(())
}

/// [ACL-GRAN-003](vmmkit_sys::acl::rules::GRAN_003): attributes 0, 1, 8, 9, 11 and out-of-range values.
pub fn unknown_attr(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for &attr in BAD_ATTRS {
        let p = prop_with(attr, ACL_MEM_LOCATION_TYPE_DEVICE, 0);
        cx.expect_code(&format!("granularity of attr {attr}"), query(cx, p, MIN).0)?;
    }
    Ok(())
}

/// [ACL-GRAN-004](vmmkit_sys::acl::rules::GRAN_004): DEVICE location id equal to the device count.
pub fn bad_device(cx: &mut Ctx) -> Result<(), Failure> {
    let n = cx.device_count()?;
    cx.device(0)?;
    cx.expect_code(&format!("granularity at DEVICE {n} of {n}"), query(cx, prop(n), MIN).0)
}

/// [ACL-GRAN-005](vmmkit_sys::acl::rules::GRAN_005): option UNDEF and 2; RECOMMENDED still works.
pub fn bad_option(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    cx.expect_code("granularity with option UNDEF (0xFFFF)", query(cx, prop(0), ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF).0)?;
    cx.expect_code("granularity with option 2", query(cx, prop(0), 2).0)?;
    // The driver checks the option before the property record.
    let p = aclrtPhysicalMemProp { reserve: 1, ..prop(0) };
    cx.expect_code("granularity with option 2 and reserve 1", query(cx, p, 2).0)?;
    cx.expect_ok("granularity with option RECOMMENDED", query(cx, prop(0), REC).0)
}

/// [ACL-GRAN-006](vmmkit_sys::acl::rules::GRAN_006): location types MANAGED and 5.
pub fn bad_location_type(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for kind in [ACL_MEM_LOCATION_TYPE_MANAGED, 5] {
        let p = prop_with(ACL_HBM_MEM_HUGE, kind, 0);
        cx.expect_code(&format!("granularity at location type {kind}"), query(cx, p, MIN).0)?;
    }
    Ok(())
}

/// [ACL-GRAN-007](vmmkit_sys::acl::rules::GRAN_007): `prop.reserve` = 1.
pub fn reserve_nonzero(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let p = aclrtPhysicalMemProp { reserve: 1, ..prop(0) };
    cx.expect_code("granularity with reserve 1", query(cx, p, MIN).0)
}

/// [ACL-GRAN-008](vmmkit_sys::acl::rules::GRAN_008): 1G attributes 10 and 14 at HOST 0 are refused whatever
/// the device; attribute 10 on device 0 is refused when the device has no
/// giant pages.
pub fn giant_pages(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for attr in [ACL_HBM_MEM_HUGE1G, ACL_MEM_HUGE1G] {
        let p = prop_with(attr, ACL_MEM_LOCATION_TYPE_HOST, 0);
        cx.expect_code(&format!("granularity of 1G attr {attr} at HOST 0"), query(cx, p, MIN).0)?;
    }
    let (r, g) = query(cx, prop_with(ACL_HBM_MEM_HUGE1G, ACL_MEM_LOCATION_TYPE_DEVICE, 0), MIN);
    if r.is_success() {
        cx.note(format!("device 0 has giant pages (attr 10 granularity {g}); only the host cases apply"));
        Ok(())
    } else {
        cx.expect_code("granularity of attr 10 at DEVICE 0 (no giant pages)", r)
    }
}

/// [ACL-GRAN-009](vmmkit_sys::acl::rules::GRAN_009): 2 MiB for every accepted non-1G attribute on device and
/// host, with both options; 1 GiB for the 1G attributes a device supports.
pub fn values(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let cases = DEVICE_ATTRS.iter().map(|&a| (a, ACL_MEM_LOCATION_TYPE_DEVICE)).chain(
        DDR_ATTRS.iter().chain([ACL_HBM_MEM_HUGE, ACL_HBM_MEM_NORMAL].iter()).map(|&a| (a, ACL_MEM_LOCATION_TYPE_HOST)),
    );
    for (attr, kind) in cases {
        for option in [MIN, REC] {
            let step = format!("granularity of attr {attr} at location type {kind}, option {option}");
            let (r, g) = query(cx, prop_with(attr, kind, 0), option);
            cx.expect_code(&step, r)?;
            cx.ensure(&step, g == TWO_MIB, TWO_MIB, g)?;
        }
    }
    for attr in [ACL_HBM_MEM_HUGE1G, ACL_MEM_HUGE1G, ACL_MEM_P2P_HUGE1G] {
        let step = format!("granularity of 1G attr {attr} at DEVICE 0");
        match query(cx, prop_with(attr, ACL_MEM_LOCATION_TYPE_DEVICE, 0), MIN) {
            (r, g) if r.is_success() => cx.ensure(&step, g == GIB, GIB, g)?,
            (r, _) if r == AclError::RT_FEATURE_NOT_SUPPORT => {
                cx.note(format!("attr {attr}: no giant pages on device 0 (207000)"));
            }
            (r, _) => return cx.ensure(&step, false, "0 with 1 GiB, or 207000 without giant pages", r),
        }
    }
    Ok(())
}

/// [ACL-GRAN-010](vmmkit_sys::acl::rules::GRAN_010): HBM attributes at HOST 0.
pub fn hbm_on_host(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    for attr in [ACL_HBM_MEM_HUGE, ACL_HBM_MEM_NORMAL] {
        let step = format!("granularity of HBM attr {attr} at HOST 0");
        let (r, g) = query(cx, prop_with(attr, ACL_MEM_LOCATION_TYPE_HOST, 0), MIN);
        cx.expect_code(&step, r)?;
        cx.ensure(&step, g == TWO_MIB, TWO_MIB, g)?;
    }
    Ok(())
}
