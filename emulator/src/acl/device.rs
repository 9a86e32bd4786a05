//! Initialisation, devices, contexts, streams, peer access, process id.
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::sync::atomic::Ordering;

use vmmkit_sys::acl::rules;
use vmmkit_sys::acl::*;

use super::call::{Fail, current_device, emu, ensure, run};
use crate::ffi::{CStrIn, Out};
use super::state::{lock, state};
use crate::core::{Emulator, Ending, StreamId, StreamKind, thread};

pub(super) const CONTEXT_BASE: usize = 0x00c7_c000_0000_0000;
pub(super) const STREAM_BASE: usize = 0x00c5_7000_0000_0000;

/// The emulated super-pod device id (sdid) of this process's server, written
/// into fabric handles (acl.md §2.5). A server is a network namespace: the
/// inode of `/proc/self/ns/net` (unique among live namespaces of one host),
/// so a peer started in another network namespace over the same root plays
/// another server ([ACL-SHV-006](vmmkit_sys::acl::rules::SHV_006)). 1 where `/proc` cannot tell.
pub(super) fn server_id() -> u32 {
    use std::os::unix::fs::MetadataExt;
    use std::sync::OnceLock;
    // Read once: a process does not change its network namespace under the emulator.
    static ID: OnceLock<u32> = OnceLock::new();
    *ID.get_or_init(|| std::fs::metadata("/proc/self/ns/net").map_or(1, |m| m.ino() as u32))
}

pub(super) fn device_id(id: i32) -> Result<u32, Fail> {
    let e = emu()?;
    ensure!(e.is_device(i64::from(id)), rules::GEN_003, "device {id} is not in [0, {})", e.device_count());
    Ok(id.max(0) as u32)
}

/// Records that `device` can reach `peer`: EnablePeerAccess, and
/// cross-device imports ([ACL-IMP-016](vmmkit_sys::acl::rules::IMP_016), implicitly enabled P2P).
pub(super) fn note_peer(e: &Emulator, device: u32, peer: u32) {
    if device != peer {
        e.enable_peer(device, peer);
    }
}

/// `aclError aclInit(const char *configPath)`: [ACL-GEN-001](vmmkit_sys::acl::rules::GEN_001). Each call counts
/// a reference (aclFinalizeReference); the first runs the init callbacks
/// (`library.rs`) with the config file's text.
pub extern "C" fn aclInit(configPath: CStrIn<'_>) -> aclError {
    run("aclInit", || {
        let first = !state(emu()?).initialised.swap(true, Ordering::SeqCst);
        super::library::on_init(configPath, first)?;
        ensure!(first, rules::GEN_001, "aclInit was already called");
        Ok(())
    })
}

/// `aclError aclFinalize(void)`: [ACL-GEN-002](vmmkit_sys::acl::rules::GEN_002). Tears down everything of this process.
pub extern "C" fn aclFinalize() -> aclError {
    run("aclFinalize", || {
        let e = crate::core::running();
        let was = e.is_some_and(|e| state(e).initialised.swap(false, Ordering::SeqCst));
        ensure!(was, rules::GEN_002, "aclFinalize without a matching aclInit");
        let callbacks = super::library::on_finalize();
        if let Some(e) = e {
            end_streams(e, None);
            e.reset_all();
            lock(&state(e).device_refs).clear();
        }
        thread::set_current_device(None);
        callbacks
    })
}

/// `aclError aclrtSetDevice(int32_t deviceId)`: [ACL-GEN-003](vmmkit_sys::acl::rules::GEN_003).
pub extern "C" fn aclrtSetDevice(deviceId: i32) -> aclError {
    run("aclrtSetDevice", || {
        let d = device_id(deviceId)?;
        *lock(&state(emu()?).device_refs).entry(d).or_default() += 1;
        thread::set_current_device(Some(d));
        Ok(())
    })
}

fn reset(deviceId: i32, force: bool) -> Result<(), Fail> {
    let d = device_id(deviceId)?;
    let e = emu()?;
    let last = {
        let mut refs = lock(&state(e).device_refs);
        let n = refs.entry(d).or_default();
        *n = if force { 0 } else { n.saturating_sub(1) };
        *n == 0
    };
    if last {
        end_streams(e, Some(d));
        e.reset_device(d);
        lock(&state(e).overflow_addrs).remove(&d);
    }
    if thread::current_device() == Some(d) {
        thread::set_current_device(None);
    }
    Ok(())
}

