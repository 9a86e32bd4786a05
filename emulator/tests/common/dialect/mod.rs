//! The flows the reliability tests drive (allocate, map, export, trust,
//! import, copy, free), written once against [`Dialect`]; [`Acl`], [`Hip`]
//! and [`Cuda`] implement it over the emulator's three tables.
//!
//! A dialect says which of its codes mean the conditions the tests provoke
//! (out of memory, unknown shareable handle, refused import), which C
//! function does each step (fault injection names them), and how its
//! shareable handle travels between workers: ACL's is a number, written as
//! text; HIP's and CUDA's POSIX-fd handles are file descriptors, sent with
//! `SCM_RIGHTS` beside a text placeholder ([`Dialect::to_wire`]).

use std::fmt::Debug;
use std::os::fd::OwnedFd;
use std::ptr::null;

use vmmkit_sys::acl::*;

mod acl;
mod cuda;
mod hip;

#[allow(unused_imports)] // not every test binary uses every dialect
pub use acl::{Acl, acl_prop, u64Hex};
#[allow(unused_imports)]
pub use cuda::Cuda;
#[allow(unused_imports)]
pub use hip::Hip;

/// A vendor return code as a number (ACL `aclError`, `hipError_t`, `CUresult`).
pub type Code = i64;

/// A process-local handle to physical memory, as the C ABI passes it.
pub type Handle = usize;

/// The calls a step of the flows makes, by what they do; each dialect names
/// its C function for each ([`Dialect::function`]), or none where it has no
/// such call (HIP and CUDA have no trustlist).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// Physical memory (`aclrtMallocPhysical`, `hipMemCreate`, `cuMemCreate`).
    Alloc,
    /// Map a handle into a reservation.
    Map,
    /// Copy host bytes to device memory.
    Write,
    /// Copy device memory to host bytes.
    Read,
    /// Export a shareable handle.
    Export,
    /// Add pids to an export's trustlist.
    SetPids,
    /// Import a shareable handle.
    Import,
    /// Drop a handle.
    Free,
}

/// One vendor table seen by the reliability tests.
pub trait Dialect: Clone + Send + Sync + Sized + 'static {
    /// The dialect's name in reports.
    const NAME: &'static str;
    /// Out of device memory (capacity used up, or the host could not back it).
    const OUT_OF_MEMORY: Code;
    /// A shareable handle that names nothing (never exported, or released).
    const UNKNOWN_SHAREABLE: Code;
    /// An import the driver refuses: not on the trustlist, the exporter
    /// importing onto its own device, or an entry being torn down.
    const REFUSED: Code;
    /// The emulator cannot start (unusable root, bad setting).
    const NO_DEVICE: Code;
    /// Allocation granularity of the default memory kind.
    const GRANULE: usize;
    /// Whether a shareable handle is itself a holder of the memory, so that
    /// it outlives its exporter: true for POSIX fds (the memory dies when
    /// every handle is released, every fd closed and every mapping removed:
    /// hip.md HIP-VMM-030, cuda.md CUDA-VMM-016/020), false for ACL's
    /// numbers (a dead exporter's handle that nobody imported is gone,
    /// acl.md ACL-LIFE-003/004).
    const SHAREABLE_HOLDS_MEMORY: bool;
    /// The rule an import names when the entry is being torn down, if the
    /// dialect can refuse an import for that.
    const TEARDOWN_RULE: Option<&'static str>;

    /// A shareable handle in the process that holds it.
    type Shareable: Debug + Send;

    /// The C function that makes `call`, if the dialect has one.
    fn function(call: Call) -> Option<&'static str>;
    /// Whether the dialect has a trustlist (a set-pids call).
    fn trustlist() -> bool {
        Self::function(Call::SetPids).is_some()
    }
    /// The rule that must refuse an import of one's own export onto the
    /// device of its memory (`own_device`) or of an export whose trustlist
    /// does not name the importer (`unlisted`); `None`: it may succeed.
    fn refusal(own_device: bool, unlisted: bool) -> Option<&'static str>;
    /// A shareable handle as it travels between workers: a line of text,
    /// and the fd to attach (`SCM_RIGHTS`), if it is one.
    fn to_wire(s: Self::Shareable) -> (String, Option<OwnedFd>);
    /// The shareable handle back from [`Dialect::to_wire`]'s text and fd.
    fn from_wire(text: &str, fd: Option<OwnedFd>) -> Option<Self::Shareable>;

    /// The table of this process.
    fn open() -> Self;
    /// A code with its vendor name, for messages.
    fn describe(code: Code) -> String;
    /// The calling thread's last error message.
    fn last_message(&self) -> String;
    /// Makes `device` current for the calling thread.
    fn set_device(&self, device: u32) -> Result<(), Code>;
    /// Allocates `size` bytes of physical memory on `device`.
    fn alloc(&self, device: u32, size: usize) -> Result<Handle, Code>;
    /// Drops one reference to a handle.
    fn free(&self, h: Handle) -> Result<(), Code>;
    /// Reserves `size` bytes of device address space.
    fn reserve(&self, size: usize) -> Result<usize, Code>;
    /// Releases a reservation.
    fn release(&self, va: usize) -> Result<(), Code>;
    /// Maps all `size` bytes of `h` at `va` and makes them readable and
    /// writable from `device`.
    fn map(&self, va: usize, size: usize, h: Handle, device: u32) -> Result<(), Code>;
    /// Removes the mapping that starts at `va`.
    fn unmap(&self, va: usize) -> Result<(), Code>;
    /// Exports a handle; `trustlist` on means only listed processes may import.
    fn export(&self, h: Handle, trustlist: bool) -> Result<Self::Shareable, Code>;
    /// Adds processes to an exported handle's trustlist.
    fn set_pids(&self, s: Self::Shareable, pids: &[i32]) -> Result<(), Code>;
    /// Imports a shareable handle onto `device` (an fd is closed after it).
    fn import(&self, s: Self::Shareable, device: u32) -> Result<Handle, Code>;
    /// Copies host bytes to device memory.
    fn write(&self, va: usize, data: &[u8]) -> Result<(), Code>;
    /// Copies device memory to host bytes.
    fn read(&self, va: usize, out: &mut [u8]) -> Result<(), Code>;
    /// Copies device memory to device memory.
    fn copy(&self, dst: usize, src: usize, n: usize) -> Result<(), Code>;
    /// The pid that trustlists name for this process.
    fn pid(&self) -> i32;
    /// Bytes in use on the current device, as the dialect reports them;
    /// `Err(NO_DEVICE)` where the table has no such query (HIP and CUDA
    /// tables have none).
    fn used(&self) -> Result<u64, Code> {
        Err(Self::NO_DEVICE)
    }
}

