//! The unsynchronised-access report, scenario by scenario, for ACL, HIP and
//! CUDA: each ordering primitive in its race-free use (no report, in every
//! `VMMKIT_STREAMS` mode) and the same program with the ordering removed
//! (a report, every time, under `async` and `adversarial`). The scenarios
//! are written once against [`Vendor`]; each vendor's table implements it.
//! `the_scenario_table` prints the table with its counts (docs/streams.md).

mod common;

use std::ffi::c_void;
use std::io::Write;
use std::ptr::null_mut;

use common::isolated;
use common::worker::Worker;
use vmmkit_emulator::core::emulator;
use vmmkit_sys::acl::*;
use vmmkit_sys::cuda::*;
use vmmkit_sys::hip::*;

/// Bytes each scenario's buffers hold.
const N: usize = 4096;
/// Rounds of each racy program per mode: reported in every one.
const ROUNDS: usize = 3;
const MODES: [&str; 3] = ["eager", "async", "adversarial:11"];
/// Where a child appends its rows (a file in the parent's own root).
const ROWS_ENV: &str = "VMMKIT_HAZARD_ROWS";
/// The vendor a child runs.
const VENDOR_ENV: &str = "VMMKIT_HAZARD_VENDOR";

/// A stream or an event, as the C ABI passes it.
type H = usize;

/// The stream calls the scenarios make, by what they do.
trait Vendor {
    const NAME: &'static str;
    fn open() -> Self;
    /// `N` bytes of device memory.
    fn alloc(&self) -> usize;
    /// A stream not ordered with any other (ACL's streams; HIP's and CUDA's non-blocking ones).
    fn stream(&self) -> H;
    /// A stream ordered with the legacy (NULL) stream, and that stream;
    /// `None` where the vendor has no legacy stream (ACL).
    fn blocking_and_legacy(&self) -> Option<(H, H)>;
    fn copy_d2d(&self, dst: usize, src: usize, s: H);
    /// The code `VMMKIT_HAZARDS=error` fails a racing call with.
    const RACE: i64;
    /// A synchronous copy from device memory to the host.
    fn read(&self, src: usize) -> Vec<u8> {
        let mut out = vec![0u8; N];
        let rc = self.try_read(&mut out, src);
        assert_eq!(rc, 0, "read: {}", vmmkit_emulator::core::thread::message());
        out
    }
    /// The same, returning the call's code.
    fn try_read(&self, out: &mut [u8], src: usize) -> i64;
    /// A device synchronize, returning its code.
    fn try_sync_device(&self) -> i64;
    /// A synchronous copy from the host to device memory.
    fn write(&self, dst: usize, data: &[u8]);
    fn sync_stream(&self, s: H);
    fn sync_device(&self);
    fn event(&self) -> H;
    fn record(&self, e: H, s: H);
    fn wait(&self, s: H, e: H);
    fn sync_event(&self, e: H);
    /// Enqueues `f(data)` on `s`; false where the vendor's host functions
    /// need more than the stream (ACL's report thread: not in the table).
    fn host_fn(&self, s: H, f: extern "C" fn(*mut c_void), data: *mut c_void) -> bool;
    /// A notify record on `s1` and a wait-and-reset on `s2`; `None` where
    /// the vendor has no notifies (HIP, CUDA).
    fn notify(&self) -> Option<H>;
    fn notify_record(&self, n: H, s: H);
    fn notify_wait(&self, n: H, s: H);
    /// Shares device memory `x` (from [`Vendor::alloc`]) with other
    /// processes: the key (or handle, in hex) they open it with.
    fn export(&self, x: usize) -> String;
    /// Opens memory another process shared.
    fn import(&self, key: &str) -> usize;
    /// Lets go of memory shared with `key`: the importer's mapping at `x`
    /// (`imported`), or the exporter's share and memory.
    fn close(&self, key: &str, x: usize, imported: bool);
    /// An interprocess event and its handle (in hex).
    fn ipc_event(&self) -> (H, String);
    /// Opens another process's interprocess event.
    fn open_event(&self, key: &str) -> H;
    /// A notify other processes may open, and its key; `None` where the
    /// vendor has no notifies.
    fn ipc_notify(&self) -> Option<(H, String)>;
    /// Opens another process's notify.
    fn open_notify(&self, key: &str) -> H;
    /// Destroys an event, or a notify.
    fn destroy(&self, e: H, notify: bool);
}

/// A handle's bytes in hex, to pass between processes.
fn to_hex(bytes: &[std::ffi::c_char]) -> String {
    bytes.iter().map(|&b| format!("{:02x}", b as u8)).collect()
}

/// Bytes from [`to_hex`].
fn from_hex(hex: &str, out: &mut [std::ffi::c_char]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex") as std::ffi::c_char;
    }
}

/// A key string as a C string.
fn c_key(key: &str) -> std::ffi::CString {
    std::ffi::CString::new(key).expect("no NUL")
}

/// The text of a C key buffer.
fn key_text(buf: &[std::ffi::c_char]) -> String {
    // SAFETY: the vendor wrote a NUL-terminated key into the buffer.
    unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned()
}

fn f<T>(o: Option<T>) -> T {
    o.expect("in the table")
}

struct Acl(AclApi);

fn acl_ok(what: &str, rc: aclError) {
    assert_eq!(AclError(rc), AclError::SUCCESS, "{what}: {}", vmmkit_emulator::core::thread::message());
}