/// `aclError aclrtResetDevice(int32_t deviceId)`: reference-counted reset;
/// the last one frees this process's resources on the device.
pub extern "C" fn aclrtResetDevice(deviceId: i32) -> aclError {
    run("aclrtResetDevice", || reset(deviceId, false))
}

/// `aclError aclrtResetDeviceForce(int32_t deviceId)`: frees this process's resources on the device.
pub extern "C" fn aclrtResetDeviceForce(deviceId: i32) -> aclError {
    run("aclrtResetDeviceForce", || reset(deviceId, true))
}

/// `aclError aclrtGetDevice(int32_t *deviceId)`: [ACL-GEN-004](vmmkit_sys::acl::rules::GEN_004).
pub extern "C" fn aclrtGetDevice(deviceId: Out<'_, i32>) -> aclError {
    run("aclrtGetDevice", || {
        if deviceId.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "deviceId is NULL".into()));
        }
        let d = thread::current_device();
        ensure!(d.is_some(), rules::GEN_004, "no current device: call aclrtSetDevice first");
        deviceId.write(d.unwrap_or(0) as i32)?;
        Ok(())
    })
}

/// `aclError aclrtGetDeviceCount(uint32_t *count)`.
pub extern "C" fn aclrtGetDeviceCount(count: Out<'_, u32>) -> aclError {
    run("aclrtGetDeviceCount", || {
        if count.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "count is NULL".into()));
        }
        let e = emu()?;
        // ACL-GEN-011: a list the runtime refuses leaves no device, and the count fails.
        let refused = e.visible().refused.clone();
        ensure!(refused.is_none(), rules::GEN_011, "ASCEND_RT_VISIBLE_DEVICES: {}", refused.unwrap_or_default());
        let n = e.device_count();
        count.write(n)?;
        Ok(())
    })
}

/// `aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)`: the new context becomes current.
pub extern "C" fn aclrtCreateContext(context: Out<'_, aclrtContext>, deviceId: i32) -> aclError {
    run("aclrtCreateContext", || {
        if context.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "context is NULL".into()));
        }
        let d = device_id(deviceId)?;
        thread::set_current_device(Some(d));
        context.write((CONTEXT_BASE + d as usize) as aclrtContext)?;
        Ok(())
    })
}

/// `aclError aclrtSetCurrentContext(aclrtContext context)`.
pub extern "C" fn aclrtSetCurrentContext(context: aclrtContext) -> aclError {
    run("aclrtSetCurrentContext", || {
        let v = (context as usize).wrapping_sub(CONTEXT_BASE);
        if context.is_null() || !emu()?.is_device(v as i64) {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{context:p} is not a context")));
        }
        thread::set_current_device(Some(v as u32));
        Ok(())
    })
}

/// `aclError aclrtGetCurrentContext(aclrtContext *context)`: writes NULL and
/// fails with 107002 when the thread has none (vllm then creates one).
pub extern "C" fn aclrtGetCurrentContext(context: Out<'_, aclrtContext>) -> aclError {
    run("aclrtGetCurrentContext", || {
        if context.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "context is NULL".into()));
        }
        let ctx = thread::current_device().map_or(std::ptr::null_mut(), |d| (CONTEXT_BASE + d as usize) as *mut c_void);
        context.write(ctx)?;
        current_device().map(drop)
    })
}

/// `aclError aclrtCreateStream(aclrtStream *stream)`: [ACL-STM-001](vmmkit_sys::acl::rules::STM_001), [ACL-GEN-005](vmmkit_sys::acl::rules::GEN_005).
/// A stream of the core, ordered with no other stream of its device (CANN
/// has no legacy-stream barrier: streams are ordered only by events).
pub extern "C" fn aclrtCreateStream(stream: Out<'_, aclrtStream>) -> aclError {
    run("aclrtCreateStream", || create_stream(stream).map(drop))
}

