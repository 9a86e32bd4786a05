//! The ACL memory surface, over the emulator's table
//! (`vmmkit_emulator::acl::api()`): every memory function of the vendor's
//! runtime headers is in the table unless it needs device code; refused
//! calls change nothing; what the new functions allocate is released. Each
//! case runs in its own process with its own root.

mod common;

use std::ffi::c_void;
use std::ptr;

use common::isolated;
use vmmkit_emulator::core::emulator;
use vmmkit_sys::acl::*;

/// The memory functions that need device code (exported by the drop-in as
/// not supported, absent from the table).
const DEVICE_CODE: [&str; 6] = [
    "aclrtMemcpyFromSymbol",
    "aclrtMemcpyFromSymbolAsync",
    "aclrtMemcpyToSymbol",
    "aclrtMemcpyToSymbolAsync",
    "aclrtCacheLastTaskOpInfo",
    "aclrtCacheLastTaskExtendInfo",
];

fn ok(what: &str, rc: aclError) {
    assert_eq!(AclError(rc), AclError::SUCCESS, "{what}: {}", msg());
}

fn code(what: &str, want: AclError, rc: aclError) {
    assert_eq!(AclError(rc), want, "{what}: {}", msg());
}

fn msg() -> String {
    vmmkit_emulator::core::thread::message()
}

/// Every function of family `memory` in docs/api/acl.tsv is an entry of the
/// table, and has an entry point, unless it needs device code.
#[test]
fn every_memory_function_is_emulated_or_device_code() {
    let tsv = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/api/acl.tsv")).expect("acl.tsv");
    let memory: Vec<&str> = tsv
        .lines()
        .filter_map(|l| l.split('\t').collect::<Vec<_>>().get(..2).map(|f| (f[0], f[1])))
        .filter(|f| f.1 == "memory")
        .map(|f| f.0)
        .collect();
    assert!(memory.len() > 100, "the memory family of acl.tsv: {} names", memory.len());
    let table: Vec<&str> = AclApi::REQUIRED.iter().chain(AclApi::OPTIONAL).copied().collect();
    for name in &memory {
        let emulated = table.contains(name);
        let device = DEVICE_CODE.contains(name);
        assert!(emulated != device, "{name}: in the table {emulated}, device code {device}");
        assert_eq!(vmmkit_emulator::acl::entry_point(name.as_bytes()).is_some(), emulated, "{name}");
    }
    let emulated = memory.iter().filter(|n| table.contains(n)).count();
    println!("{emulated} of {} memory functions emulated, {} need device code", memory.len(), DEVICE_CODE.len());
}

/// Refused registrations leave the registered ranges as they were; a
/// refused advice leaves the attribute; a refused batch copies nothing.
#[test]
fn refused_calls_change_nothing() {
    isolated("refused_calls_change_nothing", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let reg_v2 = acl.aclrtHostRegisterV2.expect("V2");
        let unreg = acl.aclrtHostUnregister.expect("unregister");
        let mut buf = vec![0u8; 8192];
        let p: *mut c_void = buf.as_mut_ptr().cast();
        // SAFETY: `buf` outlives every call; out-pointers are live locals.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            // Each variant fails under its own name, with the ACL layer's code.
            let align32 = acl.aclrtMallocAlign32.expect("align32");
            code("align32 NULL", AclError::INVALID_PARAM, align32(ptr::null_mut(), 8, 0));
            assert!(msg().starts_with("aclrtMallocAlign32: "), "{}", msg());
            code(
                "free with sync NULL",
                AclError::INVALID_PARAM,
                acl.aclrtFreeWithDevSync.expect("free")(ptr::null_mut()),
            );
            assert!(msg().starts_with("aclrtFreeWithDevSync: "), "{}", msg());
            ok("register", reg_v2(p, 4096, ACL_HOST_REG_MAPPED));
            let inner = p.cast::<u8>().add(100).cast();
            code("overlap", AclError::HOST_MEMORY_ALREADY_REGISTERED, reg_v2(inner, 10, ACL_HOST_REG_MAPPED));
            code("bad flag", AclError::RT_PARAM_INVALID, reg_v2(p.cast::<u8>().add(4096).cast(), 10, 0x1));
            code("not a start", AclError::HOST_MEMORY_NOT_REGISTERED, unreg(inner));
            ok("unregister the original", unreg(p));
            code("unregister again", AclError::HOST_MEMORY_NOT_REGISTERED, unreg(p));

            let mut m = ptr::null_mut();
            ok("managed", acl.aclrtMemAllocManaged.expect("managed")(&mut m, 4096, ACL_RT_MEM_ATTACH_GLOBAL));
            let advise = acl.aclrtMemManagedAdvise.expect("advise");
            let bad_loc = aclrtMemManagedLocation { type_: ACL_MEM_LOCATIONTYPE_DEVICE, id: 99 };
            code("advise to device 99", AclError::RT_INVALID_DEVICEID, advise(m, 4096, 2, bad_loc));
            let mut v = 7i32;
            let get = acl.aclrtMemManagedGetAttr.expect("get attr");
            ok("get", get(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096, (&raw mut v).cast(), 4));
            assert_eq!(v, -2, "no preferred location after the refused advice");
            ok("free managed", (acl.aclrtFree)(m));
            code("managed freed", AclError::RT_PARAM_INVALID, advise(m, 4096, 0, bad_loc));

            // A batch whose second entry is bad copies nothing, not even the first.
            let mut dst = [0u8; 16];
            let src = [9u8; 16];
            let mut dsts = [dst.as_mut_ptr().cast::<c_void>(), dst.as_mut_ptr().cast()];
            let mut srcs = [src.as_ptr().cast_mut().cast::<c_void>(), 0x10 as *mut c_void];
            let mut maxs = [16usize, 16];
            let mut sizes = [16usize, 16];
            let mut attrs = [aclrtMemcpyBatchAttr::default()];
            let mut idx = [0usize];
            let mut fail = 0usize;
            let batch = acl.aclrtMemcpyBatch.expect("batch");
            let rc = batch(
                dsts.as_mut_ptr(),
                maxs.as_mut_ptr(),
                srcs.as_mut_ptr(),
                sizes.as_mut_ptr(),
                2,
                attrs.as_mut_ptr(),
                idx.as_mut_ptr(),
                1,
                &mut fail,
            );
            code("batch with a bad entry", AclError::RT_PARAM_INVALID, rc);
            assert_eq!((fail, dst), (1, [0u8; 16]), "failIndex 1 and nothing copied");
        }
    });
}

