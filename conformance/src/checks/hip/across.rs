//! HIP rules across real processes: this process exports, HIP peers
//! (`vmmkit __hip_peer`, [`crate::hip::peer`]) import. The IPC trio
//! (hipIpcGetMemHandle here, hipIpcOpenMemHandle and hipIpcCloseMemHandle
//! there: [HIP-IPC-010](vmmkit_sys::hip::rules::IPC_010), 026 … 029, 031, 042 … 046, 049) and the POSIX-fd VMM sharing,
//! the fd sent with `SCM_RIGHTS` ([HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026), 030).

use std::os::fd::{AsFd, OwnedFd};

use vmmkit_sys::hip::*;

use crate::hip::peer::{Peer, Request, ipc_bytes};
use crate::hip::{Ctx, Va, setup};
use crate::outcome::Failure;

const SIZE: usize = 1 << 20;
const LAZY: u32 = hipIpcMemLazyEnablePeerAccess;

/// `SIZE` bytes of hipMalloc memory on device 0 holding the pattern `seed`,
/// and the 64 bytes of its IPC handle, copied out as plain bytes.
fn exported(cx: &Ctx, seed: u8) -> Result<(Va, Vec<u8>), Failure> {
    cx.device(0)?;
    let p = cx.malloc(SIZE)?;
    cx.write(p, SIZE, seed)?;
    let mut h = hipIpcMemHandle_t::default();
    setup("hipIpcGetMemHandle", cx.hip().hipIpcGetMemHandle(&mut h, p))?;
    Ok((p, ipc_bytes(&h)))
}

/// The peer's pointer for `handle`, opened with the lazy flag.
fn open_in(cx: &Ctx, peer: &mut Peer, handle: &[u8], step: &str) -> Result<u64, Failure> {
    let r = peer.call(&Request::IpcOpen { handle: handle.to_vec(), flags: LAZY })?;
    cx.expect_ok(step, r.vendor_code())?;
    Ok(r.value)
}

/// The peer reads `SIZE` bytes at `ptr` and finds the pattern `seed`.
fn peer_sees(cx: &Ctx, peer: &mut Peer, step: &str, ptr: u64, seed: u8) -> Result<(), Failure> {
    let r = peer.setup(&Request::Verify { ptr, len: SIZE as u64, seed })?;
    cx.ensure(step, r.value == 1, format!("pattern {seed} ({SIZE} bytes)"), r.text)
}

/// `hipIpcCloseMemHandle(ptr)` in the peer: its code.
fn close_in(peer: &mut Peer, ptr: u64) -> Result<HipError, Failure> {
    Ok(peer.call(&Request::IpcClose { ptr })?.vendor_code())
}