/// aclrtCreateStream's body (also aclrtCreateStreamWithConfig's): the new
/// stream's handle, written to `stream`.
pub(super) fn create_stream(stream: Out<'_, aclrtStream>) -> Result<usize, Fail> {
    ensure!(!stream.is_null(), rules::STM_001, "stream is NULL");
    let d = current_device()?;
    let e = emu()?;
    let id = e.stream_create(d, StreamKind::NonBlocking);
    let s = STREAM_BASE + id.0 as usize;
    lock(&state(e).streams).insert(s);
    stream.write(s as aclrtStream)?;
    Ok(s)
}

/// The core stream of `s`: NULL is the default stream of the current
/// device (ApiImpl::StreamQuery/StreamWaitEvent take `curCtx->DefaultStream_()`
/// for NULL, api_impl.cc:1598-1600, 1774-1777), made at first use; anything
/// else must be a stream aclrtCreateStream handed out (107000 otherwise).
pub(super) fn stream_id(s: aclrtStream) -> Result<StreamId, Fail> {
    let e = emu()?;
    if s.is_null() {
        let d = current_device()?;
        let mut defaults = lock(&state(e).default_streams);
        let id = match defaults.get(&d) {
            Some(&id) if e.stream_exists(id) => id,
            _ => *defaults.entry(d).insert_entry(e.stream_create(d, StreamKind::NonBlocking)).get(),
        };
        return Ok(id);
    }
    let known = lock(&state(e).streams).contains(&(s as usize));
    let id = StreamId((s as usize).wrapping_sub(STREAM_BASE) as u64);
    if !known || !e.stream_exists(id) {
        return Err(Fail::plain(AclError::RT_PARAM_INVALID, format!("{s:p} is not a stream of this process")));
    }
    Ok(id)
}

fn destroy_stream(stream: aclrtStream, how: Ending) -> Result<(), Fail> {
    ensure!(!stream.is_null(), rules::STM_001, "stream is NULL");
    let id = stream_id(stream)?;
    super::model::refuse_capturing(id, "aclrtDestroyStream")?;
    let e = emu()?;
    lock(&state(e).streams).remove(&(stream as usize));
    lock(&state(e).stream_conf).remove(&(STREAM_BASE + id.0 as usize));
    e.stream_destroy(id, how).map_err(sync_fail)
}

/// A failure of the work of a stream, reported by a synchronize.
pub(super) fn sync_fail(e: crate::core::CoreError) -> Fail {
    match e {
        crate::core::CoreError::Timeout => Fail::core_under(&rules::STM_003, e),
        crate::core::CoreError::Abandoned => Fail::core_under(&rules::IEV_005, e),
        crate::core::CoreError::UnknownStream(_) => Fail::plain(AclError::RT_PARAM_INVALID, e.to_string()),
        // VMMKIT_HAZARDS=error (vmmkit's own, docs/streams.md): the code of codes.rs.
        crate::core::CoreError::Unsynchronised(_) => Fail::plain(AclError::RT_STREAM_NOT_COMPLETE, e.to_string()),
        other => Fail::plain(AclError::RT_DRV_INTERNAL_ERROR, other.to_string()),
    }
}

/// `aclError aclrtDestroyStream(aclrtStream stream)`: [ACL-STM-001](vmmkit_sys::acl::rules::STM_001), [ACL-STM-005](vmmkit_sys::acl::rules::STM_005) (waits for pending work).
pub extern "C" fn aclrtDestroyStream(stream: aclrtStream) -> aclError {
    run("aclrtDestroyStream", || destroy_stream(stream, Ending::Drain))
}

/// `aclError aclrtDestroyStreamForce(aclrtStream stream)`: pending work not yet started is dropped
/// (force recycle, [ACL-STM-005](vmmkit_sys::acl::rules::STM_005)'s note).
pub extern "C" fn aclrtDestroyStreamForce(stream: aclrtStream) -> aclError {
    run("aclrtDestroyStreamForce", || destroy_stream(stream, Ending::Discard))
}

