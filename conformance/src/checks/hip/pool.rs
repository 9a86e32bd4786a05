//! HIP-POOL: stream-ordered memory pools (clr 6.3, hip_mempool.cpp), within
//! one process and, for [HIP-POOL-017](vmmkit_sys::hip::rules::POOL_017) and 018, with a HIP peer
//! ([`crate::hip::peer`]) that imports the pool and a pointer.

use std::ffi::c_void;
use std::os::fd::{AsFd, OwnedFd};
use std::ptr;

use vmmkit_sys::hip::*;

use super::stream::{Gate, destroy as destroy_stream, stream as new_stream};
use crate::hip::peer::{Peer, Request};
use crate::hip::{Ctx, Va, setup};
use crate::outcome::Failure;

const INVALID_VALUE: HipError = HipError::INVALID_VALUE;
const INVALID_DEVICE: HipError = HipError::INVALID_DEVICE;
const OUT_OF_MEMORY: HipError = HipError::OUT_OF_MEMORY;
/// A stream value that is no stream.
const BAD_STREAM: hipStream_t = 0x7777 as hipStream_t;
const MIB: usize = 1 << 20;

fn props(device: i32, handle_type: hipMemAllocationHandleType) -> hipMemPoolProps {
    hipMemPoolProps {
        allocType: hipMemAllocationTypePinned,
        handleTypes: handle_type,
        location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
        ..Default::default()
    }
}

fn create(cx: &Ctx, handle_type: hipMemAllocationHandleType) -> Result<hipMemPool_t, Failure> {
    cx.device(0)?;
    let mut pool = ptr::null_mut();
    setup("hipMemPoolCreate", cx.hip().hipMemPoolCreate(&mut pool, &props(0, handle_type)))?;
    Ok(pool)
}

fn destroy(cx: &Ctx, pool: hipMemPool_t) -> Result<(), Failure> {
    setup("hipMemPoolDestroy", cx.hip().hipMemPoolDestroy(pool))
}

fn alloc(cx: &Ctx, pool: hipMemPool_t, size: usize) -> Result<Va, Failure> {
    let mut p = ptr::null_mut();
    setup("hipMallocFromPoolAsync", cx.hip().hipMallocFromPoolAsync(&mut p, size, pool, ptr::null_mut()))?;
    Ok(p)
}

fn attr(cx: &Ctx, pool: hipMemPool_t, a: hipMemPoolAttr) -> Result<u64, Failure> {
    let mut v = 0u64;
    setup("hipMemPoolGetAttribute", cx.hip().hipMemPoolGetAttribute(pool, a, (&raw mut v).cast()))?;
    Ok(v)
}

/// [HIP-POOL-001](vmmkit_sys::hip::rules::POOL_001).
pub fn create_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut pool = ptr::null_mut();
    let good = props(0, hipMemHandleTypeNone);
    cx.expect_code("create(NULL pool)", hip.hipMemPoolCreate(ptr::null_mut(), &good))?;
    cx.expect_code("create(NULL props)", hip.hipMemPoolCreate(&mut pool, ptr::null()))?;
    let bad_type = hipMemPoolProps { allocType: hipMemAllocationTypeInvalid, ..good };
    cx.expect_code("create(allocType Invalid)", hip.hipMemPoolCreate(&mut pool, &bad_type))?;
    let host = hipMemPoolProps { location: hipMemLocation { type_: hipMemLocationTypeHost, id: 0 }, ..good };
    cx.expect_code("create(location Host)", hip.hipMemPoolCreate(&mut pool, &host))?;
    let n = cx.device_count()?;
    cx.expect_code("create(device = count)", hip.hipMemPoolCreate(&mut pool, &props(n, hipMemHandleTypeNone)))?;
    cx.expect_ok("create(valid)", hip.hipMemPoolCreate(&mut pool, &good))?;
    destroy(cx, pool)
}

/// [HIP-POOL-002](vmmkit_sys::hip::rules::POOL_002).
pub fn destroy_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    cx.expect_code("destroy(NULL)", hip.hipMemPoolDestroy(ptr::null_mut()))?;
    let mut default = ptr::null_mut();
    setup("hipDeviceGetDefaultMemPool", hip.hipDeviceGetDefaultMemPool(&mut default, 0))?;
    cx.expect_code("destroy(default pool)", hip.hipMemPoolDestroy(default))?;
    let pool = create(cx, hipMemHandleTypeNone)?;
    cx.expect_ok("destroy(created)", hip.hipMemPoolDestroy(pool))?;
    cx.expect_code("destroy(destroyed)", hip.hipMemPoolDestroy(pool))
}