/// Sizes of the reservations and mappings a dialect made, by start
/// address: HIP and CUDA unmap and free by (address, size), while the
/// flows name a range by its start only, as ACL does.
#[derive(Clone, Debug, Default)]
pub struct Ranges(std::sync::Arc<std::sync::Mutex<[std::collections::HashMap<usize, usize>; 2]>>);

impl Ranges {
    /// A reservation.
    pub const RESERVED: usize = 0;
    /// A mapping.
    pub const MAPPED: usize = 1;

    /// Notes a range of `kind` at `va`.
    pub fn note(&self, kind: usize, va: usize, size: usize) {
        self.0.lock().expect("ranges")[kind].insert(va, size);
    }

    /// Takes the range of `kind` at `va` out, returning its size (0 if
    /// unknown: the call under test then decides what an unknown range is).
    pub fn take(&self, kind: usize, va: usize) -> usize {
        self.0.lock().expect("ranges")[kind].remove(&va).unwrap_or(0)
    }
}

/// A POSIX-fd shareable handle (HIP, CUDA): an fd this process owns.
#[derive(Debug)]
pub struct FdShareable(pub OwnedFd);

impl FdShareable {
    /// Takes ownership of the fd an export wrote.
    pub fn adopt(fd: i32) -> Self {
        assert!(fd >= 0, "an export that succeeded wrote fd {fd}");
        // SAFETY: a successful export made this fd for the caller to own
        // (HIP-VMM-025, CUDA-VMM-016), and nothing else owns it.
        Self(unsafe { std::os::fd::FromRawFd::from_raw_fd(fd) })
    }

    /// The fd number, as the C import takes it.
    pub fn value(&self) -> i32 {
        std::os::fd::AsRawFd::as_raw_fd(&self.0)
    }

    /// On the wire: a placeholder line and the fd itself.
    pub fn into_wire(self) -> (String, Option<OwnedFd>) {
        ("fd".into(), Some(self.0))
    }
}

/// Turns a return value into a result.
pub fn rc(code: impl Into<Code>) -> Result<(), Code> {
    let code = code.into();
    if code == 0 { Ok(()) } else { Err(code) }
}

/// Calls `aclInit` once per process (a repeat is fine).
pub fn acl_init(api: &AclApi) {
    // SAFETY: NULL config path is allowed.
    let r = unsafe { (api.aclInit)(null()) };
    assert!(r == 0 || r == AclError::REPEAT_INITIALIZE.0, "aclInit: {r}");
}

/// A deterministic pattern of `n` bytes for `seed`: a 4 KiB block of a
/// splitmix sequence, repeated with each block's index and the seed mixed
/// into its first word, so every block differs and a swapped, shifted or
/// stale block is noticed. Built with block copies (fast in debug builds).
pub fn pattern(n: usize, seed: u64) -> Vec<u8> {
    const BLOCK: usize = 4096;
    let mut block = [0u8; BLOCK];
    for (i, w) in block.chunks_exact_mut(8).enumerate() {
        w.copy_from_slice(&splitmix(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64).to_le_bytes());
    }
    let mut out = vec![0u8; n];
    for (i, chunk) in out.chunks_mut(BLOCK).enumerate() {
        chunk.copy_from_slice(&block[..chunk.len()]);
        let tag = splitmix(seed ^ (i as u64).wrapping_mul(0xff51_afd7_ed55_8ccd)).to_le_bytes();
        let k = chunk.len().min(8);
        chunk[..k].copy_from_slice(&tag[..k]);
    }
    out
}

/// One step of splitmix64.
pub fn splitmix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A checksum of `data` that notices any changed, swapped or missing 8-byte
/// word (FNV over the words' mix; for reports and the wire, where the data
/// itself cannot travel).
pub fn checksum(data: &[u8]) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ data.len() as u64;
    let (head, words, tail) = {
        // SAFETY: any bytes are valid u64s; align_to splits off unaligned ends.
        unsafe { data.align_to::<u64>() }
    };
    for &b in head.iter().chain(tail) {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    for (i, &w) in words.iter().enumerate() {
        h = (h ^ w ^ i as u64).wrapping_mul(0x100_0000_01b3).rotate_left(29);
    }
    h
}
