//! EX-MEM: exMemAlloc and exMemFree (feature `example-vendor`).

use vmmkit_sys::example::*;

use crate::example::Ctx;
use crate::outcome::Failure;

/// EX-MEM-001: a size of 0 or off the 2 MiB granule is 1 and allocates
/// nothing; a multiple of it works.
pub fn alloc_size(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let ex = cx.example();
    let mut p = std::ptr::null_mut();
    cx.expect_code("exMemAlloc(4096)", ex.exMemAlloc(&mut p, 4096))?;
    cx.expect_code("exMemAlloc(0)", ex.exMemAlloc(&mut p, 0))?;
    cx.expect_code("exMemAlloc(2 MiB + 4096)", ex.exMemAlloc(&mut p, EX_MEM_GRANULE + 4096))?;
    cx.ensure("ptr after the refusals", p.is_null(), "NULL", format!("{p:?}"))?;
    let p = cx.alloc(2 * EX_MEM_GRANULE)?;
    cx.free(p)
}

/// EX-MEM-002: a NULL out-pointer is 2, whatever the size.
pub fn alloc_null(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let ex = cx.example();
    cx.expect_code("exMemAlloc(NULL, 2 MiB)", ex.exMemAlloc(std::ptr::null_mut(), EX_MEM_GRANULE))?;
    cx.expect_code("exMemAlloc(NULL, 4096)", ex.exMemAlloc(std::ptr::null_mut(), 4096))
}

/// EX-MEM-003: freeing a pointer exMemAlloc did not return (an interior
/// one, one freed already) is 5; the allocation stays until its own free.
pub fn free_unknown(cx: &mut Ctx) -> Result<(), Failure> {
    cx.init()?;
    let ex = cx.example();
    let p = cx.alloc(EX_MEM_GRANULE)?;
    cx.expect_code("exMemFree(an interior pointer)", ex.exMemFree(p.wrapping_byte_add(4096)))?;
    cx.expect_ok("exMemFree(the pointer)", ex.exMemFree(p))?;
    cx.expect_code("exMemFree(the pointer again)", ex.exMemFree(p))
}