/// [HIP-POOL-003](vmmkit_sys::hip::rules::POOL_003).
pub fn default_pool_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let mut pool = ptr::null_mut();
    cx.expect("default(NULL)", INVALID_VALUE, hip.hipDeviceGetDefaultMemPool(ptr::null_mut(), 0))?;
    let n = cx.device_count()?;
    cx.expect("default(device = count)", INVALID_DEVICE, hip.hipDeviceGetDefaultMemPool(&mut pool, n))?;
    cx.expect("default(-1)", INVALID_DEVICE, hip.hipDeviceGetDefaultMemPool(&mut pool, -1))?;
    cx.expect_ok("default(0)", hip.hipDeviceGetDefaultMemPool(&mut pool, 0))?;
    cx.ensure("the default pool", !pool.is_null(), "non-NULL", format!("{pool:p}"))
}

/// [HIP-POOL-004](vmmkit_sys::hip::rules::POOL_004).
pub fn set_pool_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let n = cx.device_count()?;
    cx.expect("set(NULL)", INVALID_VALUE, hip.hipDeviceSetMemPool(0, ptr::null_mut()))?;
    cx.expect("set(device = count)", INVALID_VALUE, hip.hipDeviceSetMemPool(n, pool))?;
    if n > 1 {
        cx.expect("set(pool of device 0 on device 1)", INVALID_DEVICE, hip.hipDeviceSetMemPool(1, pool))?;
    }
    cx.expect_ok("set(own device)", hip.hipDeviceSetMemPool(0, pool))?;
    destroy(cx, pool)
}

/// [HIP-POOL-005](vmmkit_sys::hip::rules::POOL_005).
pub fn current_pool(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let n = cx.device_count()?;
    let mut cur = ptr::null_mut();
    cx.expect_code("get(NULL)", hip.hipDeviceGetMemPool(ptr::null_mut(), 0))?;
    cx.expect_code("get(device = count)", hip.hipDeviceGetMemPool(&mut cur, n))?;
    let mut default = ptr::null_mut();
    setup("hipDeviceGetDefaultMemPool", hip.hipDeviceGetDefaultMemPool(&mut default, 0))?;
    setup("hipDeviceGetMemPool", hip.hipDeviceGetMemPool(&mut cur, 0))?;
    cx.ensure("current before set", cur == default, format!("{default:p}"), format!("{cur:p}"))?;
    let pool = create(cx, hipMemHandleTypeNone)?;
    setup("hipDeviceSetMemPool", hip.hipDeviceSetMemPool(0, pool))?;
    setup("hipDeviceGetMemPool", hip.hipDeviceGetMemPool(&mut cur, 0))?;
    cx.ensure("current after set", cur == pool, format!("{pool:p}"), format!("{cur:p}"))?;
    destroy(cx, pool)?;
    setup("hipDeviceGetMemPool", hip.hipDeviceGetMemPool(&mut cur, 0))?;
    cx.ensure("current after destroy", cur == default, format!("{default:p}"), format!("{cur:p}"))
}

/// [HIP-POOL-006](vmmkit_sys::hip::rules::POOL_006).
pub fn malloc_async_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let mut p: Va = 1usize as Va;
    cx.expect("mallocAsync(NULL)", INVALID_VALUE, hip.hipMallocAsync(ptr::null_mut(), 64, ptr::null_mut()))?;
    cx.expect("mallocAsync(bad stream)", HipError::INVALID_HANDLE, hip.hipMallocAsync(&mut p, 64, BAD_STREAM))?;
    cx.expect(
        "fromPool(NULL pool)",
        INVALID_VALUE,
        hip.hipMallocFromPoolAsync(&mut p, 64, ptr::null_mut(), ptr::null_mut()),
    )?;
    cx.expect(
        "fromPool(bad stream)",
        HipError::INVALID_HANDLE,
        hip.hipMallocFromPoolAsync(&mut p, 64, pool, BAD_STREAM),
    )?;
    cx.expect_ok("mallocAsync(0)", hip.hipMallocAsync(&mut p, 0, ptr::null_mut()))?;
    cx.ensure("*dev_ptr after size 0", p.is_null(), "NULL", format!("{p:p}"))?;
    cx.expect_ok("mallocAsync(64)", hip.hipMallocAsync(&mut p, 64, ptr::null_mut()))?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, ptr::null_mut()))?;
    destroy(cx, pool)
}

