//! Through the emulator's HIP table: the rest of Device Management
//! and Initialization and Version, every `hipDeviceAttribute_t`, contexts,
//! the rest of Stream Management, Stream Memory Operations, events and error
//! texts, with clr's codes. Each test runs in its own process and `VMMKIT_ROOT`.

// The `hcall!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;
mod hip_common;

use std::ffi::{CStr, c_char, c_void};
use std::ptr::{null, null_mut};

use common::isolated;
use hip_common::{hip, read, write};
use vmmkit_sys::hip::*;

const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "1G")];

/// The optional entry points the tests call through `hok!`/`hexpect!`.
#[allow(non_snake_case)]
struct Optional {
    hipStreamGetDevice: unsafe extern "C" fn(hipStream_t, *mut hipDevice_t) -> hipError_t,
    hipDeviceGetTexture1DLinearMaxWidth:
        unsafe extern "C" fn(*mut usize, *const hipChannelFormatDesc, i32) -> hipError_t,
}

fn optional(api: &HipApi) -> Optional {
    Optional {
        hipStreamGetDevice: api.hipStreamGetDevice.expect("emulated"),
        hipDeviceGetTexture1DLinearMaxWidth: api.hipDeviceGetTexture1DLinearMaxWidth.expect("emulated"),
    }
}