impl Vendor for Acl {
    const NAME: &'static str = "ACL";
    fn open() -> Self {
        let a = vmmkit_emulator::acl::api();
        // SAFETY: plain values.
        acl_ok("set device", unsafe { (a.aclrtSetDevice)(0) });
        Self(a)
    }
    fn alloc(&self) -> usize {
        let mut p = null_mut();
        // SAFETY: an out-pointer to a local.
        acl_ok("malloc", unsafe { (self.0.aclrtMalloc)(&mut p, N, ACL_MEM_MALLOC_HUGE_FIRST) });
        p as usize
    }
    fn stream(&self) -> H {
        let mut s: aclrtStream = null_mut();
        // SAFETY: an out-pointer to a local.
        acl_ok("create stream", unsafe { (self.0.aclrtCreateStream)(&mut s) });
        s as H
    }
    fn blocking_and_legacy(&self) -> Option<(H, H)> {
        None
    }
    fn copy_d2d(&self, dst: usize, src: usize, s: H) {
        let k = ACL_MEMCPY_DEVICE_TO_DEVICE;
        // SAFETY: device addresses.
        acl_ok("copy d2d", unsafe { (self.0.aclrtMemcpyAsync)(dst as _, N, src as _, N, k, s as _) });
    }
    const RACE: i64 = AclError::RT_STREAM_NOT_COMPLETE.0 as i64;
    fn try_read(&self, out: &mut [u8], src: usize) -> i64 {
        let k = ACL_MEMCPY_DEVICE_TO_HOST;
        // SAFETY: a live buffer of N bytes.
        i64::from(unsafe { (self.0.aclrtMemcpy)(out.as_mut_ptr().cast(), N, src as _, N, k) })
    }
    fn try_sync_device(&self) -> i64 {
        // SAFETY: no arguments.
        i64::from(unsafe { (self.0.aclrtSynchronizeDevice)() })
    }
    fn write(&self, dst: usize, data: &[u8]) {
        let k = ACL_MEMCPY_HOST_TO_DEVICE;
        // SAFETY: a live buffer of N bytes.
        acl_ok("write", unsafe { (self.0.aclrtMemcpy)(dst as _, N, data.as_ptr().cast(), N, k) });
    }
    fn sync_stream(&self, s: H) {
        // SAFETY: a stream of this table.
        acl_ok("sync stream", unsafe { (self.0.aclrtSynchronizeStream)(s as _) });
    }
    fn sync_device(&self) {
        // SAFETY: no arguments.
        acl_ok("sync device", unsafe { (self.0.aclrtSynchronizeDevice)() });
    }
    fn event(&self) -> H {
        let mut e: aclrtEvent = null_mut();
        // SAFETY: an out-pointer to a local.
        acl_ok("create event", unsafe { f(self.0.aclrtCreateEvent)(&mut e) });
        e as H
    }
    fn record(&self, e: H, s: H) {
        // SAFETY: handles of this table.
        acl_ok("record", unsafe { f(self.0.aclrtRecordEvent)(e as _, s as _) });
    }
    fn wait(&self, s: H, e: H) {
        // SAFETY: handles of this table.
        acl_ok("wait", unsafe { f(self.0.aclrtStreamWaitEvent)(s as _, e as _) });
    }
    fn sync_event(&self, e: H) {
        // SAFETY: an event of this table.
        acl_ok("sync event", unsafe { f(self.0.aclrtSynchronizeEvent)(e as _) });
    }
    fn host_fn(&self, s: H, func: extern "C" fn(*mut c_void), data: *mut c_void) -> bool {
        // ACL runs callbacks on a thread that reports for the stream.
        // SAFETY: plain values; `func` runs with `data`, which the scenario keeps alive.
        unsafe {
            acl_ok("subscribe", f(self.0.aclrtSubscribeReport)(acl_report_thread(), s as _));
            acl_ok("callback", f(self.0.aclrtLaunchCallback)(Some(func), data, ACL_CALLBACK_BLOCK, s as _));
        }
        true
    }
    fn notify(&self) -> Option<H> {
        let mut n: aclrtNotify = null_mut();
        // SAFETY: an out-pointer to a local.
        acl_ok("create notify", unsafe { f(self.0.aclrtCreateNotify)(&mut n, 0) });
        Some(n as H)
    }
    fn notify_record(&self, n: H, s: H) {
        // SAFETY: handles of this table.
        acl_ok("record notify", unsafe { f(self.0.aclrtRecordNotify)(n as _, s as _) });
    }
    fn notify_wait(&self, n: H, s: H) {
        // SAFETY: handles of this table.
        acl_ok("wait notify", unsafe { f(self.0.aclrtWaitAndResetNotify)(n as _, s as _, 0) });
    }
    fn export(&self, x: usize) -> String {
        let mut key = [0 as std::ffi::c_char; 65];
        let any = ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
        // SAFETY: device memory of N bytes; a key buffer of its length.
        acl_ok("ipc export", unsafe { (self.0.aclrtIpcMemGetExportKey)(x as _, N, key.as_mut_ptr(), key.len(), any) });
        key_text(&key)
    }
    fn import(&self, key: &str) -> usize {
        let mut p = null_mut();
        // SAFETY: a NUL-terminated key and an out-pointer to a local.
        acl_ok("ipc import", unsafe { (self.0.aclrtIpcMemImportByKey)(&mut p, c_key(key).as_ptr(), 0) });
        p as usize
    }
    fn close(&self, key: &str, x: usize, imported: bool) {
        // SAFETY: a NUL-terminated key; memory of this table.
        unsafe {
            acl_ok("ipc close", (self.0.aclrtIpcMemClose)(c_key(key).as_ptr()));
            if !imported {
                acl_ok("free", (self.0.aclrtFree)(x as _));
            }
        }
    }
    fn ipc_event(&self) -> (H, String) {
        let mut e: aclrtEvent = null_mut();
        let mut h = aclrtIpcEventHandle { reserved: [0; ACL_IPC_EVENT_HANDLE_SIZE] };
        // SAFETY: out-pointers to locals.
        unsafe {
            acl_ok("ipc event", f(self.0.aclrtCreateEventExWithFlag)(&mut e, ACL_EVENT_IPC));
            acl_ok("ipc event handle", f(self.0.aclrtIpcGetEventHandle)(e, &mut h));
        }
        (e as H, to_hex(&h.reserved))
    }
    fn open_event(&self, key: &str) -> H {
        let mut h = aclrtIpcEventHandle { reserved: [0; ACL_IPC_EVENT_HANDLE_SIZE] };
        from_hex(key, &mut h.reserved);
        let mut e: aclrtEvent = null_mut();
        // SAFETY: a handle by value and an out-pointer to a local.
        acl_ok("open ipc event", unsafe { f(self.0.aclrtIpcOpenEventHandle)(h, &mut e) });
        e as H
    }
    fn ipc_notify(&self) -> Option<(H, String)> {
        let n = self.notify()?;
        let mut key = [0 as std::ffi::c_char; 65];
        let any = ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION;
        // SAFETY: a notify of this table; a key buffer of its length.
        acl_ok("notify key", unsafe { f(self.0.aclrtNotifyGetExportKey)(n as _, key.as_mut_ptr(), key.len(), any) });
        Some((n, key_text(&key)))
    }
    fn open_notify(&self, key: &str) -> H {
        let mut n: aclrtNotify = null_mut();
        let k = c_key(key);
        // SAFETY: a NUL-terminated key and an out-pointer to a local.
        acl_ok("notify import", unsafe {
            f(self.0.aclrtNotifyImportByKey)(&mut n, k.as_ptr(), ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT)
        });
        n as H
    }
    fn destroy(&self, e: H, notify: bool) {
        if notify {
            // SAFETY: a notify of this table.
            acl_ok("destroy notify", unsafe { f(self.0.aclrtDestroyNotify)(e as _) });
        } else {
            // SAFETY: an event of this table.
            acl_ok("destroy event", unsafe { f(self.0.aclrtDestroyEvent)(e as _) });
        }
    }
}

