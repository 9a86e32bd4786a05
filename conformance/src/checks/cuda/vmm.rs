//! CUDA-VMM: granularity, physical memory, reservations, maps, access and
//! retain within one process (cuda.md §3.3).

use vmmkit_sys::cuda::*;

use crate::cuda::{Ctx, desc, posix_prop, prop, setup};
use crate::outcome::Failure;

const RW: CUmemAccess_flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

/// [CUDA-VMM-001](vmmkit_sys::cuda::rules::VMM_001): both granularity options give a value; the minimum is a
/// whole number of 4 KiB pages, divides the recommended one, and a
/// cuMemCreate of that size works.
pub fn granularity(cx: &mut Ctx) -> Result<(), Failure> {
    let min = cx.granule()?;
    let mut rec = 0usize;
    let r = cx.cuda().cuMemGetAllocationGranularity(&mut rec, &posix_prop(), CU_MEM_ALLOC_GRANULARITY_RECOMMENDED);
    cx.expect_ok("cuMemGetAllocationGranularity(RECOMMENDED)", r)?;
    cx.note(format!("minimum {min}, recommended {rec}"));
    let ok = min % 4096 == 0 && rec >= min && rec % min == 0;
    cx.ensure("granularity values", ok, "4 KiB multiples, minimum divides recommended", format!("{min}, {rec}"))?;
    let h = cx.create(min, &posix_prop())?;
    cx.release(h)
}

/// [CUDA-VMM-002](vmmkit_sys::cuda::rules::VMM_002): a cuMemCreate size that is not a multiple of the minimum
/// granularity → 1 (half a granule, one and a half).
pub fn create_size(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let mut h = 0;
    cx.expect_code("cuMemCreate(granule / 2)", cuda.cuMemCreate(&mut h, g / 2, &posix_prop(), 0))?;
    cx.expect_code("cuMemCreate(1.5 granules)", cuda.cuMemCreate(&mut h, g + g / 2, &posix_prop(), 0))?;
    let h = cx.create(g, &posix_prop())?;
    cx.release(h)
}

/// [CUDA-VMM-003](vmmkit_sys::cuda::rules::VMM_003): flags ≠ 0 → 1 for cuMemCreate, cuMemAddressReserve,
/// cuMemMap and cuMemExportToShareableHandle.
pub fn flags_nonzero(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let mut h = 0;
    cx.expect_code("cuMemCreate(flags 1)", cuda.cuMemCreate(&mut h, g, &posix_prop(), 1))?;
    let mut va = 0;
    cx.expect_code("cuMemAddressReserve(flags 1)", cuda.cuMemAddressReserve(&mut va, g, 0, 0, 1))?;
    let h = cx.create(g, &posix_prop())?;
    let va = cx.reserve(g)?;
    cx.expect_code("cuMemMap(flags 1)", cuda.cuMemMap(va, g, 0, h, 1))?;
    let mut fd = -1i32;
    let r = cuda.cuMemExportToShareableHandle((&raw mut fd).cast(), h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1);
    drop(crate::cuda::Cuda::own_exported_fd(fd));
    cx.expect_code("cuMemExportToShareableHandle(flags 1)", r)?;
    setup("cuMemAddressFree", cuda.cuMemAddressFree(va, g))?;
    cx.release(h)
}

/// [CUDA-VMM-004](vmmkit_sys::cuda::rules::VMM_004): cuMemCreate at location HOST or HOST_NUMA_CURRENT → 1;
/// requesting FABRIC handles without IMEX → 800 (judged only where device
/// attribute 128 says fabric handles are not supported).
pub fn create_location(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let mut h = 0;
    for t in [CU_MEM_LOCATION_TYPE_HOST, CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT] {
        let mut p = prop(0, CU_MEM_HANDLE_TYPE_NONE);
        p.location.type_ = t;
        cx.expect_code(&format!("cuMemCreate(location type {t})"), cuda.cuMemCreate(&mut h, g, &p, 0))?;
    }
    if cx.attribute(CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED)? == 0 {
        let r = cuda.cuMemCreate(&mut h, g, &prop(0, CU_MEM_HANDLE_TYPE_FABRIC), 0);
        cx.expect("cuMemCreate(FABRIC requested)", CuResult::NOT_PERMITTED, r)?;
    } else {
        cx.note("fabric handles are supported here: the FABRIC part is not judged");
    }
    Ok(())
}

