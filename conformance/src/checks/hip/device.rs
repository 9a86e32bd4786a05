//! [HIP-INIT-005](vmmkit_sys::hip::rules::INIT_005) … 007: contexts, device limits and flags,
//! hipDeviceReset, hipSetValidDevices.

use std::ptr;

use vmmkit_sys::hip::*;

use crate::hip::{Ctx, setup};
use crate::outcome::Failure;

/// An optional entry point the backend lacks: not supported there.
fn missing(name: &str) -> Failure {
    Failure::NotSupported(format!("the library has no {name}"))
}

/// [HIP-INIT-005](vmmkit_sys::hip::rules::INIT_005): on a fresh thread (an empty context stack) hipCtxPopCurrent
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

/// [HIP-INIT-006](vmmkit_sys::hip::rules::INIT_006): a stack over 128 KiB − 16 and a heap of the whole memory
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

/// [HIP-INIT-007](vmmkit_sys::hip::rules::INIT_007): on the last device, a stream and an allocation are gone
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

/// [HIP-INIT-008](vmmkit_sys::hip::rules::INIT_008): 6.x answers 801; 7.x checks the list (len 0 is 0, NULL or
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

/// The PCI address of device `d` of this process.
fn bus_of(cx: &Ctx, d: i32) -> Result<String, Failure> {
    let mut bus = [0 as std::ffi::c_char; 32];
    setup("hipDeviceGetPCIBusId", cx.hip().hipDeviceGetPCIBusId(bus.as_mut_ptr(), bus.len() as i32, d))?;
    let bytes: Vec<u8> = bus.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// [HIP-INIT-009](vmmkit_sys::hip::rules::INIT_009): this process (every device) shares 1 MiB of device 2
/// through IPC. A peer that sees `HIP_VISIBLE_DEVICES=2` has one device,
/// device 2's PCI address, and reads the memory there; one that sees
/// `ROCR_VISIBLE_DEVICES=1,2` and `HIP_VISIBLE_DEVICES=0,1,0,9,1` (ROCr
/// keeps 1 and 2; clr takes 1, then 2, skips the repeat, stops at 9) sees
/// devices 1 and 2, opens the memory on its device 1 (the physical device it
/// lives on: the pointer's device is 1) and reads it; lists that leave nothing (`HIP_VISIBLE_DEVICES=01`,
/// `ROCR_VISIBLE_DEVICES=` set and empty) make hipGetDeviceCount 100.
pub fn visible_devices(cx: &mut Ctx) -> Result<(), Failure> {
    use crate::hip::peer::{Peer, Request, ipc_bytes};
    const SIZE: usize = 1 << 20;
    let buses: Vec<String> = (0..3).map(|d| bus_of(cx, d)).collect::<Result<_, _>>()?;
    cx.device(2)?;
    let p = cx.malloc(SIZE)?;
    cx.write(p, SIZE, 83)?;
    let mut h = hipIpcMemHandle_t::default();
    setup("hipIpcGetMemHandle", cx.hip().hipIpcGetMemHandle(&mut h, p))?;
    let handle = ipc_bytes(&h);
    // (the peer's environment, the physical devices it sees, the device it opens on)
    type List<'a> = (&'a [(&'a str, &'a str)], &'a [usize], i32);
    let lists: [List<'_>; 2] = [
        (&[("HIP_VISIBLE_DEVICES", "2")], &[2], 0),
        (&[("ROCR_VISIBLE_DEVICES", "1,2"), ("HIP_VISIBLE_DEVICES", "0,1,0,9,1")], &[1, 2], 1),
    ];
    for (env, seen, on) in lists {
        let launcher = cx.launcher().with_env(env);
        let mut peer = Peer::unstarted(&launcher, "masked")?;
        let r = peer.call(&Request::Devices { ptr: 0 })?;
        cx.expect_ok(&format!("peer with {env:?}: hipGetDeviceCount"), r.vendor_code())?;
        let want: Vec<&str> = seen.iter().map(|&d| buses[d].as_str()).collect();
        cx.ensure(
            &format!("peer with {env:?}: its devices' PCI addresses"),
            r.text == want.join(","),
            want.join(","),
            &r.text,
        )?;
        peer.setup(&Request::Start { device: on })?;
        let r = peer.call(&Request::IpcOpen { handle: handle.clone(), flags: hipIpcMemLazyEnablePeerAccess })?;
        cx.expect_ok(&format!("peer with {env:?}: hipIpcOpenMemHandle"), r.vendor_code())?;
        let ptr = r.value;
        let r = peer.setup(&Request::Verify { ptr, len: SIZE as u64, seed: 83 })?;
        cx.ensure(&format!("peer with {env:?} reads the memory"), r.value == 1, "pattern 83", &r.text)?;
        let r = peer.setup(&Request::Devices { ptr })?;
        let at = r.text.rsplit('@').next().unwrap_or_default().to_owned();
        cx.ensure(
            &format!("peer with {env:?}: the opened pointer's device"),
            at == on.to_string(),
            on.to_string(),
            at,
        )?;
        peer.setup(&Request::IpcClose { ptr })?;
        peer.exit()?;
    }
    for env in [&[("HIP_VISIBLE_DEVICES", "01")][..], &[("ROCR_VISIBLE_DEVICES", "")][..]] {
        let mut peer = Peer::unstarted(&cx.launcher().with_env(env), "no device")?;
        let r = peer.call(&Request::Devices { ptr: 0 })?;
        cx.expect_code(&format!("peer with {env:?}: hipGetDeviceCount"), r.vendor_code())?;
        peer.exit()?;
    }
    cx.free(p)
}

/// [HIP-INIT-002](vmmkit_sys::hip::rules::INIT_002): a peer that sees no device (`ROCR_VISIBLE_DEVICES` set and
/// empty) gets 100 from every call, before any argument is looked at:
/// hipGetDeviceCount, hipSetDevice, hipIpcOpenMemHandle of a live handle,
/// hipMemcpy and hipIpcCloseMemHandle.
pub fn no_device(cx: &mut Ctx) -> Result<(), Failure> {
    use crate::hip::peer::{Peer, Request, ipc_bytes};
    cx.device(0)?;
    let p = cx.malloc(4096)?;
    let mut h = hipIpcMemHandle_t::default();
    setup("hipIpcGetMemHandle", cx.hip().hipIpcGetMemHandle(&mut h, p))?;
    let launcher = cx.launcher().with_env(&[("ROCR_VISIBLE_DEVICES", "")]);
    let mut peer = Peer::unstarted(&launcher, "no device")?;
    let at = p as usize as u64;
    let calls = [
        ("hipGetDeviceCount", Request::Devices { ptr: 0 }),
        ("hipSetDevice(0)", Request::Start { device: 0 }),
        (
            "hipIpcOpenMemHandle(a live handle)",
            Request::IpcOpen { handle: ipc_bytes(&h), flags: hipIpcMemLazyEnablePeerAccess },
        ),
        ("hipMemcpy(device to host)", Request::Verify { ptr: at, len: 8, seed: 0 }),
        ("hipIpcCloseMemHandle", Request::IpcClose { ptr: at }),
    ];
    for (what, req) in calls {
        let r = peer.call(&req)?;
        cx.expect_code(&format!("peer with no device: {what}"), r.vendor_code())?;
    }
    peer.exit()?;
    cx.free(p)
}
