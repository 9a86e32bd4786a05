//! The C-ABI fuzzer's table for the VMM calls of HIP and CUDA, written once
//! over [`VmmAbi`] (the two dialects' raw calls and the few rules where
//! they differ). Arguments are decoded from six numbers as for ACL: NULL
//! out-pointers, zero, unaligned and huge sizes, live, released and garbage
//! handles, reservation starts, interiors and garbage addresses, flags out
//! of range, own, closed and garbage fds.
//!
//! Checks per call: the code is in the set the reference gives the
//! function (hip.md §4.5, cuda.md §3.3); exact codes where the model
//! decides (NULL out-pointer, size 0 or flags ≠ 0 → 1, release of an
//! unknown or only-mapped handle → 1, of a live one → 0, unmap and free of
//! what is not a mapping or reservation start → 1, export of a live handle
//! → 0, import of an open exported fd → 0, of a closed one → 1). Per
//! sequence: the census equals the model's handles, reservations and
//! mappings; after everything is released (every call 0, fds closed) the
//! census is 0 and device usage is back to the baseline.

use std::ffi::c_void;
use std::os::fd::{AsRawFd, OwnedFd};

use super::dialect::{Cuda, FdShareable, Hip};
use vmmkit_sys::{cuda::*, hip::*};

/// The VMM functions fuzzed, in the order of their numbers.
pub const OPS: [&str; 12] = [
    "Create",
    "Release",
    "Reserve",
    "AddressFree",
    "Map",
    "Unmap",
    "SetAccess",
    "Export",
    "Import",
    "Write",
    "Read",
    "Retain",
];

/// What a sequence is decoded from.
pub type Args = [u64; 6];

/// The raw VMM calls of a dialect, returning its code as a number.
pub trait VmmAbi {
    /// Whether AddressFree compares the size (CUDA-VMM-007) or frees the
    /// whole reservation whatever it is (HIP-VMM-013).
    const FREE_CHECKS_SIZE: bool;
    /// Whether AddressFree of a reservation that still holds mappings
    /// frees it, dropping the mappings (HIP-VMM-013, emulator: 0), or is
    /// refused (CUDA probe P5, emulator: 1).
    const FREE_WHILE_MAPPED: bool;
    /// Whether AddressFree of an address inside a reservation frees the
    /// whole reservation (HIP-VMM-013) rather than failing.
    const FREE_INTERIOR: bool = false;
    /// Whether a partial or interior unmap answers 0 and unmaps nothing
    /// (HIP-VMM-019, 6.x profile).
    fn partial_unmap_is_noop() -> bool {
        false
    }
    /// Whether retain takes a reference (CUDA; HIP-VMM-033 in the 7.x profile).
    fn retain_takes_ref() -> bool {
        true
    }
    /// The codes each function may return (hip.md §4.5 / cuda.md §3.3, plus
    /// out of memory where the call charges or places memory).
    fn allowed(op: usize) -> &'static [i64];
    fn create(&self, out: *mut u64, size: usize, device: i32, fd_type: bool, flags: u64) -> i64;
    fn release(&self, h: u64) -> i64;
    fn reserve(&self, out: *mut u64, size: usize, align: usize, flags: u64) -> i64;
    fn address_free(&self, va: u64, size: usize) -> i64;
    fn map(&self, va: u64, size: usize, offset: usize, h: u64, flags: u64) -> i64;
    fn unmap(&self, va: u64, size: usize) -> i64;
    fn set_access(&self, va: u64, size: usize, device: i32, flags: u64, count: usize) -> i64;
    fn export(&self, out: *mut i32, h: u64, flags: u64) -> i64;
    fn import(&self, out: *mut u64, fd: i32) -> i64;
    fn write(&self, va: u64, host: *const u8, n: usize) -> i64;
    fn read(&self, host: *mut u8, va: u64, n: usize) -> i64;
    fn retain(&self, out: *mut u64, va: u64) -> i64;
}