/// A timeout in ms (-1: none) as the core takes it. [ACL-STM-002](vmmkit_sys::acl::rules::STM_002): below -1
/// the ACL front end refuses it, 0 the runtime (ApiErrorDecorator), although
/// the header calls 0 "check at once".
pub(super) fn timeout_ms(timeout: i32) -> Result<Option<std::time::Duration>, Fail> {
    ensure!(timeout >= -1, rules::STM_002, "timeout {timeout} is below -1");
    ensure!(timeout != 0, rules::STM_002, "timeout 0 is refused by the runtime (not -1 and not positive)");
    Ok((timeout > 0).then(|| std::time::Duration::from_millis(timeout as u64)))
}

/// `aclError aclrtSynchronizeStream(aclrtStream stream)`: waits for the stream's work ([ACL-STM-004](vmmkit_sys::acl::rules::STM_004)).
pub extern "C" fn aclrtSynchronizeStream(stream: aclrtStream) -> aclError {
    run("aclrtSynchronizeStream", || {
        let id = stream_id(stream)?;
        super::model::refuse_capturing(id, "aclrtSynchronizeStream")?;
        emu()?.stream_synchronize(id, None).map_err(sync_fail)
    })
}

/// `aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)`: [ACL-STM-002](vmmkit_sys::acl::rules::STM_002), [ACL-STM-003](vmmkit_sys::acl::rules::STM_003).
pub extern "C" fn aclrtSynchronizeStreamWithTimeout(stream: aclrtStream, timeout: i32) -> aclError {
    run("aclrtSynchronizeStreamWithTimeout", || {
        let t = timeout_ms(timeout)?;
        let id = stream_id(stream)?;
        super::model::refuse_capturing(id, "aclrtSynchronizeStreamWithTimeout")?;
        emu()?.stream_synchronize(id, t).map_err(sync_fail)
    })
}

/// `aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)`: [ACL-STM-001](vmmkit_sys::acl::rules::STM_001), [ACL-STM-006](vmmkit_sys::acl::rules::STM_006).
pub extern "C" fn aclrtStreamQuery(stream: aclrtStream, status: Out<'_, aclrtStreamStatus>) -> aclError {
    run("aclrtStreamQuery", || {
        ensure!(!status.is_null(), rules::STM_001, "status is NULL");
        let id = stream_id(stream)?;
        super::model::refuse_capturing(id, "aclrtStreamQuery")?;
        let done = emu()?.stream_query(id).map_err(sync_fail)?;
        let v = if done { ACL_STREAM_STATUS_COMPLETE } else { ACL_STREAM_STATUS_NOT_READY };
        status.write(v)?;
        Ok(())
    })
}

/// `aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)`: the
/// stream's later work waits for the event's last record ([ACL-EVT-007](vmmkit_sys::acl::rules::EVT_007)).
pub extern "C" fn aclrtStreamWaitEvent(stream: aclrtStream, event: aclrtEvent) -> aclError {
    run("aclrtStreamWaitEvent", || {
        ensure!(!event.is_null(), rules::EVT_001, "event is NULL");
        let ev = super::event::event_id(event)?;
        let s = stream_id(stream)?;
        emu()?.stream_wait_event(s, ev).map_err(sync_fail)
    })
}

fn synchronize_device(timeout: Option<std::time::Duration>) -> Result<(), Fail> {
    let d = current_device()?;
    emu()?.device_synchronize(Some(d), timeout).map_err(sync_fail)
}

/// `aclError aclrtSynchronizeDevice(void)`: waits for every stream of the current device.
pub extern "C" fn aclrtSynchronizeDevice() -> aclError {
    run("aclrtSynchronizeDevice", || synchronize_device(None))
}

/// `aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)`: as aclrtSynchronizeDevice, bounded.
pub extern "C" fn aclrtSynchronizeDeviceWithTimeout(timeout: i32) -> aclError {
    run("aclrtSynchronizeDeviceWithTimeout", || synchronize_device(timeout_ms(timeout)?))
}

