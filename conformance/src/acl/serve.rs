//! The peer's side: `vmmkit __peer` reads requests from its stdin (one end
//! of the check's socketpair), runs each against its own ACL table and
//! replies, until the channel closes or it is told to exit.
#![forbid(unsafe_code)]

use std::ffi::c_void;
use std::process::ExitCode;
use std::ptr;

use vmmkit_sys::acl::*;

use super::{Acl, prop_with, rw_desc};
use crate::ctx::Suite;
use crate::pattern;
pub use crate::peer::link::Args;
use crate::peer::link::{Step, serve};
use crate::peer::{ROLE, Reply, Request};

/// Runs the peer until its channel closes or it is told to exit.
pub fn run(args: &Args) -> ExitCode {
    // The table is loaded at the first request, so that a peer that was
    // just started is always waiting on its channel.
    let mut state: Option<State> = None;
    serve(ROLE, |req: Request, _fds| {
        if state.is_none() {
            match vmmkit_sys::vendor::Acl::table(args.backend, args.library.as_deref()) {
                Ok(acl) => state = Some(State { acl, handles: Vec::new(), maps: Vec::new() }),
                Err(reason) => {
                    eprintln!("vmmkit {ROLE} (pid {}): no ACL table: {reason}", std::process::id());
                    return Step::Stop(ExitCode::from(3));
                }
            }
        }
        let Some(state) = state.as_mut() else { return Step::Stop(ExitCode::from(3)) };
        let exit = req == Request::Exit;
        let reply = state.handle(req);
        if exit { Step::ReplyAndExit(reply) } else { Step::Reply(reply) }
    })
}

struct State {
    acl: Acl,
    handles: Vec<aclrtDrvMemHandle>,
    maps: Vec<(*mut c_void, usize)>,
}

fn reply(code: AclError, text: &str) -> Reply {
    Reply { code: code.0, text: text.into(), ..Reply::default() }
}

/// `key` with its NUL, for the C calls.
fn c_key(mut key: Vec<u8>) -> Vec<std::ffi::c_char> {
    key.push(0);
    key.into_iter().map(|b| b as std::ffi::c_char).collect()
}

fn no_slot(what: &str, slot: usize) -> Reply {
    Reply { code: AclError::INVALID_PARAM.0, text: format!("peer: no {what} in slot {slot}"), ..Reply::default() }
}

