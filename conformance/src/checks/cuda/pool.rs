//! CUDA-POOL: stream-ordered memory pools, within one process and with a
//! CUDA peer that imports the pool and a pointer of it.

use std::os::fd::BorrowedFd;
use std::ptr;

use vmmkit_sys::cuda::*;

use crate::cuda::peer::Request;
use crate::cuda::{Ctx, setup};
use crate::outcome::Failure;

const BAD_STREAM: CUstream = 0x7777 as CUstream;
const MIB: usize = 1 << 20;

fn props(device: i32, types: CUmemAllocationHandleType) -> CUmemPoolProps {
    CUmemPoolProps {
        allocType: CU_MEM_ALLOCATION_TYPE_PINNED,
        handleTypes: types,
        location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        ..Default::default()
    }
}

fn create(cx: &Ctx, types: CUmemAllocationHandleType) -> Result<CUmemoryPool, Failure> {
    cx.context(0)?;
    let mut pool = ptr::null_mut();
    setup("cuMemPoolCreate", cx.cuda().cuMemPoolCreate(&mut pool, &props(0, types)))?;
    Ok(pool)
}

fn alloc(cx: &Ctx, pool: CUmemoryPool, size: usize) -> Result<CUdeviceptr, Failure> {
    let mut p = 0;
    setup("cuMemAllocFromPoolAsync", cx.cuda().cuMemAllocFromPoolAsync(&mut p, size, pool, ptr::null_mut()))?;
    Ok(p)
}

fn attr(cx: &Ctx, pool: CUmemoryPool, a: CUmemPool_attribute) -> Result<u64, Failure> {
    let mut v = 0u64;
    setup("cuMemPoolGetAttribute", cx.cuda().cuMemPoolGetAttribute(pool, a, (&raw mut v).cast()))?;
    Ok(v)
}

/// [CUDA-POOL-001](vmmkit_sys::cuda::rules::POOL_001).
pub fn create_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let mut pool = ptr::null_mut();
    let good = props(0, CU_MEM_HANDLE_TYPE_NONE);
    cx.expect_code("create(NULL props)", cuda.cuMemPoolCreate(&mut pool, ptr::null()))?;
    let bad = CUmemPoolProps { allocType: CU_MEM_ALLOCATION_TYPE_INVALID, ..good };
    cx.expect_code("create(allocType INVALID)", cuda.cuMemPoolCreate(&mut pool, &bad))?;
    let n = cx.device_count()?;
    cx.expect_code("create(device = count)", cuda.cuMemPoolCreate(&mut pool, &props(n, CU_MEM_HANDLE_TYPE_NONE)))?;
    cx.expect_ok("create(valid)", cuda.cuMemPoolCreate(&mut pool, &good))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-002](vmmkit_sys::cuda::rules::POOL_002).
pub fn destroy_default(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let mut default = ptr::null_mut();
    setup("cuDeviceGetDefaultMemPool", cuda.cuDeviceGetDefaultMemPool(&mut default, 0))?;
    cx.expect_code("destroy(default pool)", cuda.cuMemPoolDestroy(default))?;
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    setup("cuDeviceSetMemPool", cuda.cuDeviceSetMemPool(0, pool))?;
    cx.expect_ok("destroy(current pool)", cuda.cuMemPoolDestroy(pool))?;
    let mut cur = ptr::null_mut();
    setup("cuDeviceGetMemPool", cuda.cuDeviceGetMemPool(&mut cur, 0))?;
    cx.ensure("current after destroy", cur == default, format!("{default:p}"), format!("{cur:p}"))
}

/// [CUDA-POOL-003](vmmkit_sys::cuda::rules::POOL_003).
pub fn get_pool_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let n = cx.device_count()?;
    let mut pool = ptr::null_mut();
    cx.expect("default(NULL)", CuResult::INVALID_VALUE, cuda.cuDeviceGetDefaultMemPool(ptr::null_mut(), 0))?;
    cx.expect("default(device = count)", CuResult::INVALID_DEVICE, cuda.cuDeviceGetDefaultMemPool(&mut pool, n))?;
    cx.expect("get(device = count)", CuResult::INVALID_DEVICE, cuda.cuDeviceGetMemPool(&mut pool, n))?;
    cx.expect_ok("get(0)", cuda.cuDeviceGetMemPool(&mut pool, 0))
}

