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
