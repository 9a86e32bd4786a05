//! The two-process sharing flows of the dialects whose shareable handles
//! are POSIX fds (HIP, CUDA), written once: the importer peers of legacy
//! IPC (the simpleIPC pattern) and of a VMM fd sent with `SCM_RIGHTS` (the
//! memMapIPCDrv pattern). [`Sharing`] adds to [`Dialect`] the calls they
//! make beyond it and each vendor's own checks on the way (its import
//! conventions, what an interior close means); [`Hip`](super::dialect::Hip)
//! and [`Cuda`](super::dialect::Cuda) implement it in `hip.rs` and `cuda.rs`.
//!
//! A test binary serves the peers from its `peer` test with [`serve`]; the
//! parents' flows are `emulator/tests/ipc_sharing.rs`'s, run once per dialect.
//!
//! ```text
//! ipc_importer                 vmm_importer
//!   open HEX SIZE  ok SUM LEN    take (an fd attached)  ok
//!   sum            SUM           import SIZE            ok SUM
//!   fill BYTE      ok            fill BYTE              ok
//!   close          closed        unmap                  ok
//!   leaks          none | LEAKS
//! ```

use std::ffi::{c_char, c_void};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};

use super::dialect::{Code, Dialect, FdShareable, Handle, checksum};
use super::{next_command, next_command_fds, reply};

mod cuda;
mod hip;

/// The device the exporting process works on.
pub const EXPORTER: u32 = 0;
/// The device an importing peer works on: addresses and devices need not
/// match the exporter's.
pub const IMPORTER: u32 = 1;

/// What the sharing flows need of a dialect beyond [`Dialect`]: legacy IPC
/// of plain device memory, an export into a slot the caller gives, and the
/// vendor's own checks at three points of the flows. A check that fails
/// panics (in a peer: the parent's next receive fails with its output).
pub trait Sharing: Dialect<Shareable = FdShareable> {
    /// An open of one's own IPC handle in the exporting process
    /// (CUDA-IPC-005, HIP-IPC-024).
    const OWN_OPEN: Code;
    /// An open of a handle whose memory was freed and is held by nobody.
    const FREED_OPEN: Code;
    /// The flags of a second open of the same handle, which must give the
    /// pointer of the first (CUDA-IPC-006, HIP-IPC-027).
    const REOPEN_FLAGS: u32;

    /// Plain device memory of `size` bytes on the current device.
    fn malloc(&self, size: usize) -> Result<usize, Code>;
    /// Frees plain device memory.
    fn mem_free(&self, p: usize) -> Result<(), Code>;
    /// The IPC handle of the allocation holding `p`, as hex ([`bytes_hex`]).
    fn ipc_get(&self, p: usize) -> Result<String, Code>;
    /// Opens the IPC handle of [`Sharing::ipc_get`]'s text with `flags`.
    fn ipc_open(&self, hex: &str, flags: u32) -> Result<usize, Code>;
    /// The base and size of the allocation holding `p`.
    fn address_range(&self, p: usize) -> Result<(usize, usize), Code>;
    /// Exports `h` as a POSIX fd written to `slot` (which has room for 8 bytes).
    fn export_into(&self, h: Handle, slot: *mut c_void) -> Result<(), Code>;