/// [CUDA-POOL-004](vmmkit_sys::cuda::rules::POOL_004).
pub fn set_pool_other_device(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    if cx.device_count()? < 2 {
        return Err(Failure::NotSupported("needs 2 devices".into()));
    }
    cx.expect_code("set(pool of device 0 on device 1)", cuda.cuDeviceSetMemPool(1, pool))?;
    cx.expect_ok("set(own device)", cuda.cuDeviceSetMemPool(0, pool))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-005](vmmkit_sys::cuda::rules::POOL_005).
pub fn alloc_async_args(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    let mut p = 0;
    cx.expect(
        "allocAsync(NULL)",
        CuResult::INVALID_VALUE,
        cuda.cuMemAllocAsync(ptr::null_mut(), 4096, ptr::null_mut()),
    )?;
    cx.expect("allocAsync(bad stream)", CuResult::INVALID_HANDLE, cuda.cuMemAllocAsync(&mut p, 4096, BAD_STREAM))?;
    cx.expect(
        "fromPool(bad stream)",
        CuResult::INVALID_HANDLE,
        cuda.cuMemAllocFromPoolAsync(&mut p, 4096, pool, BAD_STREAM),
    )?;
    cx.expect_ok("fromPool(valid)", cuda.cuMemAllocFromPoolAsync(&mut p, 4096, pool, ptr::null_mut()))?;
    setup("cuMemFreeAsync", cuda.cuMemFreeAsync(p, ptr::null_mut()))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-006](vmmkit_sys::cuda::rules::POOL_006).
pub fn free_async_args(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    let p = alloc(cx, pool, 4096)?;
    cx.expect("freeAsync(bad stream)", CuResult::INVALID_HANDLE, cuda.cuMemFreeAsync(p, BAD_STREAM))?;
    cx.expect("freeAsync(0x1000)", CuResult::INVALID_VALUE, cuda.cuMemFreeAsync(0x1000, ptr::null_mut()))?;
    cx.expect_ok("freeAsync(pool memory)", cuda.cuMemFreeAsync(p, ptr::null_mut()))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-007](vmmkit_sys::cuda::rules::POOL_007).
pub fn attribute_read_only(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    let mut v = 5u64;
    let val = (&raw mut v).cast();
    cx.expect_code(
        "set(RESERVED_MEM_CURRENT)",
        cuda.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, val),
    )?;
    cx.expect_code("set(USED_MEM_CURRENT)", cuda.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, val))?;
    cx.expect_code("set(USED_MEM_HIGH = 5)", cuda.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, val))?;
    cx.expect_ok(
        "set(RELEASE_THRESHOLD = 5)",
        cuda.cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, val),
    )?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-008](vmmkit_sys::cuda::rules::POOL_008).
pub fn accounting(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    let n = (2 * MIB) as u64;
    let p = alloc(cx, pool, 2 * MIB)?;
    let (u, r) =
        (attr(cx, pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?, attr(cx, pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?);
    cx.ensure("USED, RESERVED after alloc", (u, r) == (n, n), format!("({n}, {n})"), format!("({u}, {r})"))?;
    setup("cuMemFreeAsync", cuda.cuMemFreeAsync(p, ptr::null_mut()))?;
    let (u, r) =
        (attr(cx, pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT)?, attr(cx, pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?);
    cx.ensure("USED, RESERVED after free", (u, r) == (0, n), format!("(0, {n})"), format!("({u}, {r})"))?;
    setup("cuMemPoolTrimTo", cuda.cuMemPoolTrimTo(pool, 0))?;
    let r = attr(cx, pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT)?;
    cx.ensure("RESERVED after TrimTo(0)", r == 0, 0, r)?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-009](vmmkit_sys::cuda::rules::POOL_009).
pub fn access(cx: &mut Ctx) -> Result<(), Failure> {
    let pool = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    let mut f = 99;
    let mut host = CUmemLocation { type_: CU_MEM_LOCATION_TYPE_HOST, id: 0 };
    cx.expect_code("getAccess(Host)", cuda.cuMemPoolGetAccess(&mut f, pool, &mut host))?;
    let mut own = CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: 0 };
    setup("cuMemPoolGetAccess", cuda.cuMemPoolGetAccess(&mut f, pool, &mut own))?;
    cx.ensure("own device", f == CU_MEM_ACCESS_FLAGS_PROT_READWRITE, 3, f)?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-010](vmmkit_sys::cuda::rules::POOL_010).
pub fn export_args(cx: &mut Ctx) -> Result<(), Failure> {
    let posix = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    let plain = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let pool = create(cx, posix)?;
    let cuda = cx.cuda();
    let mut fd = -1i32;
    let out = (&raw mut fd).cast();
    cx.expect_code("export(flags 1)", cuda.cuMemPoolExportToShareableHandle(out, pool, posix, 1))?;
    cx.expect_code("export(pool made with NONE)", cuda.cuMemPoolExportToShareableHandle(out, plain, posix, 0))?;
    cx.expect_ok("export(posix pool)", cuda.cuMemPoolExportToShareableHandle(out, pool, posix, 0))?;
    drop(crate::cuda::Cuda::own_exported_fd(fd));
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(plain))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}

/// [CUDA-POOL-011](vmmkit_sys::cuda::rules::POOL_011).
pub fn import_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.context(0)?;
    let cuda = cx.cuda();
    let mut pool = ptr::null_mut();
    let h = 5usize as *mut std::ffi::c_void;
    let posix = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    cx.expect_code("import(flags 1)", cuda.cuMemPoolImportFromShareableHandle(&mut pool, h, posix, 1))?;
    cx.expect_code(
        "import(type NONE)",
        cuda.cuMemPoolImportFromShareableHandle(&mut pool, h, CU_MEM_HANDLE_TYPE_NONE, 0),
    )
}

