//! Rules broken on purpose return the reference's code and leave state
//! unchanged; bad input through the C ABI gets a code, never a crash.
//! (The conformance suite checks every rule; these are the emulator's own
//! regression tests for bad input.)

// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use common::{acl, expect, isolated, prop};
use vmmkit_sys::acl::*;

const G: usize = 2 << 20;

fn used_mb(api: &AclApi) -> usize {
    let (mut free, mut total) = (0, 0);
    ok!(api, aclrtGetMemInfo(ACL_HBM_MEM, &mut free, &mut total));
    (total - free) >> 20
}

#[test]
fn violations_return_reference_codes_and_leave_state_unchanged() {
    isolated(
        "violations_return_reference_codes_and_leave_state_unchanged",
        &[("VMMKIT_DEVICE_MEMORY", "8M"), ("VMMKIT_DEVICES", "8")],
        |_| {
            let api = acl();
            // ACL-GEN-004 / ACL-GEN-005 before any device: no current device (107002).
            let mut d = 0;
            expect(call!(api, aclrtGetDevice(&mut d)), AclError::RT_CONTEXT_NULL, "GetDevice without SetDevice");
            let mut s = null_mut();
            expect(call!(api, aclrtCreateStream(&mut s)), AclError::RT_CONTEXT_NULL, "CreateStream without device");
            // ACL-GEN-003: bad device (107001).
            expect(call!(api, aclrtSetDevice(64)), AclError::RT_INVALID_DEVICEID, "SetDevice(64)");
            expect(call!(api, aclrtSetDevice(-1)), AclError::RT_INVALID_DEVICEID, "SetDevice(-1)");
            ok!(api, aclInit(null()));
            expect(call!(api, aclInit(null())), AclError::REPEAT_INITIALIZE, "second aclInit");
            ok!(api, aclrtSetDevice(0));

            // ACL-MP-013: size not a multiple of 2 MiB (507899); nothing allocated.
            let mut h = null_mut();
            expect(
                call!(api, aclrtMallocPhysical(&mut h, G + 4096, &prop(0), 0)),
                AclError::RT_DRV_INTERNAL_ERROR,
                "unaligned size",
            );
            assert!(h.is_null());
            expect(call!(api, aclrtMallocPhysical(&mut h, G, &prop(0), 1)), AclError::INVALID_PARAM, "flags 1");
            expect(call!(api, aclrtMallocPhysical(&mut h, G, &prop(9), 0)), AclError::RT_INVALID_DEVICEID, "device 9");
            assert_eq!(used_mb(&api), 0, "failed allocations use no capacity");
            // ACL-MP-015: out of capacity (8 MiB device) → 207001, no partial state.
            ok!(api, aclrtMallocPhysical(&mut h, 6 << 20, &prop(0), 0));
            let mut h2 = null_mut();
            expect(
                call!(api, aclrtMallocPhysical(&mut h2, 4 << 20, &prop(0), 0)),
                AclError::RT_MEMORY_ALLOCATION,
                "OOM",
            );
            assert_eq!(used_mb(&api), 6);
            ok!(api, aclrtFreePhysical(h));
            ok!(api, aclrtMallocPhysical(&mut h, G, &prop(0), 0));

            let mut va = null_mut();
            // ACL-RSV-004: alignment ≠ 0 (107000); ACL-RSV-003 flags 2 (100000).
            expect(
                call!(api, aclrtReserveMemAddress(&mut va, G, G, null_mut(), 0)),
                AclError::RT_PARAM_INVALID,
                "alignment",
            );
            expect(
                call!(api, aclrtReserveMemAddress(&mut va, G, 0, null_mut(), 2)),
                AclError::INVALID_PARAM,
                "reserve flags 2",
            );
            ok!(api, aclrtReserveMemAddress(&mut va, 2 * G, 0, null_mut(), 1));
            assert!((0x1000_0000_0000..0x1800_0000_0000).contains(&(va as usize)), "ACL-RSV-008: {va:p}");
            // ACL-MAP-007: unaligned address (507899); ACL-MAP-004: offset ≠ 0 (107000); ACL-MAP-003: flags (100000).
            let inside = (va as usize + 4096) as *mut c_void;
            expect(call!(api, aclrtMapMem(inside, G, 0, h, 0)), AclError::RT_DRV_INTERNAL_ERROR, "unaligned VA");
            expect(call!(api, aclrtMapMem(va, G, G, h, 0)), AclError::RT_PARAM_INVALID, "offset");
            expect(call!(api, aclrtMapMem(va, G, 0, h, 2)), AclError::INVALID_PARAM, "map flags");
            expect(
                call!(api, aclrtMapMem(va, G, G, h, 2)),
                AclError::INVALID_PARAM,
                "offset and flags: flags first (§5)",
            );
            // State unchanged: the map still works, then a double map is refused (ACL-MAP-009).
            ok!(api, aclrtMapMem(va, G, 0, h, 0));
            expect(call!(api, aclrtMapMem(va, G, 0, h, 0)), AclError::RT_DRV_INTERNAL_ERROR, "double map");
            let msg = common::last_message(&api);
            assert!(msg.starts_with("ACL-MAP-009: aclrtMapMem:"), "message names the rule: {msg}");
            // ACL-MAP-010: the reservation is bound to device 0; a device-1 handle is refused.
            let mut h1 = null_mut();
            ok!(api, aclrtMallocPhysical(&mut h1, G, &prop(1), 0));
            let second = (va as usize + G) as *mut c_void;
            expect(call!(api, aclrtMapMem(second, G, 0, h1, 0)), AclError::RT_DRV_INTERNAL_ERROR, "other device");
            ok!(api, aclrtFreePhysical(h1));

            // Sharing rules.
            let mut key = 0u64;
            ok!(api, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &mut key));
            let mut pid = std::process::id() as i32;
            // ACL-PID-007: set-pid after DISABLE_PID_VALIDATION (207006).
            expect(
                call!(api, aclrtMemSetPidToShareableHandle(key, &mut pid, 1)),
                AclError::RT_NO_PERMISSION,
                "set-pid",
            );
            // ACL-IMP-009: the exporter importing onto the same device (507899); onto another device: fine (ACL-IMP-010).
            let mut imp = null_mut();
            expect(
                call!(api, aclrtMemImportFromShareableHandle(key, 0, &mut imp)),
                AclError::RT_DRV_INTERNAL_ERROR,
                "same-process import",
            );
            ok!(api, aclrtMemImportFromShareableHandle(key, 1, &mut imp));
            // ACL-IMP-014: a repeated import is the same handle with one more reference.
            let mut again = null_mut();
            ok!(api, aclrtMemImportFromShareableHandle(key, 1, &mut again));
            assert_eq!(imp, again);
            ok!(api, aclrtFreePhysical(again));
            ok!(api, aclrtFreePhysical(imp));
            // ACL-IMP-002: bad device (107001); ACL-IMP-007: unknown handle (107017).
            expect(
                call!(api, aclrtMemImportFromShareableHandle(key, 64, &mut imp)),
                AclError::RT_INVALID_DEVICEID,
                "import device 64",
            );
            expect(
                call!(api, aclrtMemImportFromShareableHandle(key ^ 0xffff, 0, &mut imp)),
                AclError::RT_INVALID_HANDLE,
                "unknown",
            );
            // ACL-EXP-008: exported once.
            let mut k2 = 0;
            expect(
                call!(api, aclrtMemExportToShareableHandle(h, 0, 0, &mut k2)),
                AclError::RT_DRV_INTERNAL_ERROR,
                "export twice",
            );

            // Teardown, then the released handle is unknown (ACL-LIFE-003: 107017).
            ok!(api, aclrtUnmapMem(va));
            ok!(api, aclrtReleaseMemAddress(va));
            ok!(api, aclrtFreePhysical(h));
            expect(
                call!(api, aclrtMemImportFromShareableHandle(key, 1, &mut imp)),
                AclError::RT_INVALID_HANDLE,
                "released",
            );
            assert_eq!(used_mb(&api), 0);
            let census = vmmkit_emulator::core::emulator().unwrap().census();
            assert_eq!(census, (0, 0, 0), "no handles, reservations or mappings left");
            ok!(api, aclFinalize());
            expect(call!(api, aclFinalize()), AclError::REPEAT_FINALIZE, "second aclFinalize");
        },
    );
}