/// [HIP-POOL-007](vmmkit_sys::hip::rules::POOL_007).
pub fn free_async_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let p = alloc(cx, pool, 4096)?;
    cx.expect("freeAsync(NULL)", INVALID_VALUE, hip.hipFreeAsync(ptr::null_mut(), ptr::null_mut()))?;
    cx.expect("freeAsync(bad stream)", HipError::INVALID_HANDLE, hip.hipFreeAsync(p, BAD_STREAM))?;
    let mut local = 0u64;
    cx.expect("freeAsync(host address)", INVALID_VALUE, hip.hipFreeAsync((&raw mut local).cast(), ptr::null_mut()))?;
    cx.expect_ok("freeAsync(pool memory)", hip.hipFreeAsync(p, ptr::null_mut()))?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(ptr::null_mut()))?;
    cx.expect("freeAsync(the same block again)", INVALID_VALUE, hip.hipFreeAsync(p, ptr::null_mut()))?;
    let q = alloc(cx, pool, 4096)?;
    cx.expect_ok("freeAsync(the block reused)", hip.hipFreeAsync(q, ptr::null_mut()))?;
    destroy(cx, pool)
}

/// [HIP-POOL-008](vmmkit_sys::hip::rules::POOL_008).
pub fn attribute_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let mut v = 5u64;
    let val: *mut c_void = (&raw mut v).cast();
    cx.expect_code("set(NULL pool)", hip.hipMemPoolSetAttribute(ptr::null_mut(), hipMemPoolAttrReleaseThreshold, val))?;
    cx.expect_code(
        "get(NULL value)",
        hip.hipMemPoolGetAttribute(pool, hipMemPoolAttrReleaseThreshold, ptr::null_mut()),
    )?;
    cx.expect_code("get(attr 99)", hip.hipMemPoolGetAttribute(pool, 99, val))?;
    cx.expect_code("set(ReservedMemCurrent)", hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemCurrent, val))?;
    cx.expect_code("set(UsedMemCurrent)", hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemCurrent, val))?;
    cx.expect_code("set(UsedMemHigh = 5)", hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, val))?;
    cx.expect_code("set(ReservedMemHigh = 5)", hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemHigh, val))?;
    cx.expect_ok("set(ReleaseThreshold = 5)", hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, val))?;
    let t = attr(cx, pool, hipMemPoolAttrReleaseThreshold)?;
    cx.ensure("ReleaseThreshold read back", t == 5, 5, t)?;
    destroy(cx, pool)
}

/// [HIP-POOL-009](vmmkit_sys::hip::rules::POOL_009).
pub fn accounting(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    for a in [
        hipMemPoolReuseFollowEventDependencies,
        hipMemPoolReuseAllowOpportunistic,
        hipMemPoolReuseAllowInternalDependencies,
    ] {
        let mut f = -1i32;
        setup("hipMemPoolGetAttribute", hip.hipMemPoolGetAttribute(pool, a, (&raw mut f).cast()))?;
        cx.ensure(&format!("reuse flag {a}"), f == 1, 1, f)?;
    }
    let t = attr(cx, pool, hipMemPoolAttrReleaseThreshold)?;
    cx.ensure("default ReleaseThreshold", t == 0, 0, t)?;
    let n = 2 * MIB;
    let p = alloc(cx, pool, n)?;
    let (u, r) = (attr(cx, pool, hipMemPoolAttrUsedMemCurrent)?, attr(cx, pool, hipMemPoolAttrReservedMemCurrent)?);
    cx.ensure(
        "Used, Reserved after alloc",
        (u, r) == (n as u64, n as u64),
        format!("({n}, {n})"),
        format!("({u}, {r})"),
    )?;
    // A reset high mark reads 0 with n bytes reserved (clr hip_mempool_impl.cpp:370, :416).
    let mut zero = 0u64;
    setup(
        "hipMemPoolSetAttribute",
        hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrReservedMemHigh, (&raw mut zero).cast()),
    )?;
    let h = attr(cx, pool, hipMemPoolAttrReservedMemHigh)?;
    cx.ensure("ReservedMemHigh reset with memory reserved", h == 0, 0, h)?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, ptr::null_mut()))?;
    let (u, r) = (attr(cx, pool, hipMemPoolAttrUsedMemCurrent)?, attr(cx, pool, hipMemPoolAttrReservedMemCurrent)?);
    cx.ensure("Used, Reserved after free", (u, r) == (0, n as u64), format!("(0, {n})"), format!("({u}, {r})"))?;
    setup("hipMemPoolTrimTo", hip.hipMemPoolTrimTo(pool, 0))?;
    let r = attr(cx, pool, hipMemPoolAttrReservedMemCurrent)?;
    cx.ensure("Reserved after TrimTo(0)", r == 0, 0, r)?;
    let h = attr(cx, pool, hipMemPoolAttrUsedMemHigh)?;
    cx.ensure("UsedMemHigh", h == n as u64, n, h)?;
    setup(
        "hipMemPoolSetAttribute",
        hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrUsedMemHigh, (&raw mut zero).cast()),
    )?;
    let h = attr(cx, pool, hipMemPoolAttrUsedMemHigh)?;
    cx.ensure("UsedMemHigh after reset", h == 0, 0, h)?;
    destroy(cx, pool)
}