/// [HIP-IPC-027](vmmkit_sys::hip::rules::IPC_027): a second open in the same process returns the same pointer
/// and counts: after one close the memory is still there, the second close works.
pub fn open_twice(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 41)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle")?;
    let b = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle again")?;
    cx.ensure("the second open's pointer", a == b, format!("{a:#x}"), format!("{b:#x}"))?;
    cx.expect_ok("peer: first hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer_sees(cx, &mut peer, "peer reads with one open left", a, 41)?;
    cx.expect_ok("peer: second hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-028](vmmkit_sys::hip::rules::IPC_028): two importers each get a working pointer; the note says
/// whether they equal each other and the exporter's.
pub fn importer_address(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 42)?;
    let mut one = cx.peer("importer 1", 0)?;
    let mut two = cx.peer("importer 2", 0)?;
    let a = open_in(cx, &mut one, &handle, "peer 1: hipIpcOpenMemHandle")?;
    let b = open_in(cx, &mut two, &handle, "peer 2: hipIpcOpenMemHandle")?;
    peer_sees(cx, &mut one, "peer 1 reads the exporter's pattern", a, 42)?;
    peer_sees(cx, &mut two, "peer 2 reads the exporter's pattern", b, 42)?;
    cx.note(format!("exporter {p:p}, importers {a:#x} and {b:#x}"));
    cx.expect_ok("peer 1: hipIpcCloseMemHandle", close_in(&mut one, a)?)?;
    cx.expect_ok("peer 2: hipIpcCloseMemHandle", close_in(&mut two, b)?)?;
    one.exit()?;
    two.exit()?;
    cx.free(p)
}

/// [HIP-IPC-042](vmmkit_sys::hip::rules::IPC_042): two opens, two closes (the memory stays readable after the
/// first), and a third close fails.
pub fn close_counts(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 43)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle")?;
    open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle again")?;
    cx.expect_ok("peer: first hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer_sees(cx, &mut peer, "peer reads with one open left", a, 43)?;
    cx.expect_ok("peer: second hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    cx.expect_code("peer: a third hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-046](vmmkit_sys::hip::rules::IPC_046): the exporter's hipFree while an importer has the memory
/// open returns 0; the importer still reads it, a new open in another
/// process fails with 17, and the importer's close works.
pub fn free_while_open(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 44)?;
    let mut holder = cx.peer("holder", 0)?;
    let a = open_in(cx, &mut holder, &handle, "holder: hipIpcOpenMemHandle")?;
    cx.expect_ok("hipFree while the holder has it open", cx.hip().hipFree(p))?;
    peer_sees(cx, &mut holder, "holder reads after the exporter's free", a, 44)?;
    let mut late = cx.peer("late importer", 0)?;
    let r = late.call(&Request::IpcOpen { handle: handle.clone(), flags: LAZY })?;
    cx.expect("late importer: hipIpcOpenMemHandle after the free", HipError::INVALID_DEVICE_POINTER, r.vendor_code())?;
    late.exit()?;
    cx.expect_ok("holder: hipIpcCloseMemHandle", close_in(&mut holder, a)?)?;
    holder.exit()
}

/// [HIP-IPC-049](vmmkit_sys::hip::rules::IPC_049): the handle's bytes, carried over the peer channel, open
/// the memory in another process, and writes go both ways.
pub fn handle_is_bytes(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 45)?;
    cx.ensure("the handle's size", handle.len() == HIP_IPC_HANDLE_SIZE, HIP_IPC_HANDLE_SIZE, handle.len())?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle of the copied bytes")?;
    peer_sees(cx, &mut peer, "peer reads the exporter's pattern", a, 45)?;
    peer.setup(&Request::Fill { ptr: a, len: SIZE as u64, seed: 46 })?;
    cx.verify("the exporter reads the peer's pattern", p, SIZE, 46)?;
    cx.expect_ok("peer: hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer.exit()?;
    cx.free(p)
}

/// An fd exported from `h` (POSIX), owned here.
fn export_fd(cx: &Ctx, h: hipMemGenericAllocationHandle_t) -> Result<OwnedFd, Failure> {
    let mut fd = -1i32;
    let r = cx.hip().hipMemExportToShareableHandle((&raw mut fd).cast(), h, hipMemHandleTypePosixFileDescriptor, 0);
    let owned = crate::hip::Hip::own_exported_fd(fd);
    setup("hipMemExportToShareableHandle", r)?;
    owned.ok_or_else(|| Failure::Setup(format!("setup: hipMemExportToShareableHandle gave fd {fd}")))
}

/// The peer imports `fd` (by value or by pointer), maps it and reads the
/// pattern `seed`: the peer's address.
fn import_in(cx: &Ctx, peer: &mut Peer, fd: &OwnedFd, size: usize, seed: u8, by_value: bool) -> Result<u64, Failure> {
    let how = if by_value { "by value" } else { "as int*" };
    let r = peer.call_fds(&Request::ImportMap { size: size as u64, seed, by_value }, &[fd.as_fd()])?;
    let step =
        if r.text.is_empty() { format!("peer: import ({how}), map and read") } else { format!("peer: {}", r.text) };
    cx.expect_ok(&step, r.vendor_code())?;
    cx.ensure(
        &format!("peer reads the exporter's pattern (fd {how})"),
        r.value != 0,
        format!("pattern {seed}"),
        &r.text,
    )?;
    Ok(r.value)
}

/// [HIP-VMM-026](vmmkit_sys::hip::rules::VMM_026): the fd reaches the peer with `SCM_RIGHTS` and imports as
/// the profile takes it (6.x: an `int*`; 7.x: the value); the emulator takes
/// both, so on it the other form is tried too. Writes go both ways.
pub fn fd_in_peer(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 21)?;
    let fd = export_fd(cx, h)?;
    let mut peer = cx.peer("importer", 0)?;
    let by_value = cx.is_v7();
    let vb = import_in(cx, &mut peer, &fd, size, 21, by_value)?;
    peer.setup(&Request::Fill { ptr: vb, len: size as u64, seed: 22 })?;
    cx.verify("the exporter reads the peer's pattern", va, size, 22)?;
    peer.setup(&Request::UnmapFree { ptr: vb, size: size as u64 })?;
    if cx.env().backend == crate::vendors::BackendKind::Emulator {
        let vc = import_in(cx, &mut peer, &fd, size, 22, !by_value)?;
        peer.setup(&Request::UnmapFree { ptr: vc, size: size as u64 })?;
    }
    drop(fd);
    peer.exit()?;
    cx.unmapped(va, h, size)
}