/// The thread of this process that runs ACL callbacks (aclrtProcessReport
/// in a loop, until the process ends), started at first use.
fn acl_report_thread() -> u64 {
    static THREAD: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *THREAD.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let a = vmmkit_emulator::acl::api();
            // SAFETY: pthread_self has no preconditions.
            tx.send(unsafe { libc::pthread_self() } as u64).expect("send");
            loop {
                // SAFETY: a plain value.
                if unsafe { f(a.aclrtProcessReport)(20) } != 0 {
                    std::thread::sleep(std::time::Duration::from_millis(1));
                }
            }
        });
        rx.recv().expect("report thread")
    })
}

struct Hip(HipApi);

fn hip_ok(what: &str, rc: hipError_t) {
    assert_eq!(HipError(rc), HipError::SUCCESS, "{what}: {}", vmmkit_emulator::core::thread::message());
}

impl Vendor for Hip {
    const NAME: &'static str = "HIP";
    fn open() -> Self {
        Self(vmmkit_emulator::hip::api())
    }
    fn alloc(&self) -> usize {
        let mut p = null_mut();
        // SAFETY: an out-pointer to a local.
        hip_ok("malloc", unsafe { (self.0.hipMalloc)(&mut p, N) });
        p as usize
    }
    fn stream(&self) -> H {
        let mut s = null_mut();
        // SAFETY: an out-pointer to a local.
        hip_ok("stream", unsafe { (self.0.hipStreamCreateWithFlags)(&mut s, hipStreamNonBlocking) });
        s as H
    }
    fn blocking_and_legacy(&self) -> Option<(H, H)> {
        let mut s = null_mut();
        // SAFETY: an out-pointer to a local.
        hip_ok("stream", unsafe { (self.0.hipStreamCreateWithFlags)(&mut s, hipStreamDefault) });
        Some((s as H, 0))
    }
    fn copy_d2d(&self, dst: usize, src: usize, s: H) {
        let k = hipMemcpyDeviceToDevice;
        // SAFETY: device addresses.
        hip_ok("copy d2d", unsafe { (self.0.hipMemcpyAsync)(dst as _, src as _, N, k, s as _) });
    }
    const RACE: i64 = HipError::ILLEGAL_STATE.0 as i64;
    fn try_read(&self, out: &mut [u8], src: usize) -> i64 {
        // SAFETY: a live buffer of N bytes.
        i64::from(unsafe { (self.0.hipMemcpy)(out.as_mut_ptr().cast(), src as _, N, hipMemcpyDeviceToHost) })
    }
    fn try_sync_device(&self) -> i64 {
        // SAFETY: no arguments.
        i64::from(unsafe { (self.0.hipDeviceSynchronize)() })
    }
    fn write(&self, dst: usize, data: &[u8]) {
        // SAFETY: a live buffer of N bytes.
        hip_ok("write", unsafe { (self.0.hipMemcpy)(dst as _, data.as_ptr().cast(), N, hipMemcpyHostToDevice) });
    }
    fn sync_stream(&self, s: H) {
        // SAFETY: a stream of this table.
        hip_ok("sync stream", unsafe { (self.0.hipStreamSynchronize)(s as _) });
    }
    fn sync_device(&self) {
        // SAFETY: no arguments.
        hip_ok("sync device", unsafe { (self.0.hipDeviceSynchronize)() });
    }
    fn event(&self) -> H {
        let mut e = null_mut();
        // SAFETY: an out-pointer to a local.
        hip_ok("event", unsafe { (self.0.hipEventCreateWithFlags)(&mut e, 0) });
        e as H
    }
    fn record(&self, e: H, s: H) {
        // SAFETY: handles of this table.
        hip_ok("record", unsafe { (self.0.hipEventRecord)(e as _, s as _) });
    }
    fn wait(&self, s: H, e: H) {
        // SAFETY: handles of this table.
        hip_ok("wait", unsafe { (self.0.hipStreamWaitEvent)(s as _, e as _, 0) });
    }
    fn sync_event(&self, e: H) {
        // SAFETY: an event of this table.
        hip_ok("sync event", unsafe { (self.0.hipEventSynchronize)(e as _) });
    }
    fn host_fn(&self, s: H, func: extern "C" fn(*mut c_void), data: *mut c_void) -> bool {
        // SAFETY: `func` runs with `data`, which the scenario keeps alive.
        hip_ok("host fn", unsafe { f(self.0.hipLaunchHostFunc)(s as _, Some(func), data) });
        true
    }
    fn notify(&self) -> Option<H> {
        None
    }
    fn notify_record(&self, _n: H, _s: H) {}
    fn notify_wait(&self, _n: H, _s: H) {}
    fn export(&self, x: usize) -> String {
        let mut h = hipIpcMemHandle_t { reserved: [0; HIP_IPC_HANDLE_SIZE] };
        // SAFETY: device memory; an out-pointer to a local.
        hip_ok("ipc handle", unsafe { (self.0.hipIpcGetMemHandle)(&mut h, x as _) });
        to_hex(&h.reserved)
    }
    fn import(&self, key: &str) -> usize {
        let mut h = hipIpcMemHandle_t { reserved: [0; HIP_IPC_HANDLE_SIZE] };
        from_hex(key, &mut h.reserved);
        let mut p = null_mut();
        // SAFETY: a handle by value and an out-pointer to a local.
        hip_ok("ipc open", unsafe { (self.0.hipIpcOpenMemHandle)(&mut p, h, hipIpcMemLazyEnablePeerAccess) });
        p as usize
    }
    fn close(&self, _key: &str, x: usize, imported: bool) {
        if imported {
            // SAFETY: memory this table opened.
            hip_ok("ipc close", unsafe { (self.0.hipIpcCloseMemHandle)(x as _) });
        } else {
            // SAFETY: memory this table allocated.
            hip_ok("free", unsafe { (self.0.hipFree)(x as _) });
        }
    }
    fn ipc_event(&self) -> (H, String) {
        let mut e = null_mut();
        let mut h = hipIpcEventHandle_t { reserved: [0; HIP_IPC_HANDLE_SIZE] };
        // SAFETY: out-pointers to locals.
        unsafe {
            hip_ok("ipc event", (self.0.hipEventCreateWithFlags)(&mut e, hipEventDisableTiming | hipEventInterprocess));
            hip_ok("ipc event handle", (self.0.hipIpcGetEventHandle)(&mut h, e));
        }
        (e as H, to_hex(&h.reserved))
    }
    fn open_event(&self, key: &str) -> H {
        let mut h = hipIpcEventHandle_t { reserved: [0; HIP_IPC_HANDLE_SIZE] };
        from_hex(key, &mut h.reserved);
        let mut e = null_mut();
        // SAFETY: a handle by value and an out-pointer to a local.
        hip_ok("open ipc event", unsafe { (self.0.hipIpcOpenEventHandle)(&mut e, h) });
        e as H
    }
    fn ipc_notify(&self) -> Option<(H, String)> {
        None
    }
    fn open_notify(&self, _key: &str) -> H {
        0
    }
    fn destroy(&self, e: H, _notify: bool) {
        // SAFETY: an event of this table.
        hip_ok("destroy event", unsafe { (self.0.hipEventDestroy)(e as _) });
    }
}