fn dev_desc(id: i32, flags: hipMemAccessFlags) -> hipMemAccessDesc {
    hipMemAccessDesc { location: hipMemLocation { type_: hipMemLocationTypeDevice, id }, flags }
}

/// [HIP-POOL-010](vmmkit_sys::hip::rules::POOL_010).
pub fn set_access_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let n = cx.device_count()?;
    let rw = dev_desc(0, hipMemAccessFlagsProtReadWrite);
    cx.expect("setAccess(NULL list)", INVALID_VALUE, hip.hipMemPoolSetAccess(pool, ptr::null(), 1))?;
    cx.expect("setAccess(count > devices)", INVALID_DEVICE, hip.hipMemPoolSetAccess(pool, &rw, n as usize + 1))?;
    cx.expect("setAccess(device = count)", INVALID_DEVICE, hip.hipMemPoolSetAccess(pool, &dev_desc(n, 3), 1))?;
    cx.expect("setAccess(ProtNone)", INVALID_DEVICE, hip.hipMemPoolSetAccess(pool, &dev_desc(0, 0), 1))?;
    cx.expect("setAccess(flags 7)", INVALID_VALUE, hip.hipMemPoolSetAccess(pool, &dev_desc(0, 7), 1))?;
    let host = hipMemAccessDesc { location: hipMemLocation { type_: hipMemLocationTypeHost, id: 0 }, flags: 3 };
    cx.expect("setAccess(Host)", INVALID_VALUE, hip.hipMemPoolSetAccess(pool, &host, 1))?;
    cx.expect_ok("setAccess(device 0 ReadWrite)", hip.hipMemPoolSetAccess(pool, &rw, 1))?;
    destroy(cx, pool)
}

/// [HIP-POOL-011](vmmkit_sys::hip::rules::POOL_011).
pub fn get_access(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let n = cx.device_count()?;
    let mut f: hipMemAccessFlags = -1;
    let mut loc = hipMemLocation { type_: hipMemLocationTypeDevice, id: 0 };
    cx.expect_code("getAccess(NULL flags)", hip.hipMemPoolGetAccess(ptr::null_mut(), pool, &mut loc))?;
    cx.expect_code("getAccess(NULL location)", hip.hipMemPoolGetAccess(&mut f, pool, ptr::null_mut()))?;
    let mut past = hipMemLocation { type_: hipMemLocationTypeDevice, id: n };
    cx.expect_code("getAccess(device = count)", hip.hipMemPoolGetAccess(&mut f, pool, &mut past))?;
    setup("hipMemPoolGetAccess", hip.hipMemPoolGetAccess(&mut f, pool, &mut loc))?;
    cx.ensure("own device", f == hipMemAccessFlagsProtReadWrite, 3, f)?;
    if n > 1 {
        let mut other = hipMemLocation { type_: hipMemLocationTypeDevice, id: 1 };
        setup("hipMemPoolGetAccess", hip.hipMemPoolGetAccess(&mut f, pool, &mut other))?;
        cx.ensure("device 1 before SetAccess", f == hipMemAccessFlagsProtNone, 0, f)?;
        setup("hipMemPoolSetAccess", hip.hipMemPoolSetAccess(pool, &dev_desc(1, hipMemAccessFlagsProtRead), 1))?;
        setup("hipMemPoolGetAccess", hip.hipMemPoolGetAccess(&mut f, pool, &mut other))?;
        cx.ensure("device 1 after SetAccess(Read)", f == hipMemAccessFlagsProtRead, 1, f)?;
    }
    destroy(cx, pool)
}

