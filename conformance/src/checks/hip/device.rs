//! HIP-INIT-004 … 007: contexts, device limits and flags,
//! hipDeviceReset, hipSetValidDevices.

use std::ptr;

use vmmkit_sys::hip::*;

use crate::hip::{Ctx, setup};
use crate::outcome::Failure;

/// An optional entry point the backend lacks: not supported there.
fn missing(name: &str) -> Failure {
    Failure::NotSupported(format!("the library has no {name}"))
}

/// HIP-INIT-004: on a fresh thread (an empty context stack) hipCtxPopCurrent
/// is 201, hipCtxPushCurrent(NULL) is 201; a pushed context pops back;
/// hipDevicePrimaryCtxSetFlags is 216; hipCtxCreate with a device out of range is 1.
pub fn contexts(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let n = cx.device_count()?;
    std::thread::scope(|s| {
        s.spawn(|| -> Result<(), Failure> {
            let mut top = ptr::null_mut();
            cx.expect_code("hipCtxPopCurrent(empty stack)", hip.hipCtxPopCurrent(&mut top))?;
            cx.expect_code("hipCtxPushCurrent(NULL)", hip.hipCtxPushCurrent(ptr::null_mut()))?;
            let mut primary = ptr::null_mut();
            setup("hipDevicePrimaryCtxRetain", hip.hipDevicePrimaryCtxRetain(&mut primary, 0))?;
            cx.expect_ok("hipCtxPushCurrent(the primary context)", hip.hipCtxPushCurrent(primary))?;
            cx.expect_ok("hipCtxPopCurrent", hip.hipCtxPopCurrent(&mut top))?;
            cx.ensure("the popped context", top == primary, format!("{primary:p}"), format!("{top:p}"))?;
            cx.expect_code("hipCtxPopCurrent(empty again)", hip.hipCtxPopCurrent(&mut top))
        })
        .join()
        .unwrap_or_else(|_| Err(Failure::Setup("the context thread panicked".into())))
    })?;
    cx.expect(
        "hipDevicePrimaryCtxSetFlags(0, 0)",
        HipError::CONTEXT_ALREADY_IN_USE,
        hip.hipDevicePrimaryCtxSetFlags(0, 0),
    )?;
    let mut ctx = ptr::null_mut();
    cx.expect("hipCtxCreate(device count)", HipError::INVALID_VALUE, hip.hipCtxCreate(&mut ctx, 0, n))
}

/// HIP-INIT-005: a stack over 128 KiB − 16 and a heap of the whole memory
/// are 1, the printf FIFO is 215, a limit from hipLimitRange on is 1; two
/// scheduling flags or an unknown flag are 1; what was accepted reads back.
pub fn limits_and_flags(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    cx.device(0)?;
    let set = |limit, value| hip.hipDeviceSetLimit(limit, value).ok_or_else(|| missing("hipDeviceSetLimit"));
    let mut total = 0usize;
    setup("hipDeviceTotalMem", hip.hipDeviceTotalMem(&mut total, 0))?;
    cx.expect_code("hipDeviceSetLimit(stack 128 KiB)", set(hipLimitStackSize, 128 << 10)?)?;
    cx.expect_code("hipDeviceSetLimit(heap = device memory)", set(hipLimitMallocHeapSize, total)?)?;
    cx.expect("hipDeviceSetLimit(printf FIFO)", HipError::UNSUPPORTED_LIMIT, set(hipLimitPrintfFifoSize, 4096)?)?;
    cx.expect_code("hipDeviceSetLimit(hipLimitRange)", set(hipLimitRange, 1)?)?;
    cx.expect_ok("hipDeviceSetLimit(stack 2000)", set(hipLimitStackSize, 2000)?)?;
    let mut v = 0usize;
    cx.expect_ok("hipDeviceGetLimit(stack)", hip.hipDeviceGetLimit(&mut v, hipLimitStackSize))?;
    cx.ensure("the stack, rounded up to 16", v == 2000usize.next_multiple_of(16), 2000usize.next_multiple_of(16), v)?;
    setup("hipDeviceSetLimit(stack 1024)", set(hipLimitStackSize, 1024)?)?;
    cx.expect_code(
        "hipSetDeviceFlags(Spin | Yield)",
        hip.hipSetDeviceFlags(hipDeviceScheduleSpin | hipDeviceScheduleYield),
    )?;
    cx.expect_code("hipSetDeviceFlags(0x100)", hip.hipSetDeviceFlags(0x100))?;
    cx.expect_ok("hipSetDeviceFlags(BlockingSync)", hip.hipSetDeviceFlags(hipDeviceScheduleBlockingSync))?;
    let mut flags = 0u32;
    cx.expect_ok("hipGetDeviceFlags", hip.hipGetDeviceFlags(&mut flags))?;
    cx.ensure("the flags read back", flags == hipDeviceScheduleBlockingSync, hipDeviceScheduleBlockingSync, flags)?;
    setup("hipSetDeviceFlags(Spin)", hip.hipSetDeviceFlags(hipDeviceScheduleSpin))
}