/// What the new allocation functions make is released by their frees: no
/// leak is left, and no host buffer survives (mbuf data goes with its last
/// reference, managed memory with aclrtFree).
#[test]
fn allocations_are_released() {
    isolated("allocations_are_released", &[], |_| {
        let acl = vmmkit_emulator::acl::api();
        let e = emulator().expect("emulator");
        // SAFETY: out-pointers are live locals; every pointer passed was just allocated.
        unsafe {
            ok("set device", (acl.aclrtSetDevice)(0));
            let mut p = ptr::null_mut();
            ok("align32", acl.aclrtMallocAlign32.expect("align32")(&mut p, 100, 0));
            ok("free with sync", acl.aclrtFreeWithDevSync.expect("free")(p));
            ok("cached", acl.aclrtMallocCached.expect("cached")(&mut p, 100, 0));
            ok("free", (acl.aclrtFree)(p));
            ok("with cfg", acl.aclrtMallocWithCfg.expect("cfg")(&mut p, 100, 0, ptr::null_mut()));
            ok("free", (acl.aclrtFree)(p));
            let mut h = ptr::null_mut();
            ok("host with cfg", acl.aclrtMallocHostWithCfg.expect("host")(&mut h, 64, ptr::null_mut()));
            let host = h as usize;
            ok("free host with sync", acl.aclrtFreeHostWithDevSync.expect("free host")(h));
            assert!(e.host_at(host).is_none(), "the host buffer is freed");

            let mut m = ptr::null_mut();
            ok("managed", acl.aclrtMemAllocManaged.expect("managed")(&mut m, 100, ACL_RT_MEM_ATTACH_GLOBAL));
            let managed = m as usize;
            ok("free managed", (acl.aclrtFree)(m));
            assert!(e.host_at(managed).is_none(), "managed memory is freed");

            let (mut a, mut r) = (ptr::null_mut(), ptr::null_mut());
            ok("alloc buf", acl.aclrtAllocBuf.expect("alloc buf")(&mut a, 128));
            ok("ref", acl.aclrtCopyBufRef.expect("ref")(a, &mut r));
            let (mut data, mut size) = (ptr::null_mut(), 0usize);
            ok("data", acl.aclrtGetBufData.expect("data")(a, &mut data, &mut size));
            ok("free buf", acl.aclrtFreeBuf.expect("free buf")(a));
            assert!(e.host_at(data as usize).is_some(), "the reference keeps the data");
            ok("free ref", acl.aclrtFreeBuf.expect("free buf")(r));
            assert!(e.host_at(data as usize).is_none(), "the last reference frees the data");

            let desc = acl.aclrtAllocatorCreateDesc.expect("create desc")();
            assert!(!desc.is_null());
            ok("destroy desc", acl.aclrtAllocatorDestroyDesc.expect("destroy")(desc));
        }
        assert_eq!(e.leaks().expect("tables").len(), 0, "nothing leaks: {:?}", e.leaks());
        assert_eq!(e.census(), (0, 0, 0));
    });
}