struct Cuda(CudaApi);

fn cu_ok(what: &str, rc: CUresult) {
    assert_eq!(CuResult(rc), CuResult::SUCCESS, "{what}: {}", vmmkit_emulator::core::thread::message());
}

impl Vendor for Cuda {
    const NAME: &'static str = "CUDA";
    fn open() -> Self {
        let a = vmmkit_emulator::cuda::api();
        let mut ctx = null_mut();
        // SAFETY: plain values and an out-pointer to a local.
        unsafe {
            cu_ok("init", (a.cuInit)(0));
            cu_ok("retain", (a.cuDevicePrimaryCtxRetain)(&mut ctx, 0));
            cu_ok("current", (a.cuCtxSetCurrent)(ctx));
        }
        Self(a)
    }
    fn alloc(&self) -> usize {
        let mut p = 0;
        // SAFETY: an out-pointer to a local.
        cu_ok("alloc", unsafe { (self.0.cuMemAlloc)(&mut p, N) });
        p as usize
    }
    fn stream(&self) -> H {
        let mut s = null_mut();
        // SAFETY: an out-pointer to a local.
        cu_ok("stream", unsafe { (self.0.cuStreamCreate)(&mut s, CU_STREAM_NON_BLOCKING) });
        s as H
    }
    fn blocking_and_legacy(&self) -> Option<(H, H)> {
        let mut s = null_mut();
        // SAFETY: an out-pointer to a local.
        cu_ok("stream", unsafe { (self.0.cuStreamCreate)(&mut s, CU_STREAM_DEFAULT) });
        Some((s as H, 0))
    }
    fn copy_d2d(&self, dst: usize, src: usize, s: H) {
        // SAFETY: device addresses.
        cu_ok("copy d2d", unsafe { (self.0.cuMemcpyDtoDAsync)(dst as _, src as _, N, s as _) });
    }
    const RACE: i64 = CuResult::ILLEGAL_STATE.0 as i64;
    fn try_read(&self, out: &mut [u8], src: usize) -> i64 {
        // SAFETY: a live buffer of N bytes.
        i64::from(unsafe { (self.0.cuMemcpyDtoH)(out.as_mut_ptr().cast(), src as _, N) })
    }
    fn try_sync_device(&self) -> i64 {
        // SAFETY: no arguments.
        i64::from(unsafe { (self.0.cuCtxSynchronize)() })
    }
    fn write(&self, dst: usize, data: &[u8]) {
        // SAFETY: a live buffer of N bytes.
        cu_ok("write", unsafe { (self.0.cuMemcpyHtoD)(dst as _, data.as_ptr().cast(), N) });
    }
    fn sync_stream(&self, s: H) {
        // SAFETY: a stream of this table.
        cu_ok("sync stream", unsafe { (self.0.cuStreamSynchronize)(s as _) });
    }
    fn sync_device(&self) {
        // SAFETY: no arguments.
        cu_ok("sync device", unsafe { (self.0.cuCtxSynchronize)() });
    }
    fn event(&self) -> H {
        let mut e = null_mut();
        // SAFETY: an out-pointer to a local.
        cu_ok("event", unsafe { (self.0.cuEventCreate)(&mut e, 0) });
        e as H
    }
    fn record(&self, e: H, s: H) {
        // SAFETY: handles of this table.
        cu_ok("record", unsafe { (self.0.cuEventRecord)(e as _, s as _) });
    }
    fn wait(&self, s: H, e: H) {
        // SAFETY: handles of this table.
        cu_ok("wait", unsafe { (self.0.cuStreamWaitEvent)(s as _, e as _, 0) });
    }
    fn sync_event(&self, e: H) {
        // SAFETY: an event of this table.
        cu_ok("sync event", unsafe { (self.0.cuEventSynchronize)(e as _) });
    }
    fn host_fn(&self, s: H, func: extern "C" fn(*mut c_void), data: *mut c_void) -> bool {
        // SAFETY: `func` runs with `data`, which the scenario keeps alive.
        cu_ok("host fn", unsafe { (self.0.cuLaunchHostFunc)(s as _, Some(func), data) });
        true
    }
    fn notify(&self) -> Option<H> {
        None
    }
    fn notify_record(&self, _n: H, _s: H) {}
    fn notify_wait(&self, _n: H, _s: H) {}
    fn export(&self, x: usize) -> String {
        let mut h = CUipcMemHandle { reserved: [0; CU_IPC_HANDLE_SIZE] };
        // SAFETY: device memory; an out-pointer to a local.
        cu_ok("ipc handle", unsafe { (self.0.cuIpcGetMemHandle)(&mut h, x as _) });
        to_hex(&h.reserved)
    }
    fn import(&self, key: &str) -> usize {
        let mut h = CUipcMemHandle { reserved: [0; CU_IPC_HANDLE_SIZE] };
        from_hex(key, &mut h.reserved);
        let mut p = 0;
        // SAFETY: a handle by value and an out-pointer to a local.
        cu_ok("ipc open", unsafe { (self.0.cuIpcOpenMemHandle)(&mut p, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS) });
        p as usize
    }
    fn close(&self, _key: &str, x: usize, imported: bool) {
        if imported {
            // SAFETY: memory this table opened.
            cu_ok("ipc close", unsafe { (self.0.cuIpcCloseMemHandle)(x as _) });
        } else {
            // SAFETY: memory this table allocated.
            cu_ok("free", unsafe { (self.0.cuMemFree)(x as _) });
        }
    }
    fn ipc_event(&self) -> (H, String) {
        let mut e = null_mut();
        let mut h = CUipcEventHandle { reserved: [0; CU_IPC_HANDLE_SIZE] };
        // SAFETY: out-pointers to locals.
        unsafe {
            cu_ok("ipc event", (self.0.cuEventCreate)(&mut e, CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS));
            cu_ok("ipc event handle", (self.0.cuIpcGetEventHandle)(&mut h, e));
        }
        (e as H, to_hex(&h.reserved))
    }
    fn open_event(&self, key: &str) -> H {
        let mut h = CUipcEventHandle { reserved: [0; CU_IPC_HANDLE_SIZE] };
        from_hex(key, &mut h.reserved);
        let mut e = null_mut();
        // SAFETY: a handle by value and an out-pointer to a local.
        cu_ok("open ipc event", unsafe { (self.0.cuIpcOpenEventHandle)(&mut e, h) });
        e as H
    }
    fn ipc_notify(&self) -> Option<(H, String)> {
        None
    }
    fn open_notify(&self, _key: &str) -> H {
        0
    }
    fn destroy(&self, e: H, _notify: bool) {
        // SAFETY: an event of this table.
        cu_ok("destroy event", unsafe { (self.0.cuEventDestroy)(e as _) });
    }
}