/// [HIP-POOL-012](vmmkit_sys::hip::rules::POOL_012).
pub fn trim_null(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, hipMemHandleTypeNone)?;
    cx.expect_code("trimTo(NULL)", cx.hip().hipMemPoolTrimTo(ptr::null_mut(), 0))?;
    cx.expect_ok("trimTo(pool)", cx.hip().hipMemPoolTrimTo(pool, 0))?;
    destroy(cx, pool)
}

/// [HIP-POOL-013](vmmkit_sys::hip::rules::POOL_013).
pub fn export_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let posix = hipMemHandleTypePosixFileDescriptor;
    let pool = create(cx, posix)?;
    let plain = create(cx, hipMemHandleTypeNone)?;
    let mut fd = -1i32;
    let out: Va = (&raw mut fd).cast();
    cx.expect_code("export(NULL out)", hip.hipMemPoolExportToShareableHandle(ptr::null_mut(), pool, posix, 0))?;
    cx.expect_code("export(flags 1)", hip.hipMemPoolExportToShareableHandle(out, pool, posix, 1))?;
    cx.expect_code("export(type None)", hip.hipMemPoolExportToShareableHandle(out, pool, hipMemHandleTypeNone, 0))?;
    cx.expect_code("export(pool made with None)", hip.hipMemPoolExportToShareableHandle(out, plain, posix, 0))?;
    cx.expect_ok("export(posix pool)", hip.hipMemPoolExportToShareableHandle(out, pool, posix, 0))?;
    cx.ensure("the fd", fd > 2, "an fd above 2", fd)?;
    crate::hip::Hip::close_exported_fd(fd);
    destroy(cx, plain)?;
    destroy(cx, pool)
}

/// [HIP-POOL-014](vmmkit_sys::hip::rules::POOL_014).
pub fn import_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let posix = hipMemHandleTypePosixFileDescriptor;
    let mut pool = ptr::null_mut();
    let h = 5usize as Va;
    cx.expect(
        "import(NULL out)",
        INVALID_VALUE,
        hip.hipMemPoolImportFromShareableHandle(ptr::null_mut(), h, posix, 0),
    )?;
    cx.expect(
        "import(NULL handle)",
        INVALID_VALUE,
        hip.hipMemPoolImportFromShareableHandle(&mut pool, ptr::null_mut(), posix, 0),
    )?;
    cx.expect("import(flags 1)", INVALID_VALUE, hip.hipMemPoolImportFromShareableHandle(&mut pool, h, posix, 1))?;
    cx.expect(
        "import(type None)",
        INVALID_VALUE,
        hip.hipMemPoolImportFromShareableHandle(&mut pool, h, hipMemHandleTypeNone, 0),
    )?;
    let closed = 999_999usize as Va;
    cx.expect("import(closed fd)", OUT_OF_MEMORY, hip.hipMemPoolImportFromShareableHandle(&mut pool, closed, posix, 0))
}

/// [HIP-POOL-015](vmmkit_sys::hip::rules::POOL_015).
pub fn export_pointer_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypePosixFileDescriptor)?;
    let p = alloc(cx, pool, 4096)?;
    let mut data = hipMemPoolPtrExportData::default();
    cx.expect("exportPointer(NULL data)", INVALID_VALUE, hip.hipMemPoolExportPointer(ptr::null_mut(), p))?;
    cx.expect("exportPointer(NULL ptr)", INVALID_VALUE, hip.hipMemPoolExportPointer(&mut data, ptr::null_mut()))?;
    let mut local = 0u64;
    cx.expect(
        "exportPointer(host address)",
        OUT_OF_MEMORY,
        hip.hipMemPoolExportPointer(&mut data, (&raw mut local).cast()),
    )?;
    cx.expect_ok("exportPointer(pool memory)", hip.hipMemPoolExportPointer(&mut data, p))?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, ptr::null_mut()))?;
    destroy(cx, pool)
}