/// Ends this process's ACL streams on `device` (all devices: `None`) as
/// the final release of a context does: with force, so work not yet started
/// is dropped ([ACL-STM-007](vmmkit_sys::acl::rules::STM_007)).
fn end_streams(e: &Emulator, device: Option<u32>) {
    let on = |d: u32| device.is_none_or(|x| x == d);
    let st = state(e);
    lock(&st.streams).retain(|&h| {
        let id = StreamId(h.wrapping_sub(STREAM_BASE) as u64);
        let mine = e.stream_info(id).map_or(true, |(d, _)| on(d));
        if mine {
            let _ = e.stream_destroy(id, Ending::Discard);
        }
        !mine
    });
    lock(&st.default_streams).retain(|&d, id| {
        if on(d) {
            let _ = e.stream_destroy(*id, Ending::Discard);
        }
        !on(d)
    });
    lock(&st.stream_conf).retain(|&h, _| e.stream_exists(StreamId(h.wrapping_sub(STREAM_BASE) as u64)));
}

/// `const char *aclrtGetSocName(void)`: the SoC name of the chip played
/// (`VMMKIT_SOC`; default `Ascend910_9391`, an A3, so FABRIC handles work, acl.md §7.3).
pub extern "C" fn aclrtGetSocName() -> *const c_char {
    super::profile::soc().name.as_ptr()
}

/// `const char *aclGetRecentErrMsg(void)`: the calling thread's last error message.
pub extern "C" fn aclGetRecentErrMsg() -> *const c_char {
    thread::message_ptr()
}

/// `aclError aclrtGetVersion(int32_t *major, int32_t *minor, int32_t *patch)`: the header version emulated.
pub extern "C" fn aclrtGetVersion(
    majorVersion: Out<'_, i32>,
    minorVersion: Out<'_, i32>,
    patchVersion: Out<'_, i32>,
) -> aclError {
    run("aclrtGetVersion", || {
        if majorVersion.is_null() || minorVersion.is_null() || patchVersion.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "a version pointer is NULL".into()));
        }
        majorVersion.write(ACL_MAJOR_VERSION)?;
        minorVersion.write(ACL_MINOR_VERSION)?;
        patchVersion.write(ACL_PATCH_VERSION)?;
        Ok(())
    })
}

/// How one kind of device id becomes another ([ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012)): a user id is an
/// ordinal of the process (a place in `ASCEND_RT_VISIBLE_DEVICES`), a
/// logic id the driver's number of the device, which the emulator takes as
/// its physical one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IdKind {
    /// The process's ordinal.
    User,
    /// The machine's number (logic and physical ids alike).
    Machine,
}

/// Writes to `to` the id of kind `into` of the device whose id of kind
/// `from_kind` is `from`: a negative id, or one naming no device the process
/// sees, is 107001 (ChgUserDevIdToDeviceId and GetUserDevIdByDeviceId, runtime.cc:4799-4853;
/// the checks of api_error.cc:6896-6926); a NULL output is 100000.
pub(super) fn translate(from: i32, from_kind: IdKind, into: IdKind, to: Out<'_, i32>) -> Result<(), Fail> {
    if to.is_null() {
        return Err(Fail::plain(AclError::INVALID_PARAM, "output is NULL".into()));
    }
    let e = emu()?;
    let v = e.visible();
    let id = u32::try_from(from).ok();
    let machine = match from_kind {
        IdKind::User => id.and_then(|u| v.physical(u)),
        IdKind::Machine => id.filter(|&d| e.is_physical_device(i64::from(d)) && v.ordinal(d).is_some()),
    };
    let out = match into {
        IdKind::Machine => machine,
        IdKind::User => machine.and_then(|d| v.ordinal(d)),
    };
    ensure!(out.is_some(), rules::GEN_012, "device id {from} names no device this process sees ({})", v.describe());
    let Some(out) = out else { return Ok(()) };
    to.write(out as i32)?;
    Ok(())
}

/// `aclError aclrtGetLogicDevIdByUserDevId(int32_t userDevid, int32_t *logicDevId)`: [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012).
pub extern "C" fn aclrtGetLogicDevIdByUserDevId(userDevid: i32, logicDevId: Out<'_, i32>) -> aclError {
    run("aclrtGetLogicDevIdByUserDevId", || translate(userDevid, IdKind::User, IdKind::Machine, logicDevId))
}

