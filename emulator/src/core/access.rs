//! Access grants that replace earlier ones (HIP, CUDA: the last
//! `SetAccess` for a location wins), beside [`Emulator::set_access`], which
//! refuses a grant that contradicts an earlier one (ACL).

use crate::registry::Place;

use super::space::mapping_at;
use super::{CoreError, Emulator};

impl Emulator {
    /// Grants `flags` to `loc` over `va..va+size`, which mappings must cover
    /// without a gap, replacing what `loc` was granted there before.
    ///
    /// # Errors
    /// [`CoreError::NotMapped`] when some byte of the range is not mapped.
    pub fn grant_access(&self, va: usize, size: usize, loc: Place, flags: u32) -> Result<(), CoreError> {
        let mut t = self.lock();
        let end = va.checked_add(size).ok_or(CoreError::NotMapped(va))?;
        let mut starts = Vec::new();
        let mut at = va;
        while at < end {
            let (s, m) = mapping_at(&t, at).ok_or(CoreError::NotMapped(at))?;
            starts.push(s);
            at = s + m.len;
        }
        for s in starts {
            let m = t.maps.get_mut(&s).expect("listed above");
            m.access.retain(|&(l, _, _)| l != loc);
            m.access.push((loc, flags, size));
        }
        Ok(())
    }
}