/// [HIP-POOL-016](vmmkit_sys::hip::rules::POOL_016).
pub fn import_pointer_args(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypePosixFileDescriptor)?;
    let mut data = hipMemPoolPtrExportData::default();
    let mut p = ptr::null_mut();
    cx.expect("importPointer(NULL ptr)", INVALID_VALUE, hip.hipMemPoolImportPointer(ptr::null_mut(), pool, &mut data))?;
    cx.expect(
        "importPointer(NULL pool)",
        INVALID_VALUE,
        hip.hipMemPoolImportPointer(&mut p, ptr::null_mut(), &mut data),
    )?;
    cx.expect("importPointer(NULL data)", INVALID_VALUE, hip.hipMemPoolImportPointer(&mut p, pool, ptr::null_mut()))?;
    cx.expect("importPointer(zero data)", OUT_OF_MEMORY, hip.hipMemPoolImportPointer(&mut p, pool, &mut data))?;
    destroy(cx, pool)
}

/// [HIP-POOL-019](vmmkit_sys::hip::rules::POOL_019).
pub fn pools_supported(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut v = -1;
    setup("hipDeviceGetAttribute(88)", hip.hipDeviceGetAttribute(&mut v, hipDeviceAttributeMemoryPoolsSupported, 0))?;
    cx.ensure("MemoryPoolsSupported", v == 1, 1, v)?;
    setup(
        "hipDeviceGetAttribute(91)",
        hip.hipDeviceGetAttribute(&mut v, hipDeviceAttributeMemoryPoolSupportedHandleTypes, 0),
    )?;
    cx.ensure("MemoryPoolSupportedHandleTypes has PosixFileDescriptor", v & 1 == 1, "bit 0 set", v)
}

/// An exported pool on device 0 with one `size`-byte allocation holding the
/// pattern `seed`: the pool, the pointer, the pool's fd and the pointer's
/// 64 export bytes.
fn shared_allocation(cx: &Ctx, size: usize, seed: u8) -> Result<(hipMemPool_t, Va, OwnedFd, Vec<u8>), Failure> {
    let pool = create(cx, hipMemHandleTypePosixFileDescriptor)?;
    let p = alloc(cx, pool, size)?;
    cx.write(p, size, seed)?;
    let hip = cx.hip();
    let mut raw = -1i32;
    let r = hip.hipMemPoolExportToShareableHandle((&raw mut raw).cast(), pool, hipMemHandleTypePosixFileDescriptor, 0);
    let fd = crate::hip::Hip::own_exported_fd(raw);
    setup("hipMemPoolExportToShareableHandle", r)?;
    let fd = fd.ok_or_else(|| Failure::Setup(format!("setup: hipMemPoolExportToShareableHandle gave fd {raw}")))?;
    let mut data = hipMemPoolPtrExportData::default();
    setup("hipMemPoolExportPointer", hip.hipMemPoolExportPointer(&mut data, p))?;
    Ok((pool, p, fd, data.reserved.to_vec()))
}

/// The peer imports the pool (its fd by `SCM_RIGHTS`) and the pointer: its address.
fn import_in(cx: &Ctx, peer: &mut Peer, fd: &OwnedFd, data: Vec<u8>) -> Result<u64, Failure> {
    let r = peer.call_fds(&Request::PoolImport { data }, &[fd.as_fd()])?;
    cx.expect_ok(&format!("peer: import the pool and the pointer ({})", r.text), r.vendor_code())?;
    Ok(r.value)
}

/// The peer reads `len` bytes at `ptr` and finds the pattern `seed`.
fn peer_sees(cx: &Ctx, peer: &mut Peer, step: &str, ptr: u64, len: usize, seed: u8) -> Result<(), Failure> {
    let r = peer.setup(&Request::Verify { ptr, len: len as u64, seed })?;
    cx.ensure(step, r.value == 1, format!("pattern {seed}"), r.text)
}

/// [HIP-POOL-017](vmmkit_sys::hip::rules::POOL_017): a peer imports the pool and the pointer, reads what this
/// process wrote, writes back (seen here), and frees it with hipFreeAsync.
pub fn across_processes(cx: &mut Ctx) -> Result<(), Failure> {
    let size = 2 * MIB;
    let (pool, p, fd, data) = shared_allocation(cx, size, 51)?;
    let mut peer = cx.peer("pool importer", 0)?;
    let q = import_in(cx, &mut peer, &fd, data)?;
    peer_sees(cx, &mut peer, "the peer reads what the exporter wrote", q, size, 51)?;
    peer.setup(&Request::Fill { ptr: q, len: size as u64, seed: 52 })?;
    cx.verify("the exporter reads what the peer wrote", p, size, 52)?;
    let r = peer.call(&Request::PoolFree { ptr: q })?;
    cx.expect_ok(&format!("peer: hipFreeAsync ({})", r.text), r.vendor_code())?;
    peer.exit()?;
    setup("hipFreeAsync", cx.hip().hipFreeAsync(p, ptr::null_mut()))?;
    destroy(cx, pool)
}