/// `N` bytes of device memory holding `b` (written by the host before any
/// work that reads it is enqueued: ordered).
fn filled<V: Vendor>(v: &V, b: u8) -> usize {
    let x = v.alloc();
    v.write(x, &[b; N]);
    x
}

/// What a host function reads: a device buffer, copied by the host.
struct HostRead {
    src: usize,
}

extern "C" fn host_read(data: *mut c_void) {
    // SAFETY: `data` is the scenario's `HostRead`, alive until its streams are synchronised.
    let r = unsafe { &*data.cast::<HostRead>() };
    let mut out = vec![0u8; N];
    // SAFETY: `out` holds N bytes; `src` is device memory of N bytes.
    let _ = unsafe { emulator().expect("emulator").copy(out.as_mut_ptr() as usize, r.src, N) };
}

/// The scenarios: a name, and a program that orders its accesses with the
/// primitive when `ordered`, and leaves the ordering out when not. `None`:
/// the vendor has no such primitive.
type Scenario<V> = (&'static str, fn(&V, bool) -> Option<()>);

fn scenarios<V: Vendor>() -> Vec<Scenario<V>> {
    vec![
        ("stream order (one stream, or two)", |v, ordered| {
            let (s1, s2) = (v.stream(), v.stream());
            let (x, y) = (v.alloc(), v.alloc());
            let src = filled(v, 1);
            v.copy_d2d(x, src, s1);
            v.copy_d2d(y, x, if ordered { s1 } else { s2 });
            v.sync_device();
            Some(())
        }),
        ("event record -> stream wait (the eleven-line program)", |v, ordered| {
            // Stream 1 copies into x and records an event; stream 2 waits
            // on it, then copies into x; the host synchronises stream 2 and reads.
            let (s1, s2, e) = (v.stream(), v.stream(), v.event());
            let x = v.alloc();
            let (one, two) = (filled(v, 1), filled(v, 2));
            v.copy_d2d(x, one, s1);
            v.record(e, s1);
            if ordered {
                v.wait(s2, e);
            }
            v.copy_d2d(x, two, s2);
            v.sync_stream(s2);
            let got = v.read(x);
            if ordered {
                assert!(got.iter().all(|&b| b == 2), "the host reads 2");
            }
            v.sync_device();
            Some(())
        }),
        ("stream synchronize", |v, ordered| {
            let s = v.stream();
            let x = v.alloc();
            let src = filled(v, 3);
            v.copy_d2d(x, src, s);
            if ordered {
                v.sync_stream(s);
            }
            v.read(x);
            v.sync_device();
            Some(())
        }),
        ("event synchronize", |v, ordered| {
            let (s, e) = (v.stream(), v.event());
            let x = v.alloc();
            let src = filled(v, 4);
            v.copy_d2d(x, src, s);
            v.record(e, s);
            if ordered {
                v.sync_event(e);
            }
            v.read(x);
            v.sync_device();
            Some(())
        }),
        ("device synchronize", |v, ordered| {
            let s = v.stream();
            let x = v.alloc();
            let src = filled(v, 5);
            v.copy_d2d(x, src, s);
            if ordered {
                v.sync_device();
            }
            v.read(x);
            v.sync_device();
            Some(())
        }),
        ("host write after a stream's read (write-after-read)", |v, ordered| {
            let s = v.stream();
            let x = v.alloc();
            let y = v.alloc();
            v.copy_d2d(y, x, s);
            if ordered {
                v.sync_stream(s);
            }
            v.write(x, &[6u8; N]);
            v.sync_device();
            Some(())
        }),
        ("legacy (NULL) stream", |v, ordered| {
            let (blocking, legacy) = v.blocking_and_legacy()?;
            let s = if ordered { blocking } else { v.stream() };
            let (x, y) = (v.alloc(), v.alloc());
            let src = filled(v, 7);
            v.copy_d2d(x, src, s);
            v.copy_d2d(y, x, legacy);
            v.sync_device();
            Some(())
        }),
        ("host function in stream order", |v, ordered| {
            let (s1, s2) = (v.stream(), v.stream());
            let x = v.alloc();
            let src = filled(v, 8);
            let r = Box::new(HostRead { src: x });
            v.copy_d2d(x, src, s1);
            let data = (&*r as *const HostRead).cast_mut().cast();
            if !v.host_fn(if ordered { s1 } else { s2 }, host_read, data) {
                return None;
            }
            v.sync_device();
            drop(r);
            Some(())
        }),
        ("notify record -> wait-and-reset", |v, ordered| {
            let n = v.notify()?;
            let (s1, s2) = (v.stream(), v.stream());
            let (x, y) = (v.alloc(), v.alloc());
            let src = filled(v, 9);
            v.copy_d2d(x, src, s1);
            v.notify_record(n, s1);
            if ordered {
                v.notify_wait(n, s2);
            }
            v.copy_d2d(y, x, s2);
            v.sync_device();
            Some(())
        }),
    ]
}

/// Runs every scenario of `V` in this process, `ROUNDS` times each way,
/// checks the counts and appends one row per scenario to `ROWS_ENV`'s file.
fn run_all<V: Vendor>(mode: &str) {
    let v = V::open();
    let e = emulator().expect("emulator");
    e.take_hazards();
    let mut rows = String::new();
    for (name, body) in scenarios::<V>() {
        let mut counts = [0usize; 2];
        let mut missing = false;
        for (i, ordered) in [true, false].into_iter().enumerate() {
            for _ in 0..ROUNDS {
                if body(&v, ordered).is_none() {
                    missing = true;
                }
                let h = e.take_hazards();
                if !h.is_empty() && ordered {
                    panic!("{} {mode} {name}: reported though ordered: {}", V::NAME, h[0]);
                }
                if h.is_empty() && !ordered && !missing {
                    panic!("{} {mode} {name}: the race was not reported", V::NAME);
                }
                counts[i] += usize::from(!h.is_empty());
            }
        }
        let cell = |n: usize| if missing { "n/a".to_owned() } else { format!("{n}/{ROUNDS}") };
        rows.push_str(&format!("| {} | {mode} | {name} | {} | {} |\n", V::NAME, cell(counts[0]), cell(counts[1])));
    }
    if let Some(path) = std::env::var_os(ROWS_ENV) {
        let mut f = std::fs::File::options().create(true).append(true).open(path).expect("rows");
        f.write_all(rows.as_bytes()).expect("rows");
    }
}

fn each_mode<V: Vendor>(test: &str, rows: &std::path::Path) {
    for mode in MODES {
        let rows = rows.to_string_lossy().into_owned();
        if std::env::var("VMMKIT_TEST_CHILD").is_ok()
            && (std::env::var("VMMKIT_STREAMS").ok().as_deref() != Some(mode)
                || std::env::var(VENDOR_ENV).ok().as_deref() != Some(V::NAME))
        {
            continue;
        }
        let env = [("VMMKIT_STREAMS", mode), ("VMMKIT_DEVICES", "1"), (ROWS_ENV, &rows), (VENDOR_ENV, V::NAME)];
        isolated(test, &env, |_| run_all::<V>(mode));
    }
}

#[test]
fn the_scenario_table() {
    let dir = vmmkit_testkit::root::TestRoot::new("vmmkit-test-").expect("tempdir");
    let rows = dir.scratch().join("rows.md");
    each_mode::<Acl>("the_scenario_table", &rows);
    each_mode::<Hip>("the_scenario_table", &rows);
    each_mode::<Cuda>("the_scenario_table", &rows);
    if std::env::var("VMMKIT_TEST_CHILD").is_err() {
        let table = std::fs::read_to_string(&rows).unwrap_or_default();
        println!("| vendor | VMMKIT_STREAMS | ordering | reported, ordered | reported, ordering removed |");
        println!("|---|---|---|---|---|");
        print!("{table}");
        assert_eq!(
            table.lines().count(),
            3 * MODES.len() * scenarios::<Acl>().len(),
            "a row per vendor, mode and scenario"
        );
    }
}

/// Under `VMMKIT_HAZARDS=error`: the host's racing read fails with the
/// vendor's code (and copies nothing); a race between two streams fails
/// the second work, reported by the next synchronize; ordered programs pass.
fn hazards_error<V: Vendor>() {
    let v = V::open();
    let e = emulator().expect("emulator");
    let s = v.stream();
    let x = v.alloc();
    let src = filled(&v, 0x5a);
    v.copy_d2d(x, src, s);
    let mut out = vec![0u8; N];
    assert_eq!(v.try_read(&mut out, x), V::RACE, "{}: the racing read fails", V::NAME);
    assert!(!vmmkit_emulator::core::thread::message().is_empty());
    assert_eq!(v.try_sync_device(), 0);
    assert_eq!(v.try_read(&mut out, x), 0, "{}: the synchronised read passes", V::NAME);
    assert!(out.iter().all(|&b| b == 0x5a));
    let (s1, s2, y) = (v.stream(), v.stream(), v.alloc());
    v.copy_d2d(x, src, s1);
    v.copy_d2d(y, x, s2);
    assert_eq!(v.try_sync_device(), V::RACE, "{}: the racing work fails its stream", V::NAME);
    assert_eq!(v.try_sync_device(), 0, "reported once");
    assert!(!e.take_hazards().is_empty());
}

#[test]
fn hazards_error_fails_the_racing_call() {
    for (vendor, body) in
        [("ACL", hazards_error::<Acl> as fn()), ("HIP", hazards_error::<Hip>), ("CUDA", hazards_error::<Cuda>)]
    {
        if std::env::var("VMMKIT_TEST_CHILD").is_ok() && std::env::var(VENDOR_ENV).ok().as_deref() != Some(vendor) {
            continue;
        }
        let env = [("VMMKIT_STREAMS", "adversarial:3"), ("VMMKIT_HAZARDS", "error"), (VENDOR_ENV, vendor)];
        isolated("hazards_error_fails_the_racing_call", &env, |_| body());
    }
}

/// The worker role of the two-process scenarios.
const PAIR_ROLE: &str = "hazard-pair";

/// The worker role: this binary serving one process of a two-process scenario.
#[test]
fn worker() {
    if common::worker::role().as_deref() == Some(PAIR_ROLE) {
        match std::env::var(VENDOR_ENV).as_deref() {
            Ok("ACL") => serve_pair::<Acl>(),
            Ok("HIP") => serve_pair::<Hip>(),
            Ok("CUDA") => serve_pair::<Cuda>(),
            other => panic!("no vendor named {other:?}"),
        }
    }
}

/// One process of a pair: named streams, buffers, events and notifies, made
/// and used as the parent's commands say. Each reply starts with `ok`; a
/// failed call panics, which ends the worker and fails the test.
fn serve_pair<V: Vendor>() {
    let v = V::open();
    let e = emulator().expect("emulator");
    let mut named: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    while let Some(line) = common::next_command() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let h = |i: usize| *named.get(w[i]).unwrap_or_else(|| panic!("`{line}`: no {}", w[i]));
        let mut out = String::new();
        match w[0] {
            "stream" => {
                named.insert(w[1].into(), v.stream());
            }
            "alloc" => {
                named.insert(w[1].into(), filled(&v, w[2].parse().expect("a byte")));
            }
            "export" => out = v.export(h(1)),
            "import" => {
                named.insert(w[1].into(), v.import(w[2]));
            }
            "close" => v.close(w[2], h(1), w[3] == "imported"),
            "event" => {
                let (ev, key) = v.ipc_event();
                named.insert(w[1].into(), ev);
                out = key;
            }
            "open-event" => {
                named.insert(w[1].into(), v.open_event(w[2]));
            }
            "notify" => match v.ipc_notify() {
                Some((n, key)) => {
                    named.insert(w[1].into(), n);
                    out = key;
                }
                None => out = "none".into(),
            },
            "open-notify" => {
                named.insert(w[1].into(), v.open_notify(w[2]));
            }
            "copy" => v.copy_d2d(h(1), h(2), h(3)),
            "record" => v.record(h(1), h(2)),
            "wait" => v.wait(h(1), h(2)),
            "notify-record" => v.notify_record(h(1), h(2)),
            "notify-wait" => v.notify_wait(h(1), h(2)),
            "destroy" => v.destroy(h(1), false),
            "destroy-notify" => v.destroy(h(1), true),
            "sync" => v.sync_stream(h(1)),
            "sync-event" => v.sync_event(h(1)),
            "read" => out = v.read(h(1))[0].to_string(),
            "hazards" => {
                let found = e.take_hazards();
                out = format!("{} {}", found.len(), found.first().map(ToString::to_string).unwrap_or_default());
            }
            other => panic!("unknown command {other}"),
        }
        common::reply(format!("ok {out}"));
    }
}