/// [HIP-VMM-030](vmmkit_sys::hip::rules::VMM_030): the exporter unmaps, releases and closes its fd right after
/// sending; the importer's mapping keeps the memory and its data, and the
/// memory goes with the importer's unmap.
pub fn exporter_lets_go(cx: &mut Ctx) -> Result<(), Failure> {
    let (va, h, size) = cx.mapped(1)?;
    cx.write(va, size, 33)?;
    let fd = export_fd(cx, h)?;
    cx.unmapped(va, h, size)?;
    let mut peer = cx.peer("importer", 0)?;
    let by_value = cx.is_v7();
    let r = peer.call_fds(&Request::ImportMap { size: size as u64, seed: 33, by_value }, &[fd.as_fd()])?;
    drop(fd); // closed right after sending: the peer holds the only references
    cx.expect_ok("peer: import, map and read after the exporter let go", r.vendor_code())?;
    cx.ensure("peer reads the pattern written before the release", r.text.is_empty(), "pattern 33", &r.text)?;
    peer.setup(&Request::Fill { ptr: r.value, len: size as u64, seed: 34 })?;
    let v = peer.setup(&Request::Verify { ptr: r.value, len: size as u64, seed: 34 })?;
    cx.ensure("peer reads its own writes", v.value == 1, "pattern 34", v.text)?;
    peer.setup(&Request::UnmapFree { ptr: r.value, size: size as u64 })?;
    peer.exit()
}

/// `len` bytes of hipMalloc memory on device 0 holding the pattern `seed`,
/// and the bytes of the IPC handle made from `at` bytes past its base (the
/// get judged: it is the rule's step).
fn exported_at(cx: &Ctx, len: usize, at: usize, seed: u8) -> Result<(Va, Vec<u8>), Failure> {
    cx.device(0)?;
    let p = cx.malloc(len)?;
    cx.write(p, len, seed)?;
    let mut h = hipIpcMemHandle_t::default();
    let r = cx.hip().hipIpcGetMemHandle(&mut h, p.cast::<u8>().wrapping_add(at).cast());
    cx.expect_ok(&format!("hipIpcGetMemHandle({len} bytes, base + {at})"), r)?;
    Ok((p, ipc_bytes(&h)))
}

/// The peer reads `len` bytes at `ptr`, judged: the copy works and finds the pattern `seed`.
fn peer_reads(cx: &Ctx, peer: &mut Peer, step: &str, ptr: u64, len: usize, seed: u8) -> Result<(), Failure> {
    let r = peer.call(&Request::Verify { ptr, len: len as u64, seed })?;
    cx.expect_ok(&format!("{step}: hipMemcpy(device to host)"), r.vendor_code())?;
    cx.ensure(step, r.value == 1, format!("pattern {seed} ({len} bytes)"), r.text)
}

/// [HIP-IPC-010](vmmkit_sys::hip::rules::IPC_010): allocations of 1 and 257 bytes export; the peer opens
/// each, reads the exporter's bytes and writes its own, which the exporter
/// reads back.
pub fn any_size(cx: &mut Ctx) -> Result<(), Failure> {
    let mut peer = cx.peer("importer", 0)?;
    for (len, seed) in [(1usize, 51u8), (257, 52)] {
        let (p, handle) = exported_at(cx, len, 0, seed)?;
        let a = open_in(cx, &mut peer, &handle, &format!("peer: hipIpcOpenMemHandle ({len} bytes)"))?;
        peer_reads(cx, &mut peer, &format!("peer reads the {len} bytes"), a, len, seed)?;
        let r = peer.call(&Request::Fill { ptr: a, len: len as u64, seed: seed + 10 })?;
        cx.expect_ok(&format!("peer: hipMemcpy(host to device, {len} bytes)"), r.vendor_code())?;
        cx.verify(&format!("the exporter reads the peer's {len} bytes"), p, len, seed + 10)?;
        cx.expect_ok(&format!("peer: hipIpcCloseMemHandle ({len} bytes)"), close_in(&mut peer, a)?)?;
        cx.free(p)?;
    }
    peer.exit()
}