/// [HIP-POOL-020](vmmkit_sys::hip::rules::POOL_020) (hip-tests `Unit_hipMemPoolExportToShareableHandle_SameProc`):
/// this process imports its own exported pool from the fd and its own
/// pointer into it; the import succeeds, reads what was written through the
/// original pointer, a write through it is seen through the original, and a
/// repeated import gives the same address; hipFreeAsync gives it back.
pub fn import_own_pointer(cx: &mut Ctx) -> Result<(), Failure> {
    let size = 2 * MIB;
    let (pool, p, fd, data) = shared_allocation(cx, size, 61)?;
    let hip = cx.hip();
    let mut imported = ptr::null_mut();
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fd) as usize as Va;
    setup(
        "hipMemPoolImportFromShareableHandle(own fd)",
        hip.hipMemPoolImportFromShareableHandle(&mut imported, raw, hipMemHandleTypePosixFileDescriptor, 0),
    )?;
    let mut export = hipMemPoolPtrExportData::default();
    export.reserved.copy_from_slice(&data);
    let mut q = ptr::null_mut();
    cx.expect_ok("hipMemPoolImportPointer(own pointer)", hip.hipMemPoolImportPointer(&mut q, imported, &mut export))?;
    cx.verify("the imported pointer reads what the original wrote", q, size, 61)?;
    cx.write(q, size, 62)?;
    cx.verify("the original reads what the imported pointer wrote", p, size, 62)?;
    let mut again = ptr::null_mut();
    cx.expect_ok("hipMemPoolImportPointer(again)", hip.hipMemPoolImportPointer(&mut again, imported, &mut export))?;
    cx.ensure("the repeated import's address", again == q, format!("{q:p}"), format!("{again:p}"))?;
    cx.expect_ok("hipFreeAsync(imported pointer)", hip.hipFreeAsync(q, ptr::null_mut()))?;
    cx.expect_ok("hipFreeAsync(imported pointer, second import)", hip.hipFreeAsync(again, ptr::null_mut()))?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(ptr::null_mut()))?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, ptr::null_mut()))?;
    destroy(cx, imported)?;
    destroy(cx, pool)
}

/// `hipMemPtrGetInfo(p)`: the call's code, and the size it gave.
fn ptr_info(cx: &Ctx, p: Va) -> (HipError, usize) {
    let mut n = 0usize;
    let rc = HipError(cx.hip().hipMemPtrGetInfo(p, &mut n));
    (rc, n)
}

/// That `pool` holds `reserved` bytes and `p` is (or, `live` false, no
/// longer is) memory, after `step`.
fn held(cx: &Ctx, step: &str, pool: hipMemPool_t, reserved: usize, p: Va, live: bool) -> Result<(), Failure> {
    let r = attr(cx, pool, hipMemPoolAttrReservedMemCurrent)?;
    cx.ensure(&format!("ReservedMemCurrent after {step}"), r == reserved as u64, reserved, r)?;
    let (rc, _) = ptr_info(cx, p);
    let want = if live { HipError::SUCCESS } else { INVALID_VALUE };
    cx.ensure(
        &format!("hipMemPtrGetInfo of the freed block after {step}"),
        rc == want,
        want.to_string(),
        rc.to_string(),
    )
}