/// `aclError aclrtGetPhyDevIdByLogicDevId(int32_t logicDevId, int32_t *phyDevId)`: [ACL-GEN-012](vmmkit_sys::acl::rules::GEN_012) (logic and
/// physical ids are one).
pub extern "C" fn aclrtGetPhyDevIdByLogicDevId(logicDevId: i32, phyDevId: Out<'_, i32>) -> aclError {
    run("aclrtGetPhyDevIdByLogicDevId", || translate(logicDevId, IdKind::Machine, IdKind::Machine, phyDevId))
}

/// `aclError aclrtDeviceGetBareTgid(int32_t *pid)`: [ACL-TGID-001](vmmkit_sys::acl::rules::TGID_001), [ACL-TGID-002](vmmkit_sys::acl::rules::TGID_002).
pub extern "C" fn aclrtDeviceGetBareTgid(pid: Out<'_, i32>) -> aclError {
    run("aclrtDeviceGetBareTgid", || {
        ensure!(!pid.is_null(), rules::TGID_001, "pid is NULL");
        pid.write(std::process::id() as i32)?;
        Ok(())
    })
}

/// `aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)`:
/// [ACL-PEER-001](vmmkit_sys::acl::rules::PEER_001), [ACL-PEER-002](vmmkit_sys::acl::rules::PEER_002). Every pair of emulated devices can reach each other.
pub extern "C" fn aclrtDeviceCanAccessPeer(
    canAccessPeer: Out<'_, i32>,
    deviceId: i32,
    peerDeviceId: i32,
) -> aclError {
    run("aclrtDeviceCanAccessPeer", || {
        ensure!(deviceId != peerDeviceId, rules::PEER_001, "deviceId and peerDeviceId are both {deviceId}");
        ensure!(!canAccessPeer.is_null(), rules::PEER_002, "canAccessPeer is NULL");
        let e = emu()?;
        for id in [deviceId, peerDeviceId] {
            ensure!(e.is_device(i64::from(id)), rules::PEER_002, "{id} is not a device");
        }
        canAccessPeer.write(1)?;
        Ok(())
    })
}

/// `aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)`:
/// [ACL-PEER-003](vmmkit_sys::acl::rules::PEER_003), [ACL-PEER-004](vmmkit_sys::acl::rules::PEER_004), [ACL-PEER-005](vmmkit_sys::acl::rules::PEER_005), [ACL-PEER-007](vmmkit_sys::acl::rules::PEER_007) (twice: 0).
pub extern "C" fn aclrtDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> aclError {
    run("aclrtDeviceEnablePeerAccess", || {
        ensure!(flags == 0, rules::PEER_003, "flags must be 0, got {flags}");
        let cur = thread::current_device();
        ensure!(cur.is_some(), rules::PEER_004, "no current device");
        let cur = cur.unwrap_or(0);
        ensure!(
            i64::from(peerDeviceId) != i64::from(cur),
            rules::PEER_005,
            "peer {peerDeviceId} is the current device"
        );
        let peer = device_id(peerDeviceId)?;
        note_peer(emu()?, cur, peer);
        Ok(())
    })
}

/// `aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)`: [ACL-PEER-004](vmmkit_sys::acl::rules::PEER_004).
pub extern "C" fn aclrtDeviceDisablePeerAccess(peerDeviceId: i32) -> aclError {
    run("aclrtDeviceDisablePeerAccess", || {
        let cur = thread::current_device();
        ensure!(cur.is_some(), rules::PEER_004, "no current device");
        let peer = device_id(peerDeviceId)?;
        emu()?.disable_peer(cur.unwrap_or(0), peer);
        Ok(())
    })
}

/// `aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)`:
/// 1 when enabled, explicitly or by a cross-device import.
pub extern "C" fn aclrtDevicePeerAccessStatus(deviceId: i32, peerDeviceId: i32, status: Out<'_, i32>) -> aclError {
    run("aclrtDevicePeerAccessStatus", || {
        if status.is_null() {
            return Err(Fail::plain(AclError::INVALID_PARAM, "status is NULL".into()));
        }
        let (d, p) = (device_id(deviceId)?, device_id(peerDeviceId)?);
        let e = emu()?;
        status.write(i32::from(e.peer_enabled(d, p) || e.peer_enabled(p, d)))?;
        Ok(())
    })
}