/// Whether the emulator plays the HIP 7.x profile (`VMMKIT_HIP_VERSION`).
fn hip_v7() -> bool {
    vmmkit_emulator::HipVersion::from_env().is_ok_and(|v| v.major == 7)
}

impl VmmAbi for Hip {
    const FREE_CHECKS_SIZE: bool = false;
    const FREE_WHILE_MAPPED: bool = true;
    const FREE_INTERIOR: bool = true;
    fn partial_unmap_is_noop() -> bool {
        !hip_v7()
    }
    fn retain_takes_ref() -> bool {
        hip_v7()
    }
    fn allowed(op: usize) -> &'static [i64] {
        match op {
            0 => &[0, 1, 2, 101, 801],
            2 => &[0, 1, 2],
            _ => &[0, 1],
        }
    }
    fn create(&self, out: *mut u64, size: usize, device: i32, fd_type: bool, flags: u64) -> i64 {
        let p = hipMemAllocationProp {
            type_: hipMemAllocationTypePinned,
            requestedHandleType: if fd_type { hipMemHandleTypePosixFileDescriptor } else { hipMemHandleTypeNone },
            location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
            ..Default::default()
        };
        // SAFETY: `out` is NULL or scratch; the record is valid.
        i64::from(unsafe { (self.api.hipMemCreate)(out.cast(), size, &p, flags) })
    }
    fn release(&self, h: u64) -> i64 {
        // SAFETY: handle values are looked up.
        i64::from(unsafe { (self.api.hipMemRelease)(h as usize as *mut c_void) })
    }
    fn reserve(&self, out: *mut u64, size: usize, align: usize, flags: u64) -> i64 {
        // SAFETY: `out` is NULL or scratch.
        i64::from(unsafe { (self.api.hipMemAddressReserve)(out.cast(), size, align, std::ptr::null_mut(), flags) })
    }
    fn address_free(&self, va: u64, size: usize) -> i64 {
        // SAFETY: addresses are looked up.
        i64::from(unsafe { (self.api.hipMemAddressFree)(va as usize as *mut c_void, size) })
    }
    fn map(&self, va: u64, size: usize, offset: usize, h: u64, flags: u64) -> i64 {
        // SAFETY: addresses and handles are looked up.
        i64::from(unsafe {
            (self.api.hipMemMap)(va as usize as *mut c_void, size, offset, h as usize as *mut c_void, flags)
        })
    }
    fn unmap(&self, va: u64, size: usize) -> i64 {
        // SAFETY: addresses are looked up.
        i64::from(unsafe { (self.api.hipMemUnmap)(va as usize as *mut c_void, size) })
    }
    fn set_access(&self, va: u64, size: usize, device: i32, flags: u64, count: usize) -> i64 {
        let d = hipMemAccessDesc {
            location: hipMemLocation { type_: hipMemLocationTypeDevice, id: device },
            flags: flags as _,
        };
        let descs = [d; 4];
        // SAFETY: `count` ≤ 4 descriptors are read.
        i64::from(unsafe { (self.api.hipMemSetAccess)(va as usize as *mut c_void, size, descs.as_ptr(), count) })
    }
    fn export(&self, out: *mut i32, h: u64, flags: u64) -> i64 {
        // SAFETY: `out` is NULL or scratch; handles are looked up.
        i64::from(unsafe {
            (self.api.hipMemExportToShareableHandle)(
                out.cast(),
                h as usize as *mut c_void,
                hipMemHandleTypePosixFileDescriptor,
                flags,
            )
        })
    }
    fn import(&self, out: *mut u64, fd: i32) -> i64 {
        // SAFETY: `out` is NULL or scratch; the fd value cast to a pointer (HIP-VMM-026).
        i64::from(unsafe {
            (self.api.hipMemImportFromShareableHandle)(
                out.cast(),
                fd as usize as *mut c_void,
                hipMemHandleTypePosixFileDescriptor,
            )
        })
    }
    fn write(&self, va: u64, host: *const u8, n: usize) -> i64 {
        // SAFETY: `host` is valid for `n` bytes; the device side is looked up.
        i64::from(unsafe { (self.api.hipMemcpy)(va as usize as *mut c_void, host.cast(), n, hipMemcpyHostToDevice) })
    }
    fn read(&self, host: *mut u8, va: u64, n: usize) -> i64 {
        // SAFETY: `host` is valid for `n` bytes; the device side is looked up.
        i64::from(unsafe { (self.api.hipMemcpy)(host.cast(), va as usize as *const c_void, n, hipMemcpyDeviceToHost) })
    }
    fn retain(&self, out: *mut u64, va: u64) -> i64 {
        // SAFETY: `out` is NULL or scratch; addresses are looked up.
        i64::from(unsafe { (self.api.hipMemRetainAllocationHandle)(out.cast(), va as usize as *mut c_void) })
    }
}

