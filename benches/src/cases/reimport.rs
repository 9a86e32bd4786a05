//! A repeated import, by the same process onto the same device, of memory
//! it has imported already ([ACL-IMP-014](vmmkit_sys::acl::rules::IMP_014): the same handle comes back with
//! one more reference), and the free that drops that reference.
//!
//! Floor: two calls through the same table that do nothing (the device
//! count: `aclrtGetDeviceCount`, `hipGetDeviceCount`, `cuDeviceGetCount`):
//! a repeated import needs no system call, since the process holds the
//! memory already, so what it cannot avoid is the cost of two calls. Each
//! backend has its own floor (`floor_<backend>` when several are measured).
//!
//! On HIP and CUDA the handle is a POSIX fd, and importing it again makes a
//! new handle, as the drivers do (HIP wraps every import in a new handle,
//! ROCm/clr `hipamd/src/hip_vm.cpp:242-243`; CUDA does not promise the same
//! handle for the same allocation; docs/emulator.md, "Facts learned while
//! building it"). The new handle shares the hold the first import has on
//! the entry, found by the fd's file with one `fstat` (`syscalls::EXTRA`).
//! HIP's `int *` argument, a local of the runtime's, is read directly: it
//! lies on the calling thread's live stack (`emulator/src/os/peek.rs`).
//!
//! That `fstat` cannot go: an fd number may be closed and reused for another
//! file, so only the kernel can say which file a number names now (the
//! drivers also hand the fd to the kernel on each import: ROCm/clr passes
//! it to ROCr's `hsa_amd_vmem_import_shareable_handle` every time,
//! `rocclr/device/rocm/rocdevice.cpp:2552-2570`, commit f9f995c6d). So the
//! fd backends have a second reference, `floor_fstat_<backend>`
//! (`floor_fstat` when one backend is measured): the same two calls plus one
//! `fstat` of the exported fd, the floor that includes the one call the
//! operation cannot avoid.
//!
//! One process plays both sides (it exports from device 0 and imports onto
//! device 1), which needs two devices.

use super::{Entry, Env, timed};
use crate::error::{BenchError, Result};
use crate::plan::size_label;
use vmmkit_runtime::{Exported, Imported, PhysicalMemory, Shareable, Sharing};

/// The group.
pub const GROUP: &str = "reimport";
/// The size shared: 2 MiB, a granule of every backend.
const SIZE: usize = 2 << 20;

/// Memory of device 0 of `b`, exported the backend's way (ACL: a key; HIP,
/// CUDA: a POSIX fd).
fn exported(b: &crate::backend::Bk) -> Result<(PhysicalMemory, Exported)> {
    let mem = b.dev(0).alloc_physical(SIZE)?;
    let sharing = b.vendor().vmm_sharing();
    let ex = mem.export(sharing[sharing.len() - 1])?;
    Ok((mem, ex))
}

/// The entries: per backend with two devices, import + free of an imported
/// handle, and the floor (the backend's own two calls); for the fd
/// backends also the floor with the `fstat` of the fd.
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let l = size_label(SIZE);
    let mut out = Vec::new();
    let several = env.backends().len() > 1;
    let name =
        |floor: &str, b: &crate::backend::Bk| if several { format!("{floor}_{}", b.name()) } else { floor.to_owned() };
    for b in env.backends() {
        if b.device_count() < 2 {
            env.note(format!("{GROUP}: {} skipped, it needs two devices", b.name()));
            continue;
        }
        let mut held: Option<(PhysicalMemory, Exported, Imported)> = None;
        out.push(Entry::new(GROUP, b.name(), &l, move |n| {
            if held.is_none() {
                let (mem, ex) = exported(b)?;
                let first = b.dev(1).import(ex.shareable(), SIZE)?;
                held = Some((mem, ex, first));
            }
            let (_, ex, _) = held.as_ref().expect("set above");
            timed(n, |_| Ok(b.dev(1).import(ex.shareable(), SIZE)?.free()?))
        }));
        out.push(Entry::new(GROUP, name("floor", b), &l, move |n| {
            timed(n, |_| {
                b.cheap_call()?;
                b.cheap_call()
            })
        }));
        if b.vendor().vmm_sharing().contains(&Sharing::PosixFd) {
            let mut shared: Option<(PhysicalMemory, Exported)> = None;
            out.push(Entry::new(GROUP, name("floor_fstat", b), &l, move |n| {
                if shared.is_none() {
                    shared = Some(exported(b)?);
                }
                let (_, ex) = shared.as_ref().expect("set above");
                let Shareable::Fd(fd) = ex.shareable() else { unreachable!("a POSIX fd export gives an fd") };
                timed(n, |_| {
                    b.cheap_call()?;
                    std::hint::black_box(rustix::fs::fstat(fd).map_err(|e| BenchError::io("fstat", e))?);
                    b.cheap_call()
                })
            }));
        }
    }
    Ok(out)
}