/// Null out-pointers, null props, SIZE_MAX sizes, garbage handles and
/// pointers: a code each, no crash, no state.
#[test]
fn bad_input_gets_codes_not_crashes() {
    isolated("bad_input_gets_codes_not_crashes", &[], |_| {
        let api = acl();
        ok!(api, aclrtSetDevice(0));
        let garbage = 0xdead_beef_usize as aclrtDrvMemHandle;
        let tagged_garbage = 0xacd0_0000_0000_4242_usize as aclrtDrvMemHandle;
        let mut h = null_mut();
        let mut va = null_mut();
        let mut key = 0u64;
        let cases: Vec<(AclError, AclError, &str)> = vec![
            (call!(api, aclrtMallocPhysical(null_mut(), G, &prop(0), 0)), AclError::INVALID_PARAM, "null handle out"),
            (call!(api, aclrtMallocPhysical(&mut h, G, null(), 0)), AclError::INVALID_PARAM, "null prop"),
            (
                call!(api, aclrtMallocPhysical(&mut h, usize::MAX, &prop(0), 0)),
                AclError::RT_DRV_INTERNAL_ERROR,
                "SIZE_MAX",
            ),
            (
                call!(api, aclrtMallocPhysical(&mut h, usize::MAX & !(G - 1), &prop(0), 0)),
                AclError::RT_MEMORY_ALLOCATION,
                "huge aligned",
            ),
            (
                call!(api, aclrtReserveMemAddress(null_mut(), G, 0, null_mut(), 0)),
                AclError::INVALID_PARAM,
                "null va out",
            ),
            (
                call!(api, aclrtReserveMemAddress(&mut va, usize::MAX, 0, null_mut(), 0)),
                AclError::RT_MEMORY_ALLOCATION,
                "reserve SIZE_MAX",
            ),
            (call!(api, aclrtFreePhysical(garbage)), AclError::RT_PARAM_INVALID, "free garbage"),
            (call!(api, aclrtFreePhysical(tagged_garbage)), AclError::RT_PARAM_INVALID, "free unknown tagged"),
            (
                call!(api, aclrtMapMem(0x1000_0000_0000_usize as _, G, 0, garbage, 0)),
                AclError::RT_PARAM_INVALID,
                "map garbage handle",
            ),
            (call!(api, aclrtUnmapMem(0x1234_5000_usize as _)), AclError::RT_DRV_INTERNAL_ERROR, "unmap garbage"),
            (call!(api, aclrtReleaseMemAddress(0x1234_5000_usize as _)), AclError::RT_PARAM_INVALID, "release garbage"),
            (
                call!(api, aclrtMemExportToShareableHandle(garbage, 0, 0, &mut key)),
                AclError::RT_PARAM_INVALID,
                "export garbage",
            ),
            (
                call!(api, aclrtMemExportToShareableHandle(garbage, 0, 0, null_mut())),
                AclError::INVALID_PARAM,
                "export null out",
            ),
            (
                call!(api, aclrtMemImportFromShareableHandle(u64::MAX, 0, &mut h)),
                AclError::RT_INVALID_HANDLE,
                "import all-ones",
            ),
            (
                call!(api, aclrtMemImportFromShareableHandle(1, 0, null_mut())),
                AclError::INVALID_PARAM,
                "import null out",
            ),
            (call!(api, aclrtMemSetPidToShareableHandle(1, null_mut(), 1)), AclError::INVALID_PARAM, "set-pid null"),
            (
                call!(api, aclrtMemSetPidToShareableHandle(u64::MAX, &mut 1, 1)),
                AclError::RT_INVALID_HANDLE,
                "set-pid garbage key",
            ),
            (call!(api, aclrtMemcpy(null_mut(), 8, null(), 8, 1)), AclError::INVALID_PARAM, "memcpy null"),
            (
                call!(api, aclrtMemcpy(0x1000_0000_0000_usize as _, 8, &0u64 as *const u64 as _, 8, 1)),
                AclError::RT_PARAM_INVALID,
                "memcpy to unmapped device VA",
            ),
            (
                call!(api, aclrtMemGetAccess(null_mut(), null_mut(), null_mut())),
                AclError::INVALID_PARAM,
                "get-access nulls",
            ),
            (
                call!(api, aclrtMemSetAccess(null_mut(), G, null_mut(), 1)),
                AclError::RT_PARAM_INVALID,
                "set-access nulls",
            ),
            (
                call!(api, aclrtMemRetainAllocationHandle(0x1000_0000_0000_usize as _, &mut h)),
                AclError::RT_DRV_INTERNAL_ERROR,
                "retain unmapped",
            ),
            (call!(api, aclrtFreeHost(0x4000_usize as _)), AclError::RT_PARAM_INVALID, "free-host garbage"),
            (call!(api, aclrtFree(0x4000_usize as _)), AclError::RT_PARAM_INVALID, "free garbage device ptr"),
            (call!(api, aclrtGetDeviceCount(null_mut())), AclError::INVALID_PARAM, "count null"),
            (call!(api, aclrtDeviceGetBareTgid(null_mut())), AclError::INVALID_PARAM, "tgid null"),
        ];
        for (got, want, what) in cases {
            expect(got, want, what);
            if want != AclError::SUCCESS {
                assert!(!common::last_message(&api).is_empty(), "{what}: an error message is set");
            }
        }
        let vmmkit_emulator_census = vmmkit_emulator::core::emulator().unwrap().census();
        assert_eq!(vmmkit_emulator_census, (0, 0, 0), "no handles, reservations or mappings left");
    });
}