/// [HIP-POOL-021](vmmkit_sys::hip::rules::POOL_021) (hip-tests `Unit_hipGetProcAddress_MemoryApisStreamOrderedMemory`):
/// a block freed with hipFreeAsync stays reserved until a synchronisation
/// (a stream's, an event's, the device's), which gives it back: its address
/// then names no memory; one freed behind held work stays through another
/// stream's synchronisation and a trim, and goes once its stream has run;
/// a release threshold keeps what it covers.
pub fn release_at_synchronize(cx: &mut Ctx) -> Result<(), Failure> {
    let hip = cx.hip();
    let pool = create(cx, hipMemHandleTypeNone)?;
    let n = 2 * MIB;
    let (s, other) = (new_stream(cx, hipStreamDefault)?, new_stream(cx, hipStreamDefault)?);
    let alloc_on = |stream: hipStream_t| -> Result<Va, Failure> {
        let mut p = ptr::null_mut();
        setup("hipMallocFromPoolAsync", hip.hipMallocFromPoolAsync(&mut p, n, pool, stream))?;
        Ok(p)
    };
    // A stream's synchronisation.
    let p = alloc_on(s)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    let (rc, size) = ptr_info(cx, p);
    cx.ensure("hipMemPtrGetInfo of the allocation", (rc, size) == (HipError::SUCCESS, n), n, format!("{rc}, {size}"))?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, s))?;
    held(cx, "hipFreeAsync", pool, n, p, true)?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    held(cx, "hipStreamSynchronize", pool, 0, p, false)?;
    // An event's, and the device's.
    let mut ev = ptr::null_mut();
    setup("hipEventCreate", hip.hipEventCreate(&mut ev))?;
    let p = alloc_on(s)?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, s))?;
    setup("hipEventRecord", hip.hipEventRecord(ev, s))?;
    setup("hipEventSynchronize", hip.hipEventSynchronize(ev))?;
    held(cx, "hipEventSynchronize", pool, 0, p, false)?;
    setup("hipEventDestroy", hip.hipEventDestroy(ev))?;
    let p = alloc_on(ptr::null_mut())?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, ptr::null_mut()))?;
    setup("hipDeviceSynchronize", hip.hipDeviceSynchronize())?;
    held(cx, "hipDeviceSynchronize", pool, 0, p, false)?;
    // Freed behind held work: another stream's synchronisation and a trim leave it.
    let gate = Gate::new();
    let p = alloc_on(s)?;
    gate.hold(cx, s)?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, s))?;
    setup("hipStreamSynchronize(another stream)", hip.hipStreamSynchronize(other))?;
    let kept = held(cx, "another stream's hipStreamSynchronize, its own held", pool, n, p, true);
    setup("hipMemPoolTrimTo", hip.hipMemPoolTrimTo(pool, 0))?;
    let trimmed = held(cx, "hipMemPoolTrimTo(0), the stream held", pool, n, p, true);
    gate.open();
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    kept.and(trimmed)?;
    held(cx, "the held stream's hipStreamSynchronize", pool, 0, p, false)?;
    // A threshold keeps what it covers.
    let mut threshold = n as u64;
    setup(
        "hipMemPoolSetAttribute(ReleaseThreshold)",
        hip.hipMemPoolSetAttribute(pool, hipMemPoolAttrReleaseThreshold, (&raw mut threshold).cast()),
    )?;
    let p = alloc_on(s)?;
    setup("hipFreeAsync", hip.hipFreeAsync(p, s))?;
    setup("hipStreamSynchronize", hip.hipStreamSynchronize(s))?;
    held(cx, "hipStreamSynchronize, a threshold of the block's size", pool, n, p, true)?;
    setup("hipMemPoolTrimTo", hip.hipMemPoolTrimTo(pool, 0))?;
    destroy_stream(cx, s)?;
    destroy_stream(cx, other)?;
    destroy(cx, pool)
}

/// [HIP-POOL-018](vmmkit_sys::hip::rules::POOL_018) (undetermined; emulator: kept): the exporter frees and trims
/// while the peer has the pointer open; the peer still reads it, then frees it.
pub fn exporter_frees_first(cx: &mut Ctx) -> Result<(), Failure> {
    let size = 2 * MIB;
    let (pool, p, fd, data) = shared_allocation(cx, size, 53)?;
    let mut peer = cx.peer("pool importer", 0)?;
    let q = import_in(cx, &mut peer, &fd, data)?;
    let hip = cx.hip();
    setup("hipFreeAsync", hip.hipFreeAsync(p, ptr::null_mut()))?;
    setup("hipMemPoolTrimTo", hip.hipMemPoolTrimTo(pool, 0))?;
    peer_sees(cx, &mut peer, "the peer reads after the exporter freed and trimmed", q, size, 53)?;
    let r = peer.call(&Request::PoolFree { ptr: q })?;
    cx.expect_ok(&format!("peer: hipFreeAsync ({})", r.text), r.vendor_code())?;
    peer.exit()?;
    destroy(cx, pool)
}