/// HIP-INIT-006: on the last device, a stream and an allocation are gone
/// after hipDeviceReset (the stream is 709), the flags are Spin again, and
/// the device works.
pub fn device_reset(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let last = cx.device_count()? - 1;
    cx.device(last)?;
    let p = cx.malloc(1 << 16)?;
    let mut s = ptr::null_mut();
    setup("hipStreamCreate", hip.hipStreamCreate(&mut s))?;
    setup("hipSetDeviceFlags(Yield)", hip.hipSetDeviceFlags(hipDeviceScheduleYield))?;
    cx.expect_ok("hipDeviceReset", hip.hipDeviceReset())?;
    cx.ensure_code(
        "hipStreamQuery(a stream of the reset device)",
        HipError::CONTEXT_IS_DESTROYED,
        hip.hipStreamQuery(s),
    )?;
    let (mut base, mut size) = (ptr::null_mut(), 0usize);
    let range = HipError(hip.hipMemGetAddressRange(&mut base, &mut size, p));
    cx.ensure("the allocation is released", !range.is_success(), "an error", range)?;
    let mut flags = 0u32;
    setup("hipGetDeviceFlags", hip.hipGetDeviceFlags(&mut flags))?;
    cx.ensure("the flags are back to Spin", flags == hipDeviceScheduleSpin, hipDeviceScheduleSpin, flags)?;
    let q = cx.malloc(4096)?;
    cx.free(q)?;
    cx.device(0)
}

/// HIP-INIT-007: 6.x answers 801; 7.x checks the list (len 0 is 0, NULL or
/// too long is 1, a device out of range is 101) and, on a thread that has
/// not called hipSetDevice, makes the first device current.
pub fn set_valid_devices(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let n = cx.device_count()?;
    let call = |list: &mut [i32], len| {
        hip.hipSetValidDevices(list.as_mut_ptr(), len).ok_or_else(|| missing("hipSetValidDevices"))
    };
    let mut list = [n - 1, 0];
    if !cx.is_v7() {
        return cx.expect_code("hipSetValidDevices([last, 0], 2)", call(&mut list, 2)?);
    }
    cx.expect_ok("hipSetValidDevices(len 0)", call(&mut list, 0)?)?;
    cx.expect_code("hipSetValidDevices(len > count)", call(&mut list, n + 1)?)?;
    let nothing = hip.hipSetValidDevices(ptr::null_mut(), 1).ok_or_else(|| missing("hipSetValidDevices"))?;
    cx.expect_code("hipSetValidDevices(NULL, 1)", nothing)?;
    let mut bad = [n, 0];
    cx.expect("hipSetValidDevices([count])", HipError::INVALID_DEVICE, call(&mut bad, 1)?)?;
    std::thread::scope(|s| {
        s.spawn(|| -> Result<(), Failure> {
            let mut l = [n - 1, 0];
            cx.expect_ok("hipSetValidDevices([last, 0]) on a fresh thread", call(&mut l, 2)?)?;
            let mut d = -1;
            setup("hipGetDevice", hip.hipGetDevice(&mut d))?;
            cx.ensure("the first listed device is current", d == n - 1, n - 1, d)
        })
        .join()
        .unwrap_or_else(|_| Err(Failure::Setup("the thread panicked".into())))
    })
}