/// [CUDA-VMM-005](vmmkit_sys::cuda::rules::VMM_005): a handle released while mapped stays usable through its
/// mapping until the unmap.
pub fn release_while_mapped(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 5)?;
    cx.expect_ok("cuMemRelease(mapped handle)", cx.cuda().cuMemRelease(h))?;
    cx.verify("read after the release", va, size, 5)?;
    cx.unmap_free(va, size)
}

/// [CUDA-VMM-006](vmmkit_sys::cuda::rules::VMM_006): a reservation alignment that is not a power of two → 1;
/// a power of two is honoured.
pub fn reserve_alignment(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let mut va = 0;
    cx.expect_code("cuMemAddressReserve(alignment 3 granules)", cuda.cuMemAddressReserve(&mut va, g, 3 * g, 0, 0))?;
    let r = cuda.cuMemAddressReserve(&mut va, 2 * g, 4 * g, 0, 0);
    cx.expect_ok("cuMemAddressReserve(alignment 4 granules)", r)?;
    cx.ensure("the alignment", va % (4 * g) as u64 == 0, format!("a multiple of {:#x}", 4 * g), format!("{va:#x}"))?;
    setup("cuMemAddressFree", cuda.cuMemAddressFree(va, 2 * g))
}

/// [CUDA-VMM-007](vmmkit_sys::cuda::rules::VMM_007): cuMemAddressFree must name a reservation exactly: a
/// smaller size, or a pointer inside it → 1; the exact range works.
pub fn address_free_exact(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let va = cx.reserve(2 * g)?;
    cx.expect_code("cuMemAddressFree(size / 2)", cuda.cuMemAddressFree(va, g))?;
    cx.expect_code("cuMemAddressFree(inside)", cuda.cuMemAddressFree(va + g as u64, g))?;
    cx.expect_ok("cuMemAddressFree(exact)", cuda.cuMemAddressFree(va, 2 * g))
}

/// [CUDA-VMM-008](vmmkit_sys::cuda::rules::VMM_008): cuMemMap with offset ≠ 0, a pointer or size off the
/// granularity → 1; the plain map then works.
pub fn map_args(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let h = cx.create(2 * g, &posix_prop())?;
    let va = cx.reserve(4 * g)?;
    cx.expect_code("cuMemMap(offset 1 granule)", cuda.cuMemMap(va, g, g, h, 0))?;
    cx.expect_code("cuMemMap(ptr + 4096)", cuda.cuMemMap(va + 4096, g, 0, h, 0))?;
    cx.expect_code("cuMemMap(size granule + 4096)", cuda.cuMemMap(va, g + 4096, 0, h, 0))?;
    cx.expect_ok("cuMemMap(whole allocation)", cuda.cuMemMap(va, 2 * g, 0, h, 0))?;
    setup("cuMemUnmap", cuda.cuMemUnmap(va, 2 * g))?;
    setup("cuMemAddressFree", cuda.cuMemAddressFree(va, 4 * g))?;
    cx.release(h)
}

/// [CUDA-VMM-009](vmmkit_sys::cuda::rules::VMM_009) (undetermined; emulator: allowed): a map of the first
/// granule of a two-granule allocation, written and read back.
pub fn partial_map(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let h = cx.create(2 * g, &posix_prop())?;
    let va = cx.reserve(g)?;
    cx.expect_ok("cuMemMap(first granule of two)", cx.cuda().cuMemMap(va, g, 0, h, 0))?;
    cx.access(va, g, RW)?;
    cx.write(va, g, 9)?;
    cx.verify("read back", va, g, 9)?;
    cx.unmap_free(va, g)?;
    cx.release(h)
}

/// [CUDA-VMM-010](vmmkit_sys::cuda::rules::VMM_010) (undetermined; emulator: 1): cuMemMap over a mapped range.
pub fn map_over_mapping(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let other = cx.create(size, &posix_prop())?;
    cx.expect_code("cuMemMap(over a mapping)", cx.cuda().cuMemMap(va, size, 0, other, 0))?;
    cx.release(other)?;
    cx.unmap_free(va, size)?;
    cx.release(h)
}

