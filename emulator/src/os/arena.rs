//! The process's arena: one unnamed file that holds the physical memory of
//! every allocation not shared yet, each at an offset of its own, with one
//! read-write view of the whole file for the emulator's copies.
//!
//! A file per allocation costs an open descriptor each (so `hipMalloc`
//! failed after 1,017 live allocations under the usual soft limit of 1024),
//! and a mapping each for its view besides its device mapping: the kernel's
//! `vm.max_map_count` (65,530 by default) would stop a process near 32,000
//! copied allocations. The arena is one descriptor and one mapping for all
//! of them, and device mappings of neighbouring allocations whose offsets
//! follow their addresses (`hipMalloc`'s: the offset is the address's
//! distance from the start of the device window) are one mapping to the
//! kernel: it merges neighbouring shared mappings of one file at
//! consecutive offsets (`vma_merge`, `mm/vma.c`).
//!
//! Freeing punches a hole (`fallocate(FALLOC_FL_PUNCH_HOLE)`): the pages go
//! back, and the range reads as zeros when it is used again. The file is
//! unnamed (`O_TMPFILE`): it goes with the process, crash included.

use std::io;
use std::os::fd::AsFd;
use std::path::Path;

use rustix::fs::{FallocateFlags, SeekFrom};

use super::object::Object;

/// The arena's file and its view.
#[derive(Debug)]
pub struct Arena {
    object: Object,
    view: memmap2::MmapRaw,
}

impl Arena {
    /// An unnamed sparse file of `len` bytes in `dir` (mode as
    /// [`Object::create`]), mapped whole, read-write, shared. The mapping
    /// reserves no memory: pages come when they are first touched.
    pub fn create(dir: &Path, len: u64, fix_mode: bool) -> io::Result<Self> {
        let object = Object::create(dir, len, fix_mode)?;
        let len = usize::try_from(len).map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        let view = memmap2::MmapOptions::new().len(len).map_raw(&object.fd())?;
        Ok(Self { object, view })
    }

    /// Pointer to byte `offset` of the file in the view; the caller keeps
    /// `offset + n` within the file for the `n` bytes it touches.
    pub fn ptr(&self, offset: u64) -> *mut u8 {
        let offset = usize::try_from(offset).expect("an offset inside the arena");
        assert!(offset <= self.view.len(), "an offset past the arena");
        self.view.as_mut_ptr().wrapping_add(offset)
    }

    /// Bytes of the file.
    pub fn len(&self) -> u64 {
        self.view.len() as u64
    }

    /// Whether the arena is empty (never: it is made with a length).
    pub fn is_empty(&self) -> bool {
        self.view.len() == 0
    }

    /// The file, for device mappings of it.
    pub fn object(&self) -> &Object {
        &self.object
    }

    /// Gives the pages of `offset..offset+len` back: the range reads as
    /// zeros afterwards, in every mapping of it.
    pub fn punch(&self, offset: u64, len: u64) -> io::Result<()> {
        rustix::fs::fallocate(self.object.fd(), FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE, offset, len)?;
        Ok(())
    }

    /// Copies `offset..offset+len` to the start of `to`, data only: holes
    /// (pages never written) are skipped, so a large allocation that was
    /// barely touched costs only its written pages, in `to` too.
    pub fn copy_to(&self, offset: u64, len: u64, to: &Object) -> io::Result<()> {
        let fd = self.object.fd();
        let end = offset + len;
        let mut at = offset;
        while at < end {
            let data = match rustix::fs::seek(fd, SeekFrom::Data(at)) {
                Ok(d) => d,
                // No data from here to the end of the file.
                Err(rustix::io::Errno::NXIO) => break,
                Err(e) => return Err(e.into()),
            };
            if data >= end {
                break;
            }
            let hole = rustix::fs::seek(fd, SeekFrom::Hole(data))?.min(end);
            let (mut from, mut into) = (data, data - offset);
            while from < hole {
                let want = (hole - from) as usize;
                let n = rustix::fs::copy_file_range(fd, Some(&mut from), to.as_fd(), Some(&mut into), want)?;
                if n == 0 {
                    return Err(io::ErrorKind::UnexpectedEof.into());
                }
            }
            at = hole;
        }
        Ok(())
    }
}
