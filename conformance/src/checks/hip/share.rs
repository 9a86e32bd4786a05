//! HIP-VMM export and import of POSIX-fd shareable handles, as far as one
//! process can provoke them (importing one's own fd is allowed, [HIP-VMM-028](vmmkit_sys::hip::rules::VMM_028)).

use std::ptr;

use vmmkit_sys::hip::*;

use crate::hip::{Ctx, Va};
use crate::outcome::Failure;

fn export(cx: &Ctx, h: hipMemGenericAllocationHandle_t) -> Result<i32, Failure> {
    let mut fd = -1i32;
    let r = cx.hip().hipMemExportToShareableHandle((&raw mut fd).cast(), h, hipMemHandleTypePosixFileDescriptor, 0);
    crate::hip::setup("hipMemExportToShareableHandle", r)?;
    Ok(fd)
}

/// [HIP-VMM-024](vmmkit_sys::hip::rules::VMM_024): flags ≠ 0, NULL handle, NULL out (6.2–6.4 crash: left out
/// on a real 6.x library), a handle type other than the allocation's.
pub fn export_args(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let hip = cx.hip();
    let mut fd = -1i32;
    let out: Va = (&raw mut fd).cast();
    let posix = hipMemHandleTypePosixFileDescriptor;
    cx.expect_code("export(flags 1)", hip.hipMemExportToShareableHandle(out, h, posix, 1))?;
    cx.expect_code("export(NULL handle)", hip.hipMemExportToShareableHandle(out, ptr::null_mut(), posix, 0))?;
    if !cx.skip_vendor_crash("export(NULL out)") {
        cx.expect_code("export(NULL out)", hip.hipMemExportToShareableHandle(ptr::null_mut(), h, posix, 0))?;
    }
    cx.expect_code("export(type None)", hip.hipMemExportToShareableHandle(out, h, hipMemHandleTypeNone, 0))?;
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-025](vmmkit_sys::hip::rules::VMM_025): an int fd is written in the low 4 bytes of the out slot.
pub fn export_writes_fd(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    let mut slot: u64 = u64::MAX;
    let r = cx.hip().hipMemExportToShareableHandle((&raw mut slot).cast(), h, hipMemHandleTypePosixFileDescriptor, 0);
    cx.expect_ok("export into an 8-byte slot", r)?;
    let fd = slot as u32 as i32;
    cx.ensure("the high 4 bytes", slot >> 32 == 0xffff_ffff, "left alone", format!("{slot:#x}"))?;
    cx.ensure("the fd", fd > 2, "an fd above 2", fd)?;
    crate::hip::Hip::close_exported_fd(fd);
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-027](vmmkit_sys::hip::rules::VMM_027): NULL handle, NULL osHandle, an fd number that is not open.
pub fn import_args(cx: &mut Ctx) -> Result<(), Failure> {
    cx.device(0)?;
    let hip = cx.hip();
    let mut h = ptr::null_mut();
    let t = hipMemHandleTypePosixFileDescriptor;
    cx.expect_code("import(NULL handle)", hip.hipMemImportFromShareableHandle(ptr::null_mut(), 5 as Va, t))?;
    cx.expect_code("import(NULL osHandle)", hip.hipMemImportFromShareableHandle(&mut h, ptr::null_mut(), t))?;
    let mut closed = 999_999i32;
    cx.expect_code("import(&closed fd)", hip.hipMemImportFromShareableHandle(&mut h, (&raw mut closed).cast(), t))
}

/// [HIP-VMM-028](vmmkit_sys::hip::rules::VMM_028): a process imports its own fd (passed as `int*`, hip.md
/// [HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026)), maps it, and sees the same memory.
pub fn import_own(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 33)?;
    let mut fd = export(cx, h)?;
    let mut own = ptr::null_mut();
    let r =
        cx.hip().hipMemImportFromShareableHandle(&mut own, (&raw mut fd).cast(), hipMemHandleTypePosixFileDescriptor);
    cx.expect_ok("import of one's own fd", r)?;
    crate::hip::Hip::close_exported_fd(fd);
    let va2 = cx.reserve(size)?;
    cx.map(va2, size, own)?;
    cx.access(va2, size)?;
    cx.verify("the imported mapping", va2, size, 33)?;
    cx.unmapped(va2, own, size)?;
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-029](vmmkit_sys::hip::rules::VMM_029): memory of device 0 exported and imported by this process
/// with device 1 current: the imported handle's properties are Pinned on
/// {Device, 1}, and it maps and carries the exporter's bytes.
pub fn imported_properties(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 73)?;
    let mut fd = export(cx, h)?;
    cx.device(1)?;
    let hip = cx.hip();
    let mut imported = ptr::null_mut();
    let t = hipMemHandleTypePosixFileDescriptor;
    let os_handle: Va = if cx.is_v7() { fd as usize as Va } else { (&raw mut fd).cast() };
    let r = hip.hipMemImportFromShareableHandle(&mut imported, os_handle, t);
    crate::hip::Hip::close_exported_fd(fd);
    cx.expect_ok("hipMemImportFromShareableHandle with device 1 current", r)?;
    let mut p = hipMemAllocationProp::default();
    cx.expect_ok(
        "hipMemGetAllocationPropertiesFromHandle",
        hip.hipMemGetAllocationPropertiesFromHandle(&mut p, imported),
    )?;
    cx.ensure("the imported handle's type", p.type_ == hipMemAllocationTypePinned, "Pinned", p.type_)?;
    let at = (p.location.type_, p.location.id);
    cx.ensure("the imported handle's location", at == (hipMemLocationTypeDevice, 1), "Device 1", format!("{at:?}"))?;
    cx.note(format!("requestedHandleType reads {}", p.requestedHandleType));
    let va2 = cx.reserve(size)?;
    cx.map(va2, size, imported)?;
    crate::hip::setup("hipMemSetAccess(device 1)", hip.hipMemSetAccess(va2, size, &crate::hip::rw_desc(1), 1))?;
    cx.verify("the imported mapping", va2, size, 73)?;
    cx.unmapped(va2, imported, size)?;
    cx.device(0)?;
    cx.unmapped(va, h, size)
}