impl VmmAbi for Cuda {
    const FREE_CHECKS_SIZE: bool = true;
    const FREE_WHILE_MAPPED: bool = false;
    fn allowed(op: usize) -> &'static [i64] {
        match op {
            0 => &[0, 1, 2, 101, 800, 801],
            2 => &[0, 1, 2],
            6 => &[0, 1, 101, 801], // CUDA_ERROR_INVALID_DEVICE: a location id that is no device (cuMemSetAccess docs)
            _ => &[0, 1],
        }
    }
    fn create(&self, out: *mut u64, size: usize, device: i32, fd_type: bool, flags: u64) -> i64 {
        let p = CUmemAllocationProp {
            type_: CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: if fd_type { CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR } else { 0 },
            location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device },
            ..Default::default()
        };
        // SAFETY: `out` is NULL or scratch; the record is valid.
        i64::from(unsafe { (self.api.cuMemCreate)(out, size, &p, flags) })
    }
    fn release(&self, h: u64) -> i64 {
        // SAFETY: handle values are looked up.
        i64::from(unsafe { (self.api.cuMemRelease)(h) })
    }
    fn reserve(&self, out: *mut u64, size: usize, align: usize, flags: u64) -> i64 {
        // SAFETY: `out` is NULL or scratch.
        i64::from(unsafe { (self.api.cuMemAddressReserve)(out, size, align, 0, flags) })
    }
    fn address_free(&self, va: u64, size: usize) -> i64 {
        // SAFETY: addresses are looked up.
        i64::from(unsafe { (self.api.cuMemAddressFree)(va, size) })
    }
    fn map(&self, va: u64, size: usize, offset: usize, h: u64, flags: u64) -> i64 {
        // SAFETY: addresses and handles are looked up.
        i64::from(unsafe { (self.api.cuMemMap)(va, size, offset, h, flags) })
    }
    fn unmap(&self, va: u64, size: usize) -> i64 {
        // SAFETY: addresses are looked up.
        i64::from(unsafe { (self.api.cuMemUnmap)(va, size) })
    }
    fn set_access(&self, va: u64, size: usize, device: i32, flags: u64, count: usize) -> i64 {
        let d = CUmemAccessDesc {
            location: CUmemLocation { type_: CU_MEM_LOCATION_TYPE_DEVICE, id: device },
            flags: flags as _,
        };
        let descs = [d; 4];
        // SAFETY: `count` ≤ 4 descriptors are read.
        i64::from(unsafe { (self.api.cuMemSetAccess)(va, size, descs.as_ptr(), count) })
    }
    fn export(&self, out: *mut i32, h: u64, flags: u64) -> i64 {
        // SAFETY: `out` is NULL or scratch; handles are looked up.
        i64::from(unsafe {
            (self.api.cuMemExportToShareableHandle)(out.cast(), h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, flags)
        })
    }
    fn import(&self, out: *mut u64, fd: i32) -> i64 {
        // SAFETY: `out` is NULL or scratch; the fd value cast to a pointer (CUDA-VMM-017).
        i64::from(unsafe {
            (self.api.cuMemImportFromShareableHandle)(
                out,
                fd as usize as *mut c_void,
                CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
            )
        })
    }
    fn write(&self, va: u64, host: *const u8, n: usize) -> i64 {
        // SAFETY: `host` is valid for `n` bytes; the device side is looked up.
        i64::from(unsafe { (self.api.cuMemcpyHtoD)(va, host.cast(), n) })
    }
    fn read(&self, host: *mut u8, va: u64, n: usize) -> i64 {
        // SAFETY: `host` is valid for `n` bytes; the device side is looked up.
        i64::from(unsafe { (self.api.cuMemcpyDtoH)(host.cast(), va, n) })
    }
    fn retain(&self, out: *mut u64, va: u64) -> i64 {
        // SAFETY: `out` is NULL or scratch; addresses are looked up.
        i64::from(unsafe { (self.api.cuMemRetainAllocationHandle)(out, va as usize as *mut c_void) })
    }
}