/// [CUDA-POOL-012](vmmkit_sys::cuda::rules::POOL_012).
pub fn export_pointer_not_pool(cx: &mut Ctx) -> Result<(), Failure> {
    let plain = create(cx, CU_MEM_HANDLE_TYPE_NONE)?;
    let cuda = cx.cuda();
    let p = alloc(cx, plain, 4096)?;
    let mut data = CUmemPoolPtrExportData::default();
    cx.expect_code("exportPointer(pool made with NONE)", cuda.cuMemPoolExportPointer(&mut data, p))?;
    let q = cx.alloc(4096)?;
    cx.expect_code("exportPointer(cuMemAlloc memory)", cuda.cuMemPoolExportPointer(&mut data, q))?;
    cx.free(q)?;
    setup("cuMemFreeAsync", cuda.cuMemFreeAsync(p, ptr::null_mut()))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(plain))
}

/// [CUDA-POOL-013](vmmkit_sys::cuda::rules::POOL_013): a peer imports the pool (fd by `SCM_RIGHTS`) and the
/// pointer, reads what this process wrote, writes back, and frees it.
pub fn across_processes(cx: &mut Ctx) -> Result<(), Failure> {
    let posix = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    let pool = create(cx, posix)?;
    let cuda = cx.cuda();
    let size = 2 * MIB;
    let p = alloc(cx, pool, size)?;
    let data = crate::pattern::fill(41, size);
    setup("cuMemcpyHtoD", cuda.cuMemcpyHtoD(p, data.as_ptr().cast(), size))?;
    let mut raw = -1i32;
    setup(
        "cuMemPoolExportToShareableHandle",
        cuda.cuMemPoolExportToShareableHandle((&raw mut raw).cast(), pool, posix, 0),
    )?;
    let fd = crate::cuda::Cuda::own_exported_fd(raw)
        .ok_or_else(|| Failure::Setup("setup: the pool export gave no fd".into()))?;
    let mut share = CUmemPoolPtrExportData::default();
    setup("cuMemPoolExportPointer", cuda.cuMemPoolExportPointer(&mut share, p))?;
    let mut peer = cx.peer("pool importer", 0)?;
    let fds: [BorrowedFd<'_>; 1] = [std::os::fd::AsFd::as_fd(&fd)];
    let r = peer.call_fds(&Request::PoolImport { data: share.reserved.to_vec() }, &fds)?;
    cx.expect_ok(&format!("peer: import ({})", r.text), r.code)?;
    let q = r.value;
    let r = peer.call(&Request::Verify { ptr: q, len: size as u64, seed: 41 })?;
    cx.ensure("the peer reads what the exporter wrote", r.value == 1, "pattern 41", &r.text)?;
    peer.setup(&Request::Fill { ptr: q, len: size as u64, seed: 42 })?;
    let mut back = vec![0u8; size];
    setup("cuMemcpyDtoH", cuda.cuMemcpyDtoH(back.as_mut_ptr().cast(), p, size))?;
    let seen = crate::pattern::first_mismatch(42, &back);
    cx.ensure("the exporter reads what the peer wrote", seen.is_none(), "pattern 42", format!("{seen:?}"))?;
    let r = peer.call(&Request::PoolFree { ptr: q })?;
    cx.expect_ok(&format!("peer: cuMemFreeAsync ({})", r.text), r.code)?;
    peer.exit()?;
    setup("cuMemFreeAsync", cuda.cuMemFreeAsync(p, ptr::null_mut()))?;
    setup("cuMemPoolDestroy", cuda.cuMemPoolDestroy(pool))
}