    /// The vendor's checks on memory an importer just opened at `q`.
    fn check_open(&self, q: usize);
    /// Closes `q`, opened twice, as often as it was opened, with the
    /// vendor's checks of interior pointers, of one close too many and of
    /// the pointer afterwards; `size` bytes were opened.
    fn close_all(&self, q: usize, size: usize);
    /// The vendor's checks on an fd of `size` bytes an importer received,
    /// before it imports it the portable way ([`Dialect::import`]); `fd`
    /// stays open.
    fn check_import(&self, fd: BorrowedFd<'_>, size: usize);
}

/// Panics with the code's name and the last message unless `r` is `Ok`.
pub fn ok<D: Dialect, T>(d: &D, r: Result<T, Code>, what: &str) -> T {
    r.unwrap_or_else(|c| panic!("{what}: {} ({})", D::describe(c), d.last_message()))
}

/// The bytes of an IPC handle (HIP's or CUDA's 64) as hex, for a command line.
pub fn bytes_hex(bytes: &[c_char]) -> String {
    bytes.iter().map(|&c| format!("{:02x}", c as u8)).collect()
}

/// Fills `out` from [`bytes_hex`] text of as many bytes.
pub fn bytes_from_hex(s: &str, out: &mut [c_char]) {
    assert_eq!(s.len(), 2 * out.len(), "a handle is {} bytes of hex: {s}", out.len());
    for (i, c) in out.iter_mut().enumerate() {
        *c = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex") as c_char;
    }
}

/// The checksum of `size` bytes at device address `va`.
pub fn sum<D: Dialect>(d: &D, va: usize, size: usize) -> u64 {
    let mut out = vec![0u8; size];
    ok(d, d.read(va, &mut out), "read");
    checksum(&out)
}

/// Serves peer `role` of dialect `D` on the importer's device.
pub fn serve<D: Sharing>(role: &str) {
    let d = D::open();
    ok(&d, d.set_device(IMPORTER), "set the importer's device");
    match role {
        "ipc_importer" => ipc_importer(&d),
        "vmm_importer" => vmm_importer(&d),
        _ => panic!("unknown role {role}"),
    }
}

/// Opens IPC handles sent as hex, reads, writes, closes, on command.
fn ipc_importer<D: Sharing>(d: &D) {
    let mut opened: Option<(usize, usize)> = None;
    while let Some(cmd) = next_command() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["open", hex, size] => {
                let size: usize = size.parse().expect("size");
                // The first open asks for lazy peer access (1 in both APIs).
                let q = match d.ipc_open(hex, 1) {
                    Ok(q) => q,
                    Err(c) => {
                        reply(format!("err {c}"));
                        continue;
                    }
                };
                let again = ok(d, d.ipc_open(hex, D::REOPEN_FLAGS), "a second open");
                assert_eq!(again, q, "a second open gives the pointer of the first");
                // The range an interior pointer names is the exporter's allocation, at the local base.
                let (base, len) = ok(d, d.address_range(q + 100), "the address range");
                assert_eq!((base, len), (q, size), "the importer's range");
                d.check_open(q);
                opened = Some((q, size));
                reply(format!("ok {} {len}", sum(d, q, size)));
            }
            ["sum"] => {
                let (q, size) = opened.expect("opened");
                reply(sum(d, q, size));
            }
            ["fill", byte] => {
                let (q, size) = opened.expect("opened");
                ok(d, d.write(q, &vec![byte.parse::<u8>().expect("byte"); size]), "fill");
                reply("ok");
            }
            ["close"] => {
                let (q, size) = opened.take().expect("opened");
                d.close_all(q, size);
                reply("closed");
            }
            ["leaks"] => {
                let leaks = vmmkit_emulator::leaks::report();
                let words: Vec<String> =
                    leaks.iter().map(|l| format!("{:?}:{}:{}:{}", l.kind, l.bytes, l.created_by, l.what)).collect();
                // (An empty packet would read as a closed channel.)
                reply(if words.is_empty() { "none".into() } else { words.join(" | ") });
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}

/// Receives a VMM fd over the channel, imports it, maps it, on command.
fn vmm_importer<D: Sharing>(d: &D) {
    // The fd that came with `take`, until `import` uses it.
    let mut held: Option<OwnedFd> = None;
    let mut mapped: Option<(usize, usize)> = None;
    while let Some((cmd, mut fds)) = next_command_fds() {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        match words.as_slice() {
            ["take"] => {
                held = fds.pop();
                reply(if held.is_some() { "ok" } else { "err no fd came with take" });
            }
            ["import", size] => {
                let size: usize = size.parse().expect("size");
                let received = held.take().expect("an fd taken before import");
                d.check_import(received.as_fd(), size);
                // The fd value cast to a pointer; the fd is closed after (memMapIPCDrv).
                let h = ok(d, d.import(FdShareable(received), IMPORTER), "import");
                let va = ok(d, d.reserve(size), "reserve");
                ok(d, d.map(va, size, h, IMPORTER), "map");
                // The mapping holds the memory now.
                ok(d, d.free(h), "release the handle");
                mapped = Some((va, size));
                reply(format!("ok {}", sum(d, va, size)));
            }
            ["fill", byte] => {
                let (va, size) = mapped.expect("mapped");
                ok(d, d.write(va, &vec![byte.parse::<u8>().expect("byte"); size]), "fill");
                reply("ok");
            }
            ["unmap"] => {
                let (va, _) = mapped.take().expect("mapped");
                ok(d, d.unmap(va), "unmap");
                ok(d, d.release(va), "release the reservation");
                reply("ok");
            }
            other => panic!("unknown command {other:?}"),
        }
    }
}