/// A two-process scenario: process A (`a`) and B (`b`) share `x`, made by
/// A, and order their accesses to it with the primitive when `ordered`.
/// `None`: the vendor has no such primitive.
type PairScenario = (&'static str, fn(&mut Worker, &mut Worker, &str, bool) -> Option<()>);

fn pair_scenarios() -> Vec<PairScenario> {
    vec![
        ("IPC event record -> stream wait", |a, b, _, ordered| {
            // A copies into x and records an interprocess event; B's stream
            // waits on it, then copies into x.
            let ev = a.ok("event ev");
            a.ok("copy x one sa");
            a.ok("record ev sa");
            b.ok(&format!("open-event ev {ev}"));
            if ordered {
                b.ok("wait sb ev");
            }
            b.ok("copy x two sb");
            b.ok("sync sb");
            a.ok("sync sa");
            b.ok("destroy ev");
            a.ok("destroy ev");
            Some(())
        }),
        ("IPC event record -> host synchronize", |a, b, _, ordered| {
            // A copies into x and records; B's host synchronises the event, then reads x.
            let ev = a.ok("event ev");
            a.ok("copy x one sa");
            a.ok("record ev sa");
            b.ok(&format!("open-event ev {ev}"));
            if ordered {
                b.ok("sync-event ev");
                assert_eq!(b.ok("read x"), "1", "B reads what A wrote");
            } else {
                b.ok("read x");
            }
            a.ok("sync sa");
            b.ok("destroy ev");
            a.ok("destroy ev");
            Some(())
        }),
        ("notify record -> wait-and-reset", |a, b, _, ordered| {
            let key = a.ok("notify n");
            if key == "none" {
                return None;
            }
            a.ok("copy x one sa");
            a.ok("notify-record n sa");
            b.ok(&format!("open-notify n {key}"));
            if ordered {
                b.ok("notify-wait n sb");
            }
            b.ok("copy x two sb");
            b.ok("sync sb");
            a.ok("sync sa");
            b.ok("destroy-notify n");
            a.ok("destroy-notify n");
            Some(())
        }),
        ("host synchronize, then a message over the socket", |a, b, _, ordered| {
            // A copies into x and tells B (this exchange is the message);
            // B copies into x. Ordered only if A synchronised before telling.
            a.ok("copy x one sa");
            if ordered {
                a.ok("sync sa");
            }
            b.ok("copy x two sb");
            b.ok("sync sb");
            a.ok("sync sa");
            Some(())
        }),
    ]
}

/// Runs one round of `body` with fresh streams and memory: the hazards
/// both processes found (their count, and the first's text).
fn pair_round(
    a: &mut Worker,
    b: &mut Worker,
    body: fn(&mut Worker, &mut Worker, &str, bool) -> Option<()>,
    ordered: bool,
) -> Option<(usize, String)> {
    a.ok("stream sa");
    a.ok("alloc x 0");
    a.ok("alloc one 1");
    let key = a.ok("export x");
    b.ok("stream sb");
    b.ok(&format!("import x {key}"));
    b.ok("alloc two 2");
    let ran = body(a, b, &key, ordered);
    b.ok(&format!("close x {key} imported"));
    a.ok(&format!("close x {key} exported"));
    let mut found = (0, String::new());
    for w in [a, b] {
        let reply = w.ok("hazards");
        let (n, text) = reply.split_once(' ').unwrap_or((&reply, ""));
        found.0 += n.parse::<usize>().expect("a count");
        if found.1.is_empty() {
            found.1 = text.to_owned();
        }
    }
    ran.map(|()| found)
}

fn pairs<V: Vendor>(rows: &mut String) {
    for mode in MODES {
        let root = vmmkit_testkit::TestRoot::new("vmmkit-pair-").expect("root").checked();
        let env = [("VMMKIT_STREAMS", mode), ("VMMKIT_DEVICES", "1"), (VENDOR_ENV, V::NAME)];
        let mut a = Worker::start("A", PAIR_ROLE, root.path(), &env);
        let mut b = Worker::start("B", PAIR_ROLE, root.path(), &env);
        let pids = [a.pid(), b.pid()];
        for (name, body) in pair_scenarios() {
            let mut counts = [0usize; 2];
            let mut missing = false;
            for (i, ordered) in [true, false].into_iter().enumerate() {
                for _ in 0..ROUNDS {
                    let Some((n, text)) = pair_round(&mut a, &mut b, body, ordered) else {
                        missing = true;
                        continue;
                    };
                    assert!(!(ordered && n != 0), "{} {mode} {name}: reported though ordered: {text}", V::NAME);
                    assert!(ordered || n != 0, "{} {mode} {name}: the race was not reported", V::NAME);
                    if n != 0 {
                        // Both processes are named, each with its pid.
                        for pid in pids {
                            assert!(text.contains(&format!("(process {pid})")), "{text} names {pid}");
                        }
                    }
                    counts[i] += usize::from(n != 0);
                }
            }
            let cell = |n: usize| if missing { "n/a".to_owned() } else { format!("{n}/{ROUNDS}") };
            rows.push_str(&format!("| {} | {mode} | {name} | {} | {} |\n", V::NAME, cell(counts[0]), cell(counts[1])));
        }
        a.finish();
        b.finish();
        assert_eq!(root.leftovers(), Vec::<String>::new(), "{} {mode}: nothing left in the root", V::NAME);
    }
}

/// Two processes share memory and order their accesses with an
/// interprocess event (a stream's wait, or the host's synchronize), a
/// notify, or a synchronize followed by a message: silent when they do,
/// reported (naming both processes) when the ordering is taken out, in
/// every mode, `ROUNDS` rounds each way. Prints the table (docs/streams.md).
#[test]
fn the_two_process_scenario_table() {
    let mut rows = String::new();
    pairs::<Acl>(&mut rows);
    pairs::<Hip>(&mut rows);
    pairs::<Cuda>(&mut rows);
    println!("| vendor | VMMKIT_STREAMS | ordering (two processes) | reported, ordered | reported, ordering removed |");
    println!("|---|---|---|---|---|");
    print!("{rows}");
    assert_eq!(rows.lines().count(), 3 * MODES.len() * pair_scenarios().len());
}

/// Under `VMMKIT_HAZARDS=off` the check keeps nothing: the racy programs
/// run as under `report`, and nothing is reported or fails.
fn hazards_off<V: Vendor>() {
    let v = V::open();
    let e = emulator().expect("emulator");
    let s = v.stream();
    let x = v.alloc();
    let src = filled(&v, 0x5a);
    v.copy_d2d(x, src, s);
    let mut out = vec![0u8; N];
    assert_eq!(v.try_read(&mut out, x), 0, "{}: the racing read is made", V::NAME);
    let (s1, s2, y) = (v.stream(), v.stream(), v.alloc());
    v.copy_d2d(x, src, s1);
    v.copy_d2d(y, x, s2);
    assert_eq!(v.try_sync_device(), 0);
    assert!(e.take_hazards().is_empty(), "{}: nothing reported", V::NAME);
}

#[test]
fn hazards_off_reports_nothing() {
    for (vendor, body) in
        [("ACL", hazards_off::<Acl> as fn()), ("HIP", hazards_off::<Hip>), ("CUDA", hazards_off::<Cuda>)]
    {
        if std::env::var("VMMKIT_TEST_CHILD").is_ok() && std::env::var(VENDOR_ENV).ok().as_deref() != Some(vendor) {
            continue;
        }
        let env = [("VMMKIT_STREAMS", "adversarial:3"), ("VMMKIT_HAZARDS", "off"), (VENDOR_ENV, vendor)];
        isolated("hazards_off_reports_nothing", &env, |_| body());
    }
}

/// A process that wrote shared memory and died before anyone synchronised
/// with it raises no alarm in the process that uses the memory after it
/// (its access is done; only a message could have ordered it); the same
/// access of a live process that never synchronised is reported.
#[test]
fn a_dead_process_s_accesses_raise_no_false_alarm() {
    for killed in [true, false] {
        let root = vmmkit_testkit::TestRoot::new("vmmkit-pair-").expect("root");
        let env = [("VMMKIT_STREAMS", "eager"), ("VMMKIT_DEVICES", "1"), (VENDOR_ENV, "ACL")];
        let mut a = Worker::start("A", PAIR_ROLE, root.path(), &env);
        let mut b = Worker::start("B", PAIR_ROLE, root.path(), &env);
        a.ok("stream sa");
        a.ok("alloc x 0");
        a.ok("alloc one 1");
        let key = a.ok("export x");
        b.ok("stream sb");
        b.ok(&format!("import x {key}"));
        b.ok("alloc two 2");
        // Run at once (eager) and never synchronised.
        a.ok("copy x one sa");
        if killed {
            a.kill();
        }
        b.ok("copy x two sb");
        b.ok("sync sb");
        let reply = b.ok("hazards");
        let n: usize = reply.split_whitespace().next().expect("count").parse().expect("a count");
        assert_eq!(n, usize::from(!killed), "killed {killed}: {reply}");
        b.ok(&format!("close x {key} imported"));
        if !killed {
            a.ok("sync sa");
            a.finish();
        }
        b.finish();
    }
}