impl State {
    fn handle(&mut self, req: Request) -> Reply {
        let acl = self.acl;
        match req {
            Request::Start { device } => {
                let r = acl.aclInit(ptr::null());
                if !r.is_success() && r != AclError::REPEAT_INITIALIZE {
                    return reply(r, "aclInit");
                }
                match device {
                    Some(d) => reply(acl.aclrtSetDevice(d), &format!("aclrtSetDevice({d})")),
                    None => reply(AclError::SUCCESS, ""),
                }
            }
            Request::Pid => {
                let mut pid = 0i32;
                let r = acl.aclrtDeviceGetBareTgid(&mut pid);
                Reply {
                    code: r.0,
                    value: u64::try_from(pid).unwrap_or(0),
                    slot: std::process::id() as usize,
                    text: "aclrtDeviceGetBareTgid".into(),
                    ..Reply::default()
                }
            }
            Request::Alloc { device, size, attr } => {
                let mut h: aclrtDrvMemHandle = ptr::null_mut();
                let p = prop_with(attr, ACL_MEM_LOCATION_TYPE_DEVICE, device);
                let r = acl.aclrtMallocPhysical(&mut h, size as usize, &p, 0);
                if r.is_success() {
                    self.handles.push(h);
                }
                Reply { slot: self.handles.len().wrapping_sub(1), ..reply(r, "aclrtMallocPhysical") }
            }
            Request::Map { handle, size } => {
                let Some(&h) = self.handles.get(handle) else { return no_slot("handle", handle) };
                self.map(h, size as usize)
            }
            Request::MapForeign { handle_value, size } => {
                self.map(handle_value as usize as aclrtDrvMemHandle, size as usize)
            }
            Request::SetAccess { map, device } => {
                let Some(&(va, size)) = self.maps.get(map) else { return no_slot("mapping", map) };
                let mut d = rw_desc(device);
                reply(acl.aclrtMemSetAccess(va, size, &mut d, 1), "aclrtMemSetAccess")
            }
            Request::Write { map, seed } => {
                let Some(&(va, size)) = self.maps.get(map) else { return no_slot("mapping", map) };
                let data = pattern::fill(seed, size);
                reply(
                    acl.aclrtMemcpy(va, size, data.as_ptr().cast(), size, ACL_MEMCPY_HOST_TO_DEVICE),
                    "aclrtMemcpy(host to device)",
                )
            }
            Request::Verify { map, seed } => {
                let Some(&(va, size)) = self.maps.get(map) else { return no_slot("mapping", map) };
                let mut data = vec![0u8; size];
                let r =
                    acl.aclrtMemcpy(data.as_mut_ptr().cast(), size, va.cast_const(), size, ACL_MEMCPY_DEVICE_TO_HOST);
                if !r.is_success() {
                    return reply(r, "aclrtMemcpy(device to host)");
                }
                match pattern::first_mismatch(seed, &data) {
                    None => Reply { value: 1, ..reply(r, "") },
                    Some((at, want, got)) => Reply {
                        value: 0,
                        ..reply(r, &format!("byte {at} is {got:#04x}, not {want:#04x} (pattern {seed})"))
                    },
                }
            }
            Request::Unmap { map } => {
                let Some(&(va, _)) = self.maps.get(map) else { return no_slot("mapping", map) };
                reply(acl.aclrtUnmapMem(va), "aclrtUnmapMem")
            }
            Request::Release { map } => {
                let Some(&(va, _)) = self.maps.get(map) else { return no_slot("mapping", map) };
                reply(acl.aclrtReleaseMemAddress(va), "aclrtReleaseMemAddress")
            }
            Request::Free { handle } => {
                let Some(&h) = self.handles.get(handle) else { return no_slot("handle", handle) };
                reply(acl.aclrtFreePhysical(h), "aclrtFreePhysical")
            }
            Request::Export { handle, flags } => {
                let Some(&h) = self.handles.get(handle) else { return no_slot("handle", handle) };
                let mut sh = 0u64;
                let r = acl.aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, flags, &mut sh);
                Reply { value: sh, ..reply(r, "aclrtMemExportToShareableHandle") }
            }
            Request::ExportV2 { handle, flags, share_type } => {
                let Some(&h) = self.handles.get(handle) else { return no_slot("handle", handle) };
                let mut out = [0u8; 128];
                match acl.aclrtMemExportToShareableHandleV2(h, flags, share_type, out.as_mut_ptr().cast()) {
                    Ok(r) => {
                        let len = if share_type == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC { 128 } else { 8 };
                        Reply { bytes: out[..len].to_vec(), ..reply(r, "aclrtMemExportToShareableHandleV2") }
                    }
                    Err(f) => reply(AclError::API_NOT_SUPPORT, &f.to_string()),
                }
            }
            Request::SetPid { shareable, mut pids } => reply(
                acl.aclrtMemSetPidToShareableHandle(shareable, pids.as_mut_ptr(), pids.len()),
                "aclrtMemSetPidToShareableHandle",
            ),
            Request::Import { shareable, device } => {
                let mut h: aclrtDrvMemHandle = ptr::null_mut();
                let r = acl.aclrtMemImportFromShareableHandle(shareable, device, &mut h);
                self.imported(r, h, "aclrtMemImportFromShareableHandle")
            }
            Request::ImportV2 { mut shareable, share_type, flags } => {
                shareable.resize(128, 0);
                let mut h: aclrtDrvMemHandle = ptr::null_mut();
                match acl.aclrtMemImportFromShareableHandleV2(shareable.as_mut_ptr().cast(), share_type, flags, &mut h)
                {
                    Ok(r) => self.imported(r, h, "aclrtMemImportFromShareableHandleV2"),
                    Err(f) => reply(AclError::API_NOT_SUPPORT, &f.to_string()),
                }
            }
            Request::Props { handle } => {
                let Some(&h) = self.handles.get(handle) else { return no_slot("handle", handle) };
                let mut p = aclrtPhysicalMemProp::default();
                let r = acl.aclrtMemGetAllocationPropertiesFromHandle(h, &mut p);
                let mut bytes = Vec::with_capacity(12);
                for v in [p.memAttr, p.location.type_, p.location.id as i32] {
                    bytes.extend_from_slice(&v.to_le_bytes());
                }
                Reply { bytes, ..reply(r, "aclrtMemGetAllocationPropertiesFromHandle") }
            }
            Request::Exit => reply(AclError::SUCCESS, ""),
            Request::Devices => {
                let r = acl.aclInit(ptr::null());
                if !r.is_success() && r != AclError::REPEAT_INITIALIZE {
                    return reply(r, "aclInit");
                }
                let mut n = 0u32;
                let r = acl.aclrtGetDeviceCount(&mut n);
                if !r.is_success() {
                    return reply(r, "aclrtGetDeviceCount");
                }
                let mut bytes = Vec::new();
                for user in 0..n as i32 {
                    let mut phy = -1i32;
                    let r = match acl.aclrtGetPhyDevIdByUserDevId(user, &mut phy) {
                        Ok(r) => r,
                        Err(f) => return reply(AclError::API_NOT_SUPPORT, &f.to_string()),
                    };
                    if !r.is_success() {
                        return reply(r, "aclrtGetPhyDevIdByUserDevId");
                    }
                    bytes.extend_from_slice(&phy.to_le_bytes());
                }
                Reply { value: u64::from(n), bytes, ..Reply::default() }
            }
            Request::UserOf { logic } => {
                let mut user = -1i32;
                let r = match acl.aclrtGetUserDevIdByLogicDevId(logic, &mut user) {
                    Ok(r) => r,
                    Err(f) => return reply(AclError::API_NOT_SUPPORT, &f.to_string()),
                };
                Reply { value: user as u64, ..reply(r, "aclrtGetUserDevIdByLogicDevId") }
            }
            Request::IpcAlloc { size, seed } => {
                let size = size as usize;
                let mut va: *mut c_void = ptr::null_mut();
                let r = acl.aclrtMalloc(&mut va, size, ACL_MEM_MALLOC_HUGE_FIRST);
                if !r.is_success() {
                    return reply(r, "aclrtMalloc");
                }
                let data = pattern::fill(seed, size);
                let r = acl.aclrtMemcpy(va, size, data.as_ptr().cast(), size, ACL_MEMCPY_HOST_TO_DEVICE);
                self.maps.push((va, size));
                Reply { slot: self.maps.len() - 1, value: va as u64, ..reply(r, "aclrtMemcpy(host to device)") }
            }
            Request::IpcGetKey { map, flags } => {
                let Some(&(va, size)) = self.maps.get(map) else { return no_slot("mapping", map) };
                let mut key = [0u8; ACL_IPC_KEY_MIN_LEN];
                let r = acl.aclrtIpcMemGetExportKey(va, size, key.as_mut_ptr().cast(), key.len(), flags);
                let end = key.iter().position(|&b| b == 0).unwrap_or(key.len());
                Reply { bytes: key[..end].to_vec(), ..reply(r, "aclrtIpcMemGetExportKey") }
            }
            Request::IpcSetPid { key, mut pids } => {
                let key = c_key(key);
                reply(
                    acl.aclrtIpcMemSetImportPid(key.as_ptr(), pids.as_mut_ptr(), pids.len()),
                    "aclrtIpcMemSetImportPid",
                )
            }
            Request::IpcImport { key, flags, size } => {
                let key = c_key(key);
                let mut va: *mut c_void = ptr::null_mut();
                let r = acl.aclrtIpcMemImportByKey(&mut va, key.as_ptr(), flags);
                if !r.is_success() {
                    return reply(r, "aclrtIpcMemImportByKey");
                }
                self.maps.push((va, size as usize));
                Reply { slot: self.maps.len() - 1, value: va as u64, ..reply(r, "aclrtIpcMemImportByKey") }
            }
            Request::IpcClose { key } => reply(acl.aclrtIpcMemClose(c_key(key).as_ptr()), "aclrtIpcMemClose"),
            Request::IpcFree { map } => {
                let Some(&(va, _)) = self.maps.get(map) else { return no_slot("mapping", map) };
                reply(acl.aclrtFree(va), "aclrtFree")
            }
            Request::Retain { map } => {
                let Some(&(va, _)) = self.maps.get(map) else { return no_slot("mapping", map) };
                let mut h: aclrtDrvMemHandle = ptr::null_mut();
                let r = acl.aclrtMemRetainAllocationHandle(va, &mut h);
                self.imported(r, h, "aclrtMemRetainAllocationHandle")
            }
            ref cells => super::serve_cells::handle(acl, &self.maps, cells)
                .unwrap_or_else(|| reply(AclError::INVALID_PARAM, "peer: an unknown request")),
        }
    }

    fn map(&mut self, h: aclrtDrvMemHandle, size: usize) -> Reply {
        let acl = self.acl;
        let mut va: *mut c_void = ptr::null_mut();
        let r = acl.aclrtReserveMemAddress(&mut va, size, 0, ptr::null_mut(), 0);
        if !r.is_success() {
            return reply(r, "aclrtReserveMemAddress");
        }
        let r = acl.aclrtMapMem(va, size, 0, h, 0);
        if !r.is_success() {
            let _ = acl.aclrtReleaseMemAddress(va);
            return reply(r, "aclrtMapMem");
        }
        self.maps.push((va, size));
        Reply { slot: self.maps.len() - 1, ..reply(r, "aclrtMapMem") }
    }

    fn imported(&mut self, r: AclError, h: aclrtDrvMemHandle, call: &str) -> Reply {
        if r.is_success() {
            self.handles.push(h);
            Reply { slot: self.handles.len() - 1, value: h as usize as u64, ..reply(r, call) }
        } else {
            reply(r, call)
        }
    }
}