/// A handle the sequence holds, with its references (its own, its maps').
#[derive(Debug, Clone)]
struct MHandle {
    value: u64,
    size: usize,
    refs: u32,
    map_refs: u32,
    fd_type: bool,
}

/// The model of what a sequence holds.
#[derive(Default)]
struct Model {
    handles: Vec<MHandle>,
    dead: Vec<u64>,
    rsvs: Vec<(u64, usize)>,
    released: Vec<u64>,
    maps: Vec<(u64, usize, u64)>,
    /// Exported fds this process owns, with the size of their memory.
    fds: Vec<(OwnedFd, usize)>,
    closed: Vec<i32>,
}

impl Model {
    fn handle_mut(&mut self, v: u64) -> Option<&mut MHandle> {
        self.handles.iter_mut().find(|h| h.value == v && v != 0)
    }
    fn unref(&mut self, v: u64) {
        let Some(i) = self.handles.iter().position(|h| h.value == v) else { return };
        self.handles[i].refs -= 1;
        if self.handles[i].refs == 0 {
            self.dead.push(self.handles.remove(i).value);
        }
    }
    fn unmap(&mut self, va: u64) {
        let Some(i) = self.maps.iter().position(|m| m.0 == va) else { return };
        let (_, _, h) = self.maps.remove(i);
        if let Some(m) = self.handle_mut(h) {
            m.map_refs -= 1;
        }
        self.unref(h);
    }
}

fn pick<T: Copy>(sel: u64, choices: &[T]) -> T {
    choices[(sel % choices.len() as u64) as usize]
}

fn recent<T>(v: &[T], raw: u64) -> &T {
    &v[v.len() - 1 - (raw % v.len() as u64) as usize]
}

const G: usize = 2 << 20;

/// Runs sequences of VMM calls of one dialect and checks them.
pub struct VmmExec<V: VmmAbi> {
    v: V,
    m: Model,
    scratch: Box<[u64; 16]>,
    host: Vec<u8>,
    baseline: Vec<u64>,
}

impl<V: VmmAbi> VmmExec<V> {
    /// An executor over `v`, whose device usage now is the baseline.
    pub fn new(v: V) -> Self {
        let baseline = vmmkit_emulator::core::emulator().map(|e| e.registry().usage().used).unwrap_or_default();
        Self { v, m: Model::default(), scratch: Box::new([0; 16]), host: vec![0; 8 * G + 8192], baseline }
    }

    fn out<T>(&mut self, sel: u64) -> *mut T {
        match sel % 8 {
            7 => std::ptr::null_mut(),
            _ => self.scratch.as_mut_ptr().cast(),
        }
    }

    fn read_out<T: Copy>(&self, p: *const T) -> T {
        // SAFETY: `p` points into the scratch.
        unsafe { p.read_unaligned() }
    }

    fn handle(&self, sel: u64, raw: u64) -> u64 {
        let live: Vec<u64> = self.m.handles.iter().map(|h| h.value).collect();
        match sel % 8 {
            0..=3 if !live.is_empty() => *recent(&live, raw),
            4 if !self.m.dead.is_empty() => *recent(&self.m.dead, raw),
            5 => 0,
            6 => raw,
            _ => live.last().copied().unwrap_or(raw | 1),
        }
    }