fn c_text(buf: &[c_char]) -> String {
    // SAFETY: the buffers below are NUL-terminated by the calls under test.
    unsafe { CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

#[test]
fn pci_bus_ids_names_uuids_and_memory() {
    isolated("pci_bus_ids_names_uuids_and_memory", ENV, |_| {
        let api = hip();
        let mut buf = [0 as c_char; 16];
        hok!(api, hipDeviceGetPCIBusId(buf.as_mut_ptr(), 16, 1));
        assert_eq!(c_text(&buf), "0000:02:00.0");
        let mut d = -1;
        hok!(api, hipDeviceGetByPCIBusId(&mut d, buf.as_ptr()));
        assert_eq!(d, 1);
        hexpect!(api, hipDeviceGetByPCIBusId(&mut d, c"0000:09:00.0".as_ptr()), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceGetByPCIBusId(&mut d, c"bogus".as_ptr()), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceGetByPCIBusId(null_mut(), buf.as_ptr()), HipError::INVALID_VALUE);
        // clr: the device first (101), then NULL (1), then a short buffer is written truncated and is 1.
        hexpect!(api, hipDeviceGetPCIBusId(buf.as_mut_ptr(), 16, 2), HipError::INVALID_DEVICE);
        hexpect!(api, hipDeviceGetPCIBusId(null_mut(), 16, 0), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceGetPCIBusId(buf.as_mut_ptr(), 5, 0), HipError::INVALID_VALUE);
        assert_eq!(c_text(&buf), "0000");

        let mut name = [0 as c_char; 8];
        hok!(api, hipDeviceGetName(name.as_mut_ptr(), 8, 0));
        assert_eq!(c_text(&name), "vmmkit ", "truncated to len - 1");
        hexpect!(api, hipDeviceGetName(name.as_mut_ptr(), 0, 0), HipError::INVALID_VALUE);
        hexpect!(api, hipDeviceGetName(name.as_mut_ptr(), 8, 7), HipError::INVALID_DEVICE);

        let mut uuid = hipUUID::default();
        hok!(api, hipDeviceGetUuid(&mut uuid, 1));
        let mut props = hipDeviceProp_tR0600::default();
        let r0600 = api.hipGetDevicePropertiesR0600.expect("emulated");
        // SAFETY: a valid out-pointer.
        assert_eq!(HipError(unsafe { r0600(&mut props, 1) }), HipError::SUCCESS);
        let from_props: Vec<c_char> =
            props.bytes[hipDeviceProp_tR0600::uuid..][..16].iter().map(|&b| b as c_char).collect();
        assert_eq!(uuid.bytes.to_vec(), from_props, "hipDeviceGetUuid agrees with the properties");
        hexpect!(api, hipDeviceGetUuid(null_mut(), 0), HipError::INVALID_VALUE);

        let mut total = 0usize;
        hok!(api, hipDeviceTotalMem(&mut total, 0));
        assert_eq!(total, 1 << 30);
        hexpect!(api, hipDeviceTotalMem(&mut total, -1), HipError::INVALID_DEVICE);
        let (mut major, mut minor) = (0, 0);
        hok!(api, hipDeviceComputeCapability(&mut major, &mut minor, 0));
        assert_eq!((major, minor), (9, 4));
        hexpect!(api, hipDeviceComputeCapability(&mut major, null_mut(), 0), HipError::INVALID_VALUE);
    });
}

#[test]
fn every_attribute_is_answered_and_agrees_with_the_properties() {
    isolated("every_attribute_is_answered_and_agrees_with_the_properties", ENV, |_| {
        let api = hip();
        let mut props = hipDeviceProp_tR0600::default();
        let r0600 = api.hipGetDevicePropertiesR0600.expect("emulated");
        // SAFETY: a valid out-pointer.
        assert_eq!(HipError(unsafe { r0600(&mut props, 0) }), HipError::SUCCESS);
        let field = |at: usize| i32::from_le_bytes(props.bytes[at..at + 4].try_into().unwrap());
        let placeholders = [64, 86, 10001, 10003, 10004];
        let mut answered = 0;
        for attr in (0..93).chain(10000..10021) {
            let mut v = -7;
            let rc = hcall!(api, hipDeviceGetAttribute(&mut v, attr, 0));
            if placeholders.contains(&attr) {
                assert_eq!(rc, HipError::INVALID_VALUE, "placeholder {attr}");
                continue;
            }
            assert_eq!(rc, HipError::SUCCESS, "attribute {attr}");
            answered += 1;
        }
        assert_eq!(answered, 93 - 2 + 21 - 3);
        // The same values as the properties (offsets of Debian's 7.2.4 header).
        for (attr, at) in
            [(3, 400), (16, 396), (23, 360), (61, 364), (63, 388), (67, 584), (85, 604), (87, 308), (88, 744)]
        {
            let mut v = -7;
            hok!(api, hipDeviceGetAttribute(&mut v, attr, 0));
            assert_eq!(v, field(at), "attribute {attr} vs the field at {at}");
        }
        let mut v = 0;
        hok!(api, hipDeviceGetAttribute(&mut v, hipDeviceAttributeMemoryPoolsSupported, 0));
        assert_eq!(v, 1);
        // TotalGlobalMem is clamped to int, as clr does.
        hok!(api, hipDeviceGetAttribute(&mut v, 84, 0));
        assert_eq!(v, 1 << 30);
        for bad in [93, 9999, 19999, 20000, -1] {
            hexpect!(api, hipDeviceGetAttribute(&mut v, bad, 0), HipError::INVALID_VALUE);
        }
    });
}

/// memPitch is capped at INT32_MAX in the properties as in the attribute
/// (clr hip_device.cpp:557, :741; hip_device_runtime.cpp:353-355), so a
/// device of more than 2 GiB reads the same pitch both ways (hip-tests'
/// Unit_hipGetDeviceAttribute_CheckAttrValues passes it through an `int`).
#[test]
fn the_pitch_is_capped_in_the_properties_as_in_the_attribute() {
    let env = &[("VMMKIT_DEVICES", "1"), ("VMMKIT_DEVICE_MEMORY", "4G")];
    isolated("the_pitch_is_capped_in_the_properties_as_in_the_attribute", env, |_| {
        let api = hip();
        let mut props = hipDeviceProp_tR0600::default();
        let r0600 = api.hipGetDevicePropertiesR0600.expect("emulated");
        // SAFETY: a valid out-pointer.
        assert_eq!(HipError(unsafe { r0600(&mut props, 0) }), HipError::SUCCESS);
        let pitch = u64::from_le_bytes(props.bytes[312..320].try_into().unwrap());
        assert_eq!(pitch, i32::MAX as u64, "memPitch of a 4 GiB device");
        let mut v = 0;
        hok!(api, hipDeviceGetAttribute(&mut v, 58, 0));
        assert_eq!(v, i32::MAX, "hipDeviceAttributeMaxPitch");
    });
}

#[test]
fn flags_limits_configs_and_links() {
    isolated("flags_limits_configs_and_links", ENV, |_| {
        let api = hip();
        let mut f = 99;
        hok!(api, hipGetDeviceFlags(&mut f));
        assert_eq!(f, hipDeviceScheduleSpin, "clr's default");
        hok!(api, hipSetDeviceFlags(hipDeviceScheduleBlockingSync | hipDeviceMapHost));
        hok!(api, hipGetDeviceFlags(&mut f));
        assert_eq!(f, hipDeviceScheduleBlockingSync, "the scheduling part is kept");
        hexpect!(api, hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceScheduleYield), HipError::INVALID_VALUE);
        hexpect!(api, hipSetDeviceFlags(0x100), HipError::INVALID_VALUE);
        hexpect!(api, hipGetDeviceFlags(null_mut()), HipError::INVALID_VALUE);

        let set_limit = api.hipDeviceSetLimit.expect("emulated");
        let mut v = 0usize;
        hok!(api, hipDeviceGetLimit(&mut v, hipLimitStackSize));
        assert_eq!(v, 1024);
        // SAFETY: plain values.
        assert_eq!(HipError(unsafe { set_limit(hipLimitStackSize, 1000) }), HipError::SUCCESS);
        hok!(api, hipDeviceGetLimit(&mut v, hipLimitStackSize));
        assert_eq!(v, 1008, "rounded up to 16");
        // SAFETY: plain values.
        unsafe {
            assert_eq!(HipError(set_limit(hipLimitStackSize, 128 << 10)), HipError::INVALID_VALUE);
            assert_eq!(HipError(set_limit(hipLimitMallocHeapSize, 1 << 30)), HipError::INVALID_VALUE);
            assert_eq!(HipError(set_limit(hipLimitMallocHeapSize, 1 << 20)), HipError::SUCCESS);
            assert_eq!(HipError(set_limit(hipLimitPrintfFifoSize, 1)), HipError::UNSUPPORTED_LIMIT);
            assert_eq!(HipError(set_limit(hipLimitRange, 1)), HipError::INVALID_VALUE);
        }
        hok!(api, hipDeviceGetLimit(&mut v, hipLimitMallocHeapSize));
        assert_eq!(v, 1 << 20);
        hexpect!(api, hipDeviceGetLimit(&mut v, hipExtLimitScratchMin), HipError::UNSUPPORTED_LIMIT);
        hexpect!(api, hipDeviceGetLimit(null_mut(), hipLimitStackSize), HipError::INVALID_VALUE);

        hok!(api, hipDeviceSetCacheConfig(hipFuncCachePreferEqual));
        // clr stores nothing and checks nothing (hip_device_runtime.cpp:574-580).
        hok!(api, hipDeviceSetCacheConfig(4));
        let mut c = -1;
        hok!(api, hipDeviceGetCacheConfig(&mut c));
        assert_eq!(c, hipFuncCachePreferNone);
        hok!(api, hipDeviceSetSharedMemConfig(hipSharedMemBankSizeEightByte));
        hexpect!(api, hipDeviceSetSharedMemConfig(3), HipError::INVALID_VALUE);
        hok!(api, hipDeviceGetSharedMemConfig(&mut c));
        assert_eq!(c, hipSharedMemBankSizeFourByte);

        let mut value = -1;
        hok!(api, hipDeviceGetP2PAttribute(&mut value, hipDevP2PAttrAccessSupported, 0, 1));
        assert_eq!(value, 1);
        hexpect!(
            api,
            hipDeviceGetP2PAttribute(&mut value, hipDevP2PAttrAccessSupported, 1, 1),
            HipError::INVALID_DEVICE
        );
        hexpect!(api, hipDeviceGetP2PAttribute(&mut value, 9, 0, 1), HipError::INVALID_VALUE);
        let (mut link, mut hops) = (0u32, 0u32);
        hok!(api, hipExtGetLinkTypeAndHopCount(0, 1, &mut link, &mut hops));
        assert_eq!((link, hops), (4, 1));
        hexpect!(api, hipExtGetLinkTypeAndHopCount(0, 0, &mut link, &mut hops), HipError::INVALID_VALUE);
        hexpect!(api, hipExtGetLinkTypeAndHopCount(0, 5, &mut link, &mut hops), HipError::INVALID_DEVICE);

        let mut d = -1;
        let prop = hipDeviceProp_t::default();
        hok!(api, hipChooseDevice(&mut d, &prop));
        assert_eq!(d, 0);
        hexpect!(api, hipChooseDevice(&mut d, null()), HipError::INVALID_VALUE);
        let desc = hipChannelFormatDesc { x: 32, ..Default::default() };
        let mut width = 0usize;
        hok!(optional(&api), hipDeviceGetTexture1DLinearMaxWidth(&mut width, &desc, 0));
        assert_eq!(width, (1 << 27) / 4);
        let valid = api.hipSetValidDevices.expect("emulated");
        // SAFETY: clr answers without reading the array.
        assert_eq!(HipError(unsafe { valid(null_mut(), 0) }), HipError::NOT_SUPPORTED);
        hexpect!(api, hipProfilerStart(), HipError::NOT_SUPPORTED);
        hexpect!(api, hipProfilerStop(), HipError::NOT_SUPPORTED);
    });
}

#[test]
fn device_reset_releases_memory_streams_and_settings() {
    isolated("device_reset_releases_memory_streams_and_settings", ENV, |_| {
        let api = hip();
        hok!(api, hipSetDevice(1));
        let mut p = null_mut();
        hok!(api, hipMalloc(&mut p, 4096));
        let mut s = null_mut();
        hok!(api, hipStreamCreate(&mut s));
        hok!(api, hipSetDeviceFlags(hipDeviceScheduleYield));
        // What the memory calls keep about an allocation goes with it: an
        // array, and the flags of hipExtMallocWithFlags memory.
        let desc = hipChannelFormatDesc { x: 32, f: hipChannelFormatKindFloat, ..Default::default() };
        let mut array = null_mut();
        hok!(api, hipMallocArray(&mut array, &desc, 8, 4, 0));
        let mut fine = null_mut();
        hok!(api, hipExtMallocWithFlags(&mut fine, 4096, hipDeviceMallocFinegrained));
        hok!(api, hipDeviceReset());
        hexpect!(api, hipFreeArray(array), HipError::CONTEXT_IS_DESTROYED);
        let mut again = null_mut();
        hok!(api, hipMalloc(&mut again, 4096));
        let mut a = hipPointerAttribute_t::default();
        hok!(api, hipPointerGetAttributes(&mut a, again));
        assert_eq!(a.allocationFlags, 0, "no flags of a released allocation at {fine:p} (now {again:p})");
        hok!(api, hipFree(again));
        hexpect!(api, hipStreamQuery(s), HipError::CONTEXT_IS_DESTROYED);
        let (mut base, mut size) = (null_mut(), 0usize);
        hexpect!(api, hipMemGetAddressRange(&mut base, &mut size, p), HipError::NOT_FOUND);
        let mut f = 0;
        hok!(api, hipGetDeviceFlags(&mut f));
        assert_eq!(f, hipDeviceScheduleSpin);
        // The device works after it.
        hok!(api, hipMalloc(&mut p, 4096));
        hok!(api, hipFree(p));
        hok!(api, hipStreamQuery(null_mut()));
    });
}

#[test]
fn contexts_follow_clr() {
    isolated("contexts_follow_clr", ENV, |_| {
        let api = hip();
        let mut ctx = null_mut();
        hexpect!(api, hipCtxPopCurrent(&mut ctx), HipError::INVALID_CONTEXT);
        hok!(api, hipCtxCreate(&mut ctx, 0, 1));
        assert!(!ctx.is_null());
        hexpect!(api, hipCtxCreate(&mut ctx, 0, 2), HipError::INVALID_VALUE);
        let mut d = -1;
        hok!(api, hipCtxGetDevice(&mut d));
        assert_eq!(d, 0, "clr's hipCtxCreate does not change the current device");
        hok!(api, hipCtxPushCurrent(ctx));
        hok!(api, hipCtxGetDevice(&mut d));
        assert_eq!(d, 1);
        let mut cur = null_mut();
        hok!(api, hipCtxGetCurrent(&mut cur));
        assert_eq!(cur, ctx);
        let mut top = null_mut();
        hok!(api, hipCtxPopCurrent(&mut top));
        assert_eq!(top, ctx);
        hok!(api, hipCtxPopCurrent(null_mut()));
        hexpect!(api, hipCtxPopCurrent(null_mut()), HipError::INVALID_CONTEXT);
        hexpect!(api, hipCtxPushCurrent(null_mut()), HipError::INVALID_CONTEXT);
        hexpect!(api, hipCtxSetCurrent(0x1234 as hipCtx_t), HipError::INVALID_CONTEXT);
        let mut primary = null_mut();
        hok!(api, hipDevicePrimaryCtxRetain(&mut primary, 0));
        hok!(api, hipCtxSetCurrent(primary));
        hok!(api, hipGetDevice(&mut d));
        assert_eq!(d, 0);
        let (mut flags, mut active) = (9u32, 9);
        hok!(api, hipDevicePrimaryCtxGetState(0, &mut flags, &mut active));
        assert_eq!((flags, active), (0, 1));
        hexpect!(api, hipDevicePrimaryCtxGetState(3, &mut flags, &mut active), HipError::INVALID_DEVICE);
        hexpect!(api, hipDevicePrimaryCtxSetFlags(0, 0), HipError::CONTEXT_ALREADY_IN_USE);
        hexpect!(api, hipDevicePrimaryCtxSetFlags(4, 0), HipError::INVALID_DEVICE);
        hok!(api, hipDevicePrimaryCtxRelease(0));
        hok!(api, hipDevicePrimaryCtxReset(0));
        hok!(api, hipCtxDestroy(ctx));
        hexpect!(api, hipCtxDestroy(null_mut()), HipError::INVALID_VALUE);
        hok!(api, hipCtxEnablePeerAccess(ctx, 0));
        hok!(api, hipCtxDisablePeerAccess(ctx));
        let mut cfg = 0;
        hok!(api, hipCtxGetSharedMemConfig(&mut cfg));
        assert_eq!(cfg, hipSharedMemBankSizeFourByte);
        // What clr leaves unimplemented answers 801, after its own checks.
        let mut u = 0u32;
        hexpect!(api, hipCtxGetApiVersion(ctx, &mut u), HipError::NOT_SUPPORTED);
        hexpect!(api, hipCtxGetCacheConfig(&mut cfg), HipError::NOT_SUPPORTED);
        // No check of the value first (clr hip_context.cpp:309-315).
        hexpect!(api, hipCtxSetCacheConfig(9), HipError::NOT_SUPPORTED);
        hexpect!(api, hipCtxSetCacheConfig(0), HipError::NOT_SUPPORTED);
        hexpect!(api, hipCtxSetSharedMemConfig(0), HipError::NOT_SUPPORTED);
        hexpect!(api, hipCtxSynchronize(), HipError::NOT_SUPPORTED);
        hexpect!(api, hipCtxGetFlags(&mut u), HipError::NOT_SUPPORTED);
    });
}

#[test]
fn streams_devices_masks_ids_and_attributes() {
    isolated("streams_devices_masks_ids_and_attributes", ENV, |_| {
        let api = hip();
        hok!(api, hipSetDevice(1));
        let opt = optional(&api);
        let mut s = null_mut();
        hok!(api, hipStreamCreateWithPriority(&mut s, 0, -1));
        let mut d = -1;
        hok!(opt, hipStreamGetDevice(s, &mut d));
        assert_eq!(d, 1);
        hok!(opt, hipStreamGetDevice(null_mut(), &mut d));
        assert_eq!(d, 1, "the NULL stream's is the current device");
        hexpect!(opt, hipStreamGetDevice(s, null_mut()), HipError::INVALID_VALUE);
        // SAFETY: a stream value, looked up.
        assert_eq!(unsafe { (api.hipGetStreamDeviceId)(s) }, 1);

        // CU masks: 304 units are 10 words, the last with 16 bits.
        let mut mask = [0u32; 10];
        hok!(api, hipExtStreamGetCUMask(null_mut(), 10, mask.as_mut_ptr()));
        assert_eq!((mask[0], mask[9]), (u32::MAX, 0xffff));
        hexpect!(api, hipExtStreamGetCUMask(null_mut(), 9, mask.as_mut_ptr()), HipError::INVALID_VALUE);
        let mut m = null_mut();
        let want = [0x0f0f_0f0fu32, 0];
        hok!(api, hipExtStreamCreateWithCUMask(&mut m, 2, want.as_ptr()));
        hok!(api, hipExtStreamGetCUMask(m, 10, mask.as_mut_ptr()));
        assert_eq!(&mask[..2], &want);
        hexpect!(api, hipExtStreamCreateWithCUMask(null_mut(), 2, want.as_ptr()), HipError::INVALID_HANDLE);
        hexpect!(api, hipExtStreamCreateWithCUMask(&mut m, 0, want.as_ptr()), HipError::INVALID_VALUE);

        let get_id = api.hipStreamGetId.expect("emulated");
        let (mut a, mut b) = (0u64, 0u64);
        // SAFETY: valid out-pointers.
        unsafe {
            assert_eq!(HipError(get_id(s, &mut a)), HipError::SUCCESS);
            assert_eq!(HipError(get_id(m, &mut b)), HipError::SUCCESS);
        }
        assert_ne!(a, b);

        let (get, set, copy) = (
            api.hipStreamGetAttribute.expect("emulated"),
            api.hipStreamSetAttribute.expect("emulated"),
            api.hipStreamCopyAttributes.expect("emulated"),
        );
        let mut v = hipStreamAttrValue::default();
        // SAFETY: valid pointers to 64-byte values.
        unsafe {
            assert_eq!(HipError(get(s, hipLaunchAttributePriority, &mut v)), HipError::SUCCESS);
            assert_eq!(i32::from_le_bytes(v.bytes[..4].try_into().unwrap()), -1);
            v.bytes[..4].copy_from_slice(&1i32.to_le_bytes());
            assert_eq!(HipError(set(m, hipLaunchAttributeSynchronizationPolicy, &v)), HipError::SUCCESS);
            assert_eq!(HipError(copy(s, m)), HipError::SUCCESS);
            let mut w = hipStreamAttrValue::default();
            assert_eq!(HipError(get(s, hipLaunchAttributeSynchronizationPolicy, &mut w)), HipError::SUCCESS);
            assert_eq!(w, v);
            assert_eq!(HipError(get(s, hipLaunchAttributePriority, &mut w)), HipError::SUCCESS);
            assert_eq!(i32::from_le_bytes(w.bytes[..4].try_into().unwrap()), 0, "m's priority");
            assert_eq!(HipError(get(s, hipLaunchAttributeCooperative, &mut w)), HipError::INVALID_VALUE);
            assert_eq!(HipError(set(s, hipLaunchAttributePriority, null())), HipError::INVALID_VALUE);
        }
        let mut p = 5;
        hok!(api, hipStreamGetPriority(s, &mut p));
        assert_eq!(p, 0, "hipStreamGetPriority sees the copied priority");

        hok!(api, hipStreamDestroy(s));
        hexpect!(opt, hipStreamGetDevice(s, &mut d), HipError::CONTEXT_IS_DESTROYED);
        // SAFETY: a stream value, looked up.
        assert_eq!(unsafe { (api.hipGetStreamDeviceId)(s) }, -1);
        hok!(api, hipStreamDestroy(m));
    });
}

/// Flags through one of the `_spt` entry points: NULL is the per-thread stream.
#[test]
fn per_thread_variants_use_the_threads_stream() {
    isolated("per_thread_variants_use_the_threads_stream", ENV, |_| {
        let api = hip();
        let flags_spt = api.hipStreamGetFlags_spt.expect("emulated");
        let mut f = 9;
        // SAFETY: a valid out-pointer.
        assert_eq!(HipError(unsafe { flags_spt(null_mut(), &mut f) }), HipError::SUCCESS);
        assert_eq!(f, hipStreamDefault, "the per-thread stream is a blocking stream");
        // The NULL stream itself has no flags to read (clr).
        hexpect!(api, hipStreamGetFlags(null_mut(), &mut f), HipError::INVALID_VALUE);
        let (sync, query) =
            (api.hipStreamSynchronize_spt.expect("emulated"), api.hipStreamQuery_spt.expect("emulated"));
        let mut e = null_mut();
        hok!(api, hipEventCreate(&mut e));
        let rec = api.hipEventRecord_spt.expect("emulated");
        let with = api.hipEventRecordWithFlags.expect("emulated");
        // SAFETY: live handles.
        unsafe {
            assert_eq!(HipError(rec(e, null_mut())), HipError::SUCCESS);
            assert_eq!(HipError(sync(null_mut())), HipError::SUCCESS);
            assert_eq!(HipError(query(null_mut())), HipError::SUCCESS);
            assert_eq!(HipError(with(e, null_mut(), hipEventRecordExternal)), HipError::SUCCESS);
            assert_eq!(HipError(with(e, null_mut(), 2)), HipError::INVALID_VALUE);
        }
        hok!(api, hipEventSynchronize(e));
        hok!(api, hipEventDestroy(e));
    });
}

#[test]
fn stream_memory_operations_order_streams() {
    isolated("stream_memory_operations_order_streams", ENV, |_| {
        let api = hip();
        let (w32, w64) = (api.hipStreamWaitValue32.expect("emulated"), api.hipStreamWaitValue64.expect("emulated"));
        let (v32, v64) = (api.hipStreamWriteValue32.expect("emulated"), api.hipStreamWriteValue64.expect("emulated"));
        let batch = api.hipStreamBatchMemOp.expect("emulated");
        let mut flag = null_mut();
        hok!(api, hipMalloc(&mut flag, 64));
        hok!(api, hipMemset(flag, 0, 64));
        // A fill of device memory at its start is queued on the NULL stream
        // (HIP-MEM-010), which the non-blocking streams below do not wait for.
        hok!(api, hipDeviceSynchronize());
        let (mut a, mut b) = (null_mut(), null_mut());
        hok!(api, hipStreamCreateWithFlags(&mut a, hipStreamNonBlocking));
        hok!(api, hipStreamCreateWithFlags(&mut b, hipStreamNonBlocking));
        let data = flag.cast::<u8>().wrapping_add(8).cast::<c_void>();
        // SAFETY: device addresses of this process; values by value.
        unsafe {
            // b waits until the masked flag reaches 5, then writes the data word.
            assert_eq!(HipError(w32(b, flag, 5, hipStreamWaitValueGte, 0xff)), HipError::SUCCESS);
            assert_eq!(HipError(v64(b, data, 0xdead_beef_0000_0001, 0)), HipError::SUCCESS);
            assert_eq!(HipError((api.hipStreamQuery)(b)), HipError::NOT_READY);
            assert_eq!(HipError(v32(a, flag, 0x1_05, 0)), HipError::SUCCESS);
            assert_eq!(HipError((api.hipStreamSynchronize)(b)), HipError::SUCCESS);
            assert_eq!(HipError(w64(a, data, 1, hipStreamWaitValueAnd, u64::MAX)), HipError::SUCCESS);
            assert_eq!(HipError((api.hipStreamSynchronize)(a)), HipError::SUCCESS);
            // clr's checks: NULL → 1, unknown memory → 1, a bad comparison → 1, a dead stream → 709.
            assert_eq!(HipError(w32(a, null_mut(), 0, 0, 0)), HipError::INVALID_VALUE);
            let mut host = 0u64;
            assert_eq!(HipError(v64(a, (&raw mut host).cast(), 1, 0)), HipError::INVALID_VALUE);
            assert_eq!(HipError(w32(a, flag, 0, 4, 0)), HipError::INVALID_VALUE);
            // A batch: write 7 then wait for it, on one stream.
            let mut ops = [hipStreamBatchMemOpParams { bytes: [0; 48] }; 2];
            for (op, kind) in ops.iter_mut().zip([hipStreamMemOpWriteValue32, hipStreamMemOpWaitValue32]) {
                op.bytes[0..4].copy_from_slice(&kind.to_le_bytes());
                op.bytes[8..16].copy_from_slice(&(flag as u64).to_le_bytes());
                op.bytes[16..20].copy_from_slice(&7u32.to_le_bytes());
                op.bytes[24..28].copy_from_slice(&hipStreamWaitValueEq.to_le_bytes());
            }
            assert_eq!(HipError(batch(a, 2, ops.as_mut_ptr(), 0)), HipError::SUCCESS);
            assert_eq!(HipError((api.hipStreamSynchronize)(a)), HipError::SUCCESS);
            assert_eq!(HipError(batch(a, 0, ops.as_mut_ptr(), 0)), HipError::INVALID_VALUE);
            ops[0].bytes[0..4].copy_from_slice(&hipStreamMemOpBarrier.to_le_bytes());
            assert_eq!(HipError(batch(a, 2, ops.as_mut_ptr(), 0)), HipError::NOT_SUPPORTED);
        }
        let got = read(&api, flag, 16);
        assert_eq!(u32::from_le_bytes(got[..4].try_into().unwrap()), 7);
        assert_eq!(u64::from_le_bytes(got[8..16].try_into().unwrap()), 0xdead_beef_0000_0001);
        write(&api, flag, &[0; 8]);
        hok!(api, hipStreamDestroy(b));
        // SAFETY: a dead stream is looked up, never dereferenced.
        assert_eq!(HipError(unsafe { v32(b, flag, 1, 0) }), HipError::CONTEXT_IS_DESTROYED);
        hok!(api, hipStreamDestroy(a));
        hok!(api, hipFree(flag));
    });
}

#[test]
fn driver_error_texts() {
    isolated("driver_error_texts", ENV, |_| {
        let api = hip();
        let (name, string) = (api.hipDrvGetErrorName.expect("emulated"), api.hipDrvGetErrorString.expect("emulated"));
        let mut p: *const c_char = null();
        // SAFETY: valid out-pointers; the texts are static.
        unsafe {
            assert_eq!(HipError(name(801, &mut p)), HipError::SUCCESS);
            assert_eq!(CStr::from_ptr(p).to_str().unwrap(), "hipErrorNotSupported");
            assert_eq!(HipError(string(215, &mut p)), HipError::SUCCESS);
            assert_eq!(HipError(name(4242, &mut p)), HipError::INVALID_VALUE);
            assert_eq!(CStr::from_ptr(p).to_str().unwrap(), "hipErrorUnknown");
            assert_eq!(HipError(name(999, &mut p)), HipError::SUCCESS);
            assert_eq!(HipError(string(1, null_mut())), HipError::INVALID_VALUE);
        }
    });
}

/// A stream that was never made to capture: the capture queries answer
/// None after clr's checks, and the capture mode swaps.
#[test]
fn capture_queries_answer_not_capturing() {
    isolated("capture_queries_answer_not_capturing", ENV, |_| {
        let api = hip();
        let is = api.hipStreamIsCapturing.expect("emulated");
        let info = api.hipStreamGetCaptureInfo_v2.expect("emulated");
        let exchange = api.hipThreadExchangeStreamCaptureMode.expect("emulated");
        let mut s = null_mut();
        hok!(api, hipStreamCreate(&mut s));
        let mut status = 7;
        // SAFETY: valid out-pointers or deliberate NULLs; stream values are looked up.
        unsafe {
            assert_eq!(HipError(is(s, &mut status)), HipError::SUCCESS);
            assert_eq!(status, hipStreamCaptureStatusNone);
            status = 7;
            assert_eq!(
                HipError(info(null_mut(), &mut status, null_mut(), null_mut(), null_mut(), null_mut())),
                HipError::SUCCESS
            );
            assert_eq!(status, hipStreamCaptureStatusNone);
            assert_eq!(HipError(is(s, null_mut())), HipError::INVALID_VALUE);
            let mut mode = hipStreamCaptureModeRelaxed;
            assert_eq!(HipError(exchange(&mut mode)), HipError::SUCCESS);
            assert_eq!(mode, hipStreamCaptureModeGlobal);
            mode = 3;
            assert_eq!(HipError(exchange(&mut mode)), HipError::INVALID_VALUE);
        }
        hok!(api, hipStreamDestroy(s));
        // SAFETY: a dead stream is looked up.
        assert_eq!(HipError(unsafe { is(s, &mut status) }), HipError::CONTEXT_IS_DESTROYED);
    });
}
