//! A repeated import, by the same process onto the same device, of memory
//! it has imported already (ACL-IMP-014: the same handle comes back with
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
//! One process plays both sides (it exports from device 0 and imports onto
//! device 1), which needs two devices.

use super::{Entry, Env, timed};
use crate::error::Result;
use crate::plan::size_label;
use vmmkit_runtime::{Exported, Imported, PhysicalMemory};

/// The group.
pub const GROUP: &str = "reimport";
/// The size shared: 2 MiB, a granule of every backend.
const SIZE: usize = 2 << 20;

/// The entries: per backend with two devices, import + free of an imported
/// handle, and the floor (the backend's own two calls).
///
/// # Errors
/// None; the calls happen when the entries run.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let l = size_label(SIZE);
    let mut out = Vec::new();
    for b in env.backends() {
        if b.device_count() < 2 {
            env.note(format!("{GROUP}: {} skipped, it needs two devices", b.name()));
            continue;
        }
        let mut held: Option<(PhysicalMemory, Exported, Imported)> = None;
        out.push(Entry::new(GROUP, b.name(), &l, move |n| {
            if held.is_none() {
                let mem = b.dev(0).alloc_physical(SIZE)?;
                let ex = mem.export(b.vendor().vmm_sharing()[b.vendor().vmm_sharing().len() - 1])?;
                let first = b.dev(1).import(ex.shareable(), SIZE)?;
                held = Some((mem, ex, first));
            }
            let (_, ex, _) = held.as_ref().expect("set above");
            timed(n, |_| Ok(b.dev(1).import(ex.shareable(), SIZE)?.free()?))
        }));
        let floor = if env.backends().len() > 1 { format!("floor_{}", b.name()) } else { "floor".to_owned() };
        out.push(Entry::new(GROUP, floor, &l, move |n| {
            timed(n, |_| {
                b.cheap_call()?;
                b.cheap_call()
            })
        }));
    }
    Ok(out)
}
