//! Pinned host buffers (`hipHostMalloc`, `aclrtMallocHost`, `cuMemAllocHost`):
//! page-aligned, zeroed host memory the runtime knows by address.

use std::alloc::Layout;

use super::{CoreError, Emulator};

/// Alignment of host buffers: a page, as the vendors' pinned allocations have.
const HOST_ALIGN: usize = 4096;

impl Emulator {
    /// Allocates `size` (> 0) bytes of zeroed host memory; returns its address.
    ///
    /// # Errors
    /// [`CoreError::HostExhausted`] when the host cannot provide it.
    pub fn alloc_host(&self, size: usize) -> Result<usize, CoreError> {
        let exhausted = || CoreError::HostExhausted(format!("{size} bytes of host memory cannot be allocated"));
        let layout = Layout::from_size_align(size.max(1), HOST_ALIGN).map_err(|_| exhausted())?;
        // SAFETY: the layout has a nonzero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(exhausted());
        }
        self.lock().host.insert(p as usize, layout.size());
        Ok(p as usize)
    }

    /// Frees the host buffer that starts at `p`.
    ///
    /// # Errors
    /// [`CoreError::NotMapped`] when no host buffer of this process starts there.
    pub fn free_host(&self, p: usize) -> Result<(), CoreError> {
        let size = self.lock().host.remove(&p).ok_or(CoreError::NotMapped(p))?;
        let layout = Layout::from_size_align(size, HOST_ALIGN).map_err(|e| CoreError::Os(e.to_string()))?;
        // SAFETY: allocated by `alloc_host` with this layout, removed from the table once.
        unsafe { std::alloc::dealloc(p as *mut u8, layout) };
        Ok(())
    }

    /// Whether any host buffer overlaps `p..p+len`.
    pub fn host_overlaps(&self, p: usize, len: usize) -> bool {
        let end = p.saturating_add(len);
        self.lock().host.range(..end).next_back().is_some_and(|(&start, &n)| start + n > p)
    }

    /// The host buffer that contains `p`: its start and size.
    pub fn host_at(&self, p: usize) -> Option<(usize, usize)> {
        let t = self.lock();
        let (&start, &len) = t.host.range(..=p).next_back()?;
        (p < start + len).then_some((start, len))
    }
}
