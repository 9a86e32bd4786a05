//! A repeated import, by the same process onto the same device, of memory
//! it has imported already (ACL-IMP-014: the same handle comes back with
//! one more reference), and the free that drops that reference.
//!
//! Floor: two calls through the same table that do nothing (`aclrtGetDevice`):
//! a repeated import needs no system call, since the process holds the
//! memory already, so what it cannot avoid is the cost of two calls.
//!
//! One process plays both sides (it exports from device 0 and imports onto
//! device 1), which needs two devices.

use super::{Entry, Env, timed};
use crate::backend::{Mem, Shareable};
use crate::error::Result;
use crate::plan::size_label;
use vmmkit_runtime::Sharing;

/// The group.
pub const GROUP: &str = "reimport";

/// The entries: import + free of an imported handle, and the floor.
///
/// # Errors
/// The backend's queries failed.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let v = env.vmm();
    if v.device_count()? < 2 {
        env.note(format!("{GROUP}: skipped, it needs two devices"));
        return Ok(vec![]);
    }
    let g = v.granularity()?;
    let l = size_label(g);
    let mut held: Option<Held<'_>> = None;
    Ok(vec![
        Entry::new(GROUP, v.name(), &l, move |n| {
            if held.is_none() {
                let mem = v.alloc(0, g)?;
                let key = v.export(&mem, Sharing::AnyProcess)?;
                let first = v.import(key, 1, g)?;
                held = Some(Held { env, mem: Some(mem), first: Some(first), key });
            }
            let h = held.as_ref().expect("set above");
            timed(n, |_| {
                let m = v.import(h.key, 1, g)?;
                v.free(m)
            })
        }),
        Entry::new(GROUP, "floor", &l, move |n| {
            timed(n, |_| {
                v.cheap_call()?;
                v.cheap_call()
            })
        }),
    ])
}

/// The exported memory and its first import, freed on drop.
struct Held<'a> {
    env: &'a Env,
    mem: Option<Mem>,
    first: Option<Mem>,
    key: Shareable,
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        let v = self.env.vmm();
        for m in [self.first.take(), self.mem.take()].into_iter().flatten() {
            if let Err(e) = v.free(m) {
                eprintln!("reimport bench clean-up: {e}");
            }
        }
    }
}