    fn va(&self, sel: u64, raw: u64) -> (u64, Option<usize>) {
        match sel % 8 {
            0 | 1 if !self.m.rsvs.is_empty() => {
                let r = *recent(&self.m.rsvs, raw);
                (r.0, Some(r.1))
            }
            2 | 3 if !self.m.maps.is_empty() => {
                let m = *recent(&self.m.maps, raw);
                (m.0, Some(m.1))
            }
            4 if !self.m.maps.is_empty() => (recent(&self.m.maps, raw).0 + 4096, None),
            5 if !self.m.released.is_empty() => (*recent(&self.m.released, raw), None),
            6 => (0, None),
            _ => (0x1000_0000_0000 + (raw % (1 << 40)) / G as u64 * G as u64, None),
        }
    }

    fn size(sel: u64, raw: u64, natural: Option<usize>) -> usize {
        match sel % 8 {
            0..=3 => natural.unwrap_or(G),
            4 => 0,
            5 => G + 4096,
            6 => usize::MAX & !(G - 1),
            _ => raw as usize % (16 << 20),
        }
    }

    /// Runs one call (`op` an index of [`OPS`]); its code, or why it is wrong.
    pub fn run(&mut self, op: usize, a: Args) -> Result<i64, String> {
        let (code, exact): (i64, Option<i64>) = match op {
            0 => {
                let out: *mut u64 = self.out(a[0]);
                let size = pick(a[1], &[G, 2 * G, 4 * G, G, 0, 4096, 1 << 40, a[1] as usize >> 3 & 0xff_ffff]);
                let device = pick(a[2], &[0, 1, 0, 1, 2, -1]);
                let flags = pick(a[3], &[0, 0, 0, 1]);
                let fd_type = a[4] % 4 != 3;
                let c = self.v.create(out, size, device, fd_type, flags);
                if c == 0 {
                    let value = self.read_out(out);
                    self.m.handles.push(MHandle { value, size, refs: 1, map_refs: 0, fd_type });
                }
                (c, (out.is_null() || size == 0 || flags != 0).then_some(1))
            }
            1 => {
                let h = self.handle(a[0], a[1]);
                let c = self.v.release(h);
                let want = match self.m.handles.iter().find(|m| m.value == h && h != 0) {
                    Some(m) if m.refs > m.map_refs => 0,
                    _ => 1,
                };
                if c == 0 {
                    self.m.unref(h);
                }
                (c, Some(want))
            }
            2 => {
                let out: *mut u64 = self.out(a[0]);
                let size = pick(a[1], &[G, 2 * G, 4 * G, 0, 4097, 1 << 30]);
                let align = pick(a[2], &[0, 0, G, 3]);
                let flags = pick(a[3], &[0, 0, 0, 1]);
                let c = self.v.reserve(out, size, align, flags);
                if c == 0 {
                    let base = self.read_out(out);
                    self.m.rsvs.push((base, size));
                }
                (c, (out.is_null() || flags != 0).then_some(1))
            }
            3 => {
                let (va, natural) = self.va(a[0], a[1]);
                let size = Self::size(a[2], a[3], natural);
                let c = self.v.address_free(va, size);
                let mapped = |r: &(u64, usize)| self.m.maps.iter().any(|m| m.0 >= r.0 && m.0 < r.0 + r.1 as u64);
                let holds = |r: &&(u64, usize)| r.0 == va || (V::FREE_INTERIOR && va > r.0 && va < r.0 + r.1 as u64);
                let rsv = self.m.rsvs.iter().filter(|_| va != 0).find(holds).copied();
                let want = match rsv {
                    Some(r) if mapped(&r) && !V::FREE_WHILE_MAPPED => None,
                    Some(r) if size != 0 && (r.1 == size || !V::FREE_CHECKS_SIZE) => Some(0),
                    Some(_) => None,
                    None => Some(1),
                };
                if c == 0 {
                    let base = rsv.ok_or("freed an unknown reservation")?.0;
                    let i = self.m.rsvs.iter().position(|r| r.0 == base).ok_or("freed an unknown reservation")?;
                    let (base, len) = self.m.rsvs.remove(i);
                    let inside: Vec<u64> =
                        self.m.maps.iter().filter(|m| m.0 >= base && m.0 < base + len as u64).map(|m| m.0).collect();
                    for m in inside {
                        self.m.unmap(m);
                    }
                    self.m.released.push(base);
                }
                (c, want)
            }
            4 => {
                let (va, natural) = self.va(a[0], a[1]);
                let h = self.handle(a[2], a[3]);
                let hs = self.m.handles.iter().find(|m| m.value == h).map(|m| m.size);
                let size = Self::size(a[4], a[4] >> 3, hs.or(natural));
                let offset = pick(a[5], &[0, 0, 0, G]);
                let flags = pick(a[5] >> 2, &[0, 0, 0, 1]);
                let c = self.v.map(va, size, offset, h, flags);
                if c == 0 {
                    let m = self.m.handle_mut(h).ok_or("map of a handle the model does not know succeeded")?;
                    m.refs += 1;
                    m.map_refs += 1;
                    self.m.maps.push((va, size, h));
                }
                (c, (va == 0 || h == 0 || size == 0 || offset != 0 || flags != 0).then_some(1))
            }
            5 => {
                let (va, natural) = self.va(a[0], a[1]);
                let size = Self::size(a[2], a[3], natural);
                let c = self.v.unmap(va, size);
                let inside = self.m.maps.iter().any(|m| va != 0 && va >= m.0 && va < m.0 + m.1 as u64);
                let whole = self.m.maps.iter().any(|m| m.0 == va && va != 0 && m.1 == size);
                let noop = V::partial_unmap_is_noop() && size != 0 && inside && !whole;
                let want = match self.m.maps.iter().find(|m| m.0 == va && va != 0) {
                    Some(m) if m.1 == size => Some(0),
                    _ if noop => Some(0),
                    Some(_) => None,
                    None => Some(1),
                };
                if c == 0 && !noop {
                    self.m.unmap(va);
                }
                (c, want)
            }
            6 => {
                let (va, natural) = self.va(a[0], a[1]);
                let size = Self::size(a[2], a[3], natural);
                let device = pick(a[4], &[0, 1, 0, 2, -1]);
                let flags = pick(a[4] >> 3, &[3, 3, 1, 0, 2, 7]);
                let count = pick(a[5], &[1, 1, 2, 0, 4]);
                let c = self.v.set_access(va, size, device, flags, count);
                (c, (va == 0 || size == 0 || count == 0).then_some(1))
            }
            7 => {
                let h = self.handle(a[0], a[1]);
                let out: *mut i32 = self.out(a[2]);
                let flags = pick(a[3], &[0, 0, 0, 1]);
                let c = self.v.export(out, h, flags);
                let live = self.m.handles.iter().find(|m| m.value == h && h != 0).cloned();
                let want = match &live {
                    _ if out.is_null() || flags != 0 || h == 0 => Some(1),
                    Some(m) if m.fd_type => Some(0),
                    Some(_) => Some(1),
                    None => Some(1),
                };
                if c == 0 {
                    let fd = FdShareable::adopt(self.read_out(out)).0;
                    self.m.fds.push((fd, live.map(|m| m.size).unwrap_or(G)));
                }
                (c, want)
            }
            8 => {
                let out: *mut u64 = self.out(a[0]);
                let (fd, size) = match a[1] % 6 {
                    0..=2 if !self.m.fds.is_empty() => {
                        let (f, s) = recent(&self.m.fds, a[2]);
                        (f.as_raw_fd(), Some(*s))
                    }
                    3 if !self.m.closed.is_empty() => (*recent(&self.m.closed, a[2]), None),
                    4 => (pick(a[2], &[0, 1, 2, -1, 100_000]), None),
                    _ => (-1, None),
                };
                let c = self.v.import(out, fd);
                let want = if out.is_null() {
                    Some(1)
                } else if size.is_some() {
                    Some(0)
                } else if self.m.closed.contains(&fd) || fd < 0 || fd == 100_000 {
                    Some(1)
                } else {
                    None
                };
                if c == 0 {
                    let value = self.read_out(out);
                    match self.m.handle_mut(value) {
                        Some(m) => m.refs += 1,
                        None => self.m.handles.push(MHandle {
                            value,
                            size: size.unwrap_or(G),
                            refs: 1,
                            map_refs: 0,
                            fd_type: true,
                        }),
                    }
                }
                // An exported fd closed now and then, so closed numbers are tried too.
                if a[3] % 4 == 3 && !self.m.fds.is_empty() {
                    let (f, _) = self.m.fds.remove(0);
                    self.m.closed.push(f.as_raw_fd());
                }
                (c, want)
            }
            9 | 10 => {
                let (va, natural) = self.va(a[0], a[1]);
                let n = pick(a[2], &[natural.unwrap_or(4096), 4096, 1, 0, 8 * G]);
                let c = if op == 9 {
                    self.v.write(va, self.host.as_ptr(), n)
                } else {
                    let p = self.host.as_mut_ptr();
                    self.v.read(p, va, n)
                };
                (c, None)
            }
            _ => {
                let out: *mut u64 = self.out(a[0]);
                let (va, _) = self.va(a[1], a[2]);
                let c = self.v.retain(out, va);
                let mapped = self.m.maps.iter().find(|m| va >= m.0 && va < m.0 + m.1 as u64).map(|m| m.2);
                if c == 0 {
                    let v = self.read_out(out);
                    if Some(v) != mapped {
                        return Err(format!("retain at {va:#x} returned {v:#x}, the mapping's handle is {mapped:?}"));
                    }
                    if V::retain_takes_ref() {
                        self.m.handle_mut(v).ok_or("retained handle unknown")?.refs += 1;
                    }
                }
                let want = if out.is_null() || va == 0 { Some(1) } else { Some(i64::from(mapped.is_none())) };
                (c, want)
            }
        };
        if !V::allowed(op).contains(&code) {
            return Err(format!("{} returned {code}, not in the allowed set {:?}", OPS[op], V::allowed(op)));
        }
        if let Some(w) = exact
            && w != code
        {
            return Err(format!(
                "{} returned {code}, expected exactly {w} ({})",
                OPS[op],
                vmmkit_emulator::core::thread::message()
            ));
        }
        Ok(code)
    }