/// [HIP-IPC-026](vmmkit_sys::hip::rules::IPC_026): a handle made from base + 128 opens at the base: the peer
/// finds the whole allocation, element 0 first, at the pointer it got.
pub fn open_gives_base(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported_at(cx, SIZE, 128, 53)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle (handle of base + 128)")?;
    peer_reads(cx, &mut peer, "peer reads the allocation from element 0 at the opened pointer", a, SIZE, 53)?;
    cx.expect_ok("peer: hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-029](vmmkit_sys::hip::rules::IPC_029): bytes either side copies in after the open are the other's
/// at once: the exporter writes, the peer reads; the peer writes, the
/// exporter reads; the exporter writes again, the peer reads again.
pub fn same_bytes(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 54)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle")?;
    cx.write(p, SIZE, 55)?;
    peer_sees(cx, &mut peer, "peer reads what the exporter copied in after the open", a, 55)?;
    peer.setup(&Request::Fill { ptr: a, len: SIZE as u64, seed: 56 })?;
    cx.verify("the exporter reads what the peer copied in", p, SIZE, 56)?;
    cx.write(p, SIZE, 57)?;
    peer_sees(cx, &mut peer, "peer reads the exporter's second copy", a, 57)?;
    cx.expect_ok("peer: hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-031](vmmkit_sys::hip::rules::IPC_031): a peer whose current device is 1 opens memory of device 0:
/// hipPointerGetAttributes there names device 1, and the peer reads it.
pub fn open_on_current_device(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 58)?;
    let mut peer = cx.peer("importer on device 1", 1)?;
    let a = open_in(cx, &mut peer, &handle, "peer on device 1: hipIpcOpenMemHandle")?;
    let r = peer.setup(&Request::Devices { ptr: a })?;
    let at = r.text.rsplit('@').next().unwrap_or_default().to_owned();
    cx.ensure("the opened pointer's device (hipPointerGetAttributes)", at == "1", "1", at)?;
    peer_sees(cx, &mut peer, "peer on device 1 reads device 0's memory", a, 58)?;
    cx.expect_ok("peer: hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-043](vmmkit_sys::hip::rules::IPC_043): the peer closes its one open through base + 128: the
/// mapping is closed (a close of the base after it fails).
pub fn close_interior(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 59)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle")?;
    cx.expect_ok("peer: hipIpcCloseMemHandle(opened + 128)", close_in(&mut peer, a + 128)?)?;
    let again = close_in(&mut peer, a)?;
    cx.ensure_code("peer: hipIpcCloseMemHandle(opened) after the interior close", HipError::INVALID_VALUE, again)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-044](vmmkit_sys::hip::rules::IPC_044): after the peer's last close, hipPointerGetAttributes of the
/// pointer answers 0 there with device −2.
pub fn closed_pointer_unknown(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 60)?;
    let mut peer = cx.peer("importer", 0)?;
    let a = open_in(cx, &mut peer, &handle, "peer: hipIpcOpenMemHandle")?;
    cx.expect_ok("peer: hipIpcCloseMemHandle", close_in(&mut peer, a)?)?;
    let r = peer.call(&Request::Devices { ptr: a })?;
    cx.ensure_code("peer: hipPointerGetAttributes(closed pointer)", HipError::SUCCESS, r.vendor_code())?;
    let at = r.text.rsplit('@').next().unwrap_or_default().to_owned();
    cx.ensure("the closed pointer's device", at == "-2", "-2 (hipInvalidDeviceId)", at)?;
    peer.exit()?;
    cx.free(p)
}

/// [HIP-IPC-045](vmmkit_sys::hip::rules::IPC_045): of two importers one closes; the other and the exporter
/// still read and write the memory.
pub fn close_is_local(cx: &mut Ctx) -> Result<(), Failure> {
    let (p, handle) = exported(cx, 61)?;
    let mut one = cx.peer("importer 1", 0)?;
    let mut two = cx.peer("importer 2", 0)?;
    let a = open_in(cx, &mut one, &handle, "peer 1: hipIpcOpenMemHandle")?;
    let b = open_in(cx, &mut two, &handle, "peer 2: hipIpcOpenMemHandle")?;
    cx.expect_ok("peer 1: hipIpcCloseMemHandle", close_in(&mut one, a)?)?;
    peer_sees(cx, &mut two, "peer 2 reads after peer 1's close", b, 61)?;
    cx.verify("the exporter reads after peer 1's close", p, SIZE, 61)?;
    two.setup(&Request::Fill { ptr: b, len: SIZE as u64, seed: 62 })?;
    cx.verify("the exporter reads peer 2's write", p, SIZE, 62)?;
    cx.write(p, SIZE, 63)?;
    peer_sees(cx, &mut two, "peer 2 reads the exporter's write", b, 63)?;
    cx.expect_ok("peer 2: hipIpcCloseMemHandle", close_in(&mut two, b)?)?;
    one.exit()?;
    two.exit()?;
    cx.free(p)
}