/// [CUDA-VMM-011](vmmkit_sys::cuda::rules::VMM_011): cuMemUnmap of a sub-range → 1; the whole range works and
/// a re-map starts with no access (cuMemGetAccess reads 0).
pub fn unmap_whole(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(2)?;
    let cuda = cx.cuda();
    cx.expect_code("cuMemUnmap(first half)", cuda.cuMemUnmap(va, size / 2))?;
    cx.expect_ok("cuMemUnmap(whole)", cuda.cuMemUnmap(va, size))?;
    cx.map(va, size, h)?;
    let mut flags = u64::MAX;
    let loc = CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: 0 };
    cx.expect_ok("cuMemGetAccess after a re-map", cuda.cuMemGetAccess(&mut flags, &loc, va))?;
    cx.ensure("access after a re-map", flags == 0, "0 (no access)", flags)?;
    cx.unmap_free(va, size)?;
    cx.release(h)
}

/// [CUDA-VMM-012](vmmkit_sys::cuda::rules::VMM_012): a copy into mapped memory without access, or with read
/// access only → 1; reads work with read access; writes with read-write.
pub fn access_required(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let h = cx.create(g, &posix_prop())?;
    let va = cx.reserve(g)?;
    cx.map(va, g, h)?;
    let data = crate::pattern::fill(3, 4096);
    cx.expect_code("cuMemcpyHtoD(no access)", cuda.cuMemcpyHtoD(va, data.as_ptr().cast(), data.len()))?;
    cx.access(va, g, CU_MEM_ACCESS_FLAGS_PROT_READ)?;
    cx.expect_code("cuMemcpyHtoD(read only)", cuda.cuMemcpyHtoD(va, data.as_ptr().cast(), data.len()))?;
    let mut back = vec![0u8; 4096];
    cx.expect_ok("cuMemcpyDtoH(read only)", cuda.cuMemcpyDtoH(back.as_mut_ptr().cast(), va, back.len()))?;
    cx.access(va, g, RW)?;
    cx.expect_ok("cuMemcpyHtoD(read-write)", cuda.cuMemcpyHtoD(va, data.as_ptr().cast(), data.len()))?;
    cx.unmap_free(va, g)?;
    cx.release(h)
}

/// [CUDA-VMM-013](vmmkit_sys::cuda::rules::VMM_013): cuMemSetAccess over a range not wholly mapped → 1; a host
/// location on device memory → 801.
pub fn set_access_rules(cx: &mut Ctx) -> Result<(), Failure> {
    let g = cx.granule()?;
    let cuda = cx.cuda();
    let h = cx.create(g, &posix_prop())?;
    let va = cx.reserve(2 * g)?;
    cx.map(va, g, h)?;
    cx.expect_code("cuMemSetAccess(half unmapped)", cuda.cuMemSetAccess(va, 2 * g, &desc(0, RW), 1))?;
    let host = CUmemAccessDesc { location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_HOST_NUMA, id: 0 }, flags: RW };
    let r = cuda.cuMemSetAccess(va, g, &host, 1);
    cx.expect("cuMemSetAccess(HOST_NUMA location)", CuResult::NOT_SUPPORTED, r)?;
    cx.expect_ok("cuMemSetAccess(device 0)", cuda.cuMemSetAccess(va, g, &desc(0, RW), 1))?;
    setup("cuMemUnmap", cuda.cuMemUnmap(va, g))?;
    setup("cuMemAddressFree", cuda.cuMemAddressFree(va, 2 * g))?;
    cx.release(h)
}

/// [CUDA-VMM-019](vmmkit_sys::cuda::rules::VMM_019): cuMemRetainAllocationHandle on an address inside a
/// mapping gives the handle that was mapped; each retain needs a release.
pub fn retain_inside(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(2)?;
    let mut got = 0;
    let inside = (va + size as u64 / 2 + 64) as *mut std::ffi::c_void;
    cx.expect_ok("cuMemRetainAllocationHandle(inside)", cx.cuda().cuMemRetainAllocationHandle(&mut got, inside))?;
    cx.ensure("the retained handle", got == h, format!("{h:#x}"), format!("{got:#x}"))?;
    cx.release(got)?;
    cx.release(h)?;
    // Both references gone, the mapping still holds the memory.
    let n = size.min(4096);
    cx.write(va, n, 11)?;
    cx.verify("read through the mapping", va, n, 11)?;
    cx.unmap_free(va, size)
}
