//! Typed views of shared files: a file region mapped read-write, shared
//! between processes, seen as a `#[repr(C)]` struct of atomics.

use std::io;
use std::marker::PhantomData;
use std::os::fd::AsFd;

/// Types that may live in memory shared with other processes: `#[repr(C)]`,
/// every field an atomic integer (or an array of them), valid for any bit
/// pattern including all zeros.
///
/// # Safety
/// Implementors must satisfy the above; the view hands out `&Self` over memory
/// that other processes write concurrently.
pub unsafe trait SharedPod: Sync {}

/// A file region of `size_of::<T>()` bytes mapped as a `T`.
#[derive(Debug)]
pub struct SharedView<T: SharedPod> {
    map: memmap2::MmapRaw,
    _t: PhantomData<T>,
}

impl<T: SharedPod> SharedView<T> {
    /// Maps `size_of::<T>()` bytes of `file` at `offset` (page-aligned). The
    /// file must be at least that long.
    pub fn map(file: impl AsFd, offset: u64) -> io::Result<Self> {
        let len = std::mem::size_of::<T>();
        let map = memmap2::MmapOptions::new().offset(offset).len(len).map_raw(&file.as_fd())?;
        assert!(map.as_ptr().align_offset(std::mem::align_of::<T>()) == 0);
        Ok(Self { map, _t: PhantomData })
    }
}

impl<T: SharedPod> std::ops::Deref for SharedView<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the map is `size_of::<T>()` bytes, page-aligned (checked at
        // creation) and lives as long as `self`; `T: SharedPod` is valid for
        // any contents and only mutated through atomics.
        unsafe { &*self.map.as_ptr().cast::<T>() }
    }
}