    /// After a sequence: the census matches the model; everything is
    /// released through the table (each call 0), fds closed; then the census
    /// is 0 and usage is back to the baseline.
    pub fn settle(&mut self) -> Result<(), String> {
        let emu = vmmkit_emulator::core::emulator().map_err(|e| e.to_string())?;
        let want = (self.m.handles.len(), self.m.rsvs.len(), self.m.maps.len());
        if emu.census() != want {
            return Err(format!("census {:?}, the model holds {want:?}", emu.census()));
        }
        for (va, len, _) in self.m.maps.clone() {
            let c = self.v.unmap(va, len);
            if c != 0 {
                return Err(format!("teardown: unmap of {va:#x}: {c}"));
            }
            self.m.unmap(va);
        }
        for (base, len) in std::mem::take(&mut self.m.rsvs) {
            let c = self.v.address_free(base, len);
            if c != 0 {
                return Err(format!("teardown: free of {base:#x}: {c}"));
            }
        }
        for h in self.m.handles.clone() {
            for _ in 0..h.refs {
                let c = self.v.release(h.value);
                if c != 0 {
                    return Err(format!("teardown: release of {:#x}: {c}", h.value));
                }
            }
        }
        self.m = Model::default(); // closes the fds
        if emu.census() != (0, 0, 0) {
            return Err(format!("after teardown the census is {:?}", emu.census()));
        }
        let _ = emu.registry().gc(); // entries whose last holder was a closed fd
        let used = emu.registry().usage().used;
        if used != self.baseline {
            return Err(format!("after teardown usage is {used:?}, baseline {:?}", self.baseline));
        }
        Ok(())
    }
}
