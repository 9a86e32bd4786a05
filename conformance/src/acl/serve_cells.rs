//! The peer's side of the notify and IPC event requests (ACL-NTF, ACL-IEV):
//! the notifies and events it opened, by slot, and the waits on its stream.
#![forbid(unsafe_code)]

use std::cell::RefCell;
use std::ffi::c_void;
use std::ptr;

use vmmkit_sys::acl::*;

use super::Acl;
use crate::pattern;
use crate::peer::{Reply, Request};

thread_local! {
    /// Opened notifies and events (as addresses), and the peer's stream.
    static CELLS: RefCell<Cells> = RefCell::new(Cells::default());
}

#[derive(Default)]
struct Cells {
    notifies: Vec<usize>,
    events: Vec<usize>,
    stream: Option<usize>,
    /// The host buffer of a read held behind a wait ([`Request::NotifyWaitHeld`]).
    held: Option<Box<[u8]>>,
}

fn reply(code: AclError, text: &str) -> Reply {
    Reply { code: code.0, text: text.into(), ..Reply::default() }
}

fn missing(f: crate::outcome::Failure) -> Reply {
    reply(AclError::API_NOT_SUPPORT, &f.to_string())
}

/// The peer's stream, made at first use.
fn stream(acl: Acl) -> Result<aclrtStream, Reply> {
    CELLS.with_borrow_mut(|c| {
        if let Some(s) = c.stream {
            return Ok(s as aclrtStream);
        }
        let mut s: aclrtStream = ptr::null_mut();
        let r = acl.aclrtCreateStream(&mut s);
        if !r.is_success() {
            return Err(reply(r, "aclrtCreateStream"));
        }
        c.stream = Some(s as usize);
        Ok(s)
    })
}

/// Copies mapping `map` to the host on `s`, synchronizes, compares with `seed`.
fn read_back(acl: Acl, s: aclrtStream, (va, size): (*mut c_void, usize), seed: u8) -> Reply {
    let mut data = vec![0u8; size];
    let r = acl.aclrtMemcpyAsync(data.as_mut_ptr().cast(), size, va.cast_const(), size, ACL_MEMCPY_DEVICE_TO_HOST, s);
    if !r.is_success() {
        return reply(r, "aclrtMemcpyAsync(device to host)");
    }
    let r = acl.aclrtSynchronizeStream(s);
    if !r.is_success() {
        return reply(r, "aclrtSynchronizeStream");
    }
    match pattern::first_mismatch(seed, &data) {
        None => Reply { value: 1, ..reply(r, "") },
        Some((at, want, got)) => {
            Reply { value: 0, ..reply(r, &format!("byte {at} is {got:#04x}, not {want:#04x} (pattern {seed})")) }
        }
    }
}

/// On the peer's stream: `wait` (the call `what`), then [`read_back`].
fn wait_then_read(
    acl: Acl,
    m: (*mut c_void, usize),
    seed: u8,
    what: &str,
    wait: impl FnOnce(aclrtStream) -> Result<AclError, crate::outcome::Failure>,
) -> Reply {
    let s = match stream(acl) {
        Ok(s) => s,
        Err(r) => return r,
    };
    match wait(s) {
        Ok(r) if r.is_success() => read_back(acl, s, m, seed),
        Ok(r) => reply(r, what),
        Err(f) => missing(f),
    }
}

/// Runs a notify or IPC event request; `None` for any other request.
pub(super) fn handle(acl: Acl, maps: &[(*mut c_void, usize)], req: &Request) -> Option<Reply> {
    let no_slot = |what: &str, slot: usize| Reply {
        code: AclError::INVALID_PARAM.0,
        text: format!("peer: no {what} in slot {slot}"),
        ..Reply::default()
    };
    Some(match req {
        Request::NotifyImport { key, flags } => {
            let mut k: Vec<std::ffi::c_char> = key.iter().map(|&b| b as std::ffi::c_char).collect();
            k.push(0);
            let mut n: aclrtNotify = ptr::null_mut();
            match acl.aclrtNotifyImportByKey(&mut n, k.as_ptr(), *flags) {
                Ok(r) if r.is_success() => CELLS.with_borrow_mut(|c| {
                    c.notifies.push(n as usize);
                    Reply { slot: c.notifies.len() - 1, ..reply(r, "aclrtNotifyImportByKey") }
                }),
                Ok(r) => reply(r, "aclrtNotifyImportByKey"),
                Err(f) => missing(f),
            }
        }
        Request::NotifyWaitRead { notify, map, seed, timeout } => {
            let Some(n) = CELLS.with_borrow(|c| c.notifies.get(*notify).copied()) else {
                return Some(no_slot("notify", *notify));
            };
            let Some(&m) = maps.get(*map) else { return Some(no_slot("mapping", *map)) };
            wait_then_read(acl, m, *seed, "aclrtWaitAndResetNotify", |s| {
                acl.aclrtWaitAndResetNotify(n as aclrtNotify, s, *timeout)
            })
        }
        Request::NotifyWaitHeld { notify, map } => {
            let Some(n) = CELLS.with_borrow(|c| c.notifies.get(*notify).copied()) else {
                return Some(no_slot("notify", *notify));
            };
            let Some(&(va, size)) = maps.get(*map) else { return Some(no_slot("mapping", *map)) };
            let s = match stream(acl) {
                Ok(s) => s,
                Err(r) => return Some(r),
            };
            match acl.aclrtWaitAndResetNotify(n as aclrtNotify, s, 0) {
                Ok(r) if r.is_success() => {}
                Ok(r) => return Some(reply(r, "aclrtWaitAndResetNotify")),
                Err(f) => return Some(missing(f)),
            }
            let mut data = vec![0u8; size].into_boxed_slice();
            let r = acl.aclrtMemcpyAsync(
                data.as_mut_ptr().cast(),
                size,
                va.cast_const(),
                size,
                ACL_MEMCPY_DEVICE_TO_HOST,
                s,
            );
            if !r.is_success() {
                return Some(reply(r, "aclrtMemcpyAsync(device to host)"));
            }
            // The buffer lives (its heap block does not move) until the read ends.
            CELLS.with_borrow_mut(|c| c.held = Some(data));
            match acl.aclrtSynchronizeStreamWithTimeout(s, 1) {
                Ok(r) => reply(r, "aclrtSynchronizeStreamWithTimeout(1 ms)"),
                Err(f) => missing(f),
            }
        }
        Request::ReadHeld { seed } => {
            let s = match stream(acl) {
                Ok(s) => s,
                Err(r) => return Some(r),
            };
            let r = acl.aclrtSynchronizeStream(s);
            let Some(data) = CELLS.with_borrow_mut(|c| c.held.take()) else {
                return Some(reply(AclError::INVALID_PARAM, "peer: no read held"));
            };
            if !r.is_success() {
                return Some(reply(r, "aclrtSynchronizeStream"));
            }
            match pattern::first_mismatch(*seed, &data) {
                None => Reply { value: 1, ..reply(r, "") },
                Some((at, want, got)) => Reply {
                    value: 0,
                    ..reply(r, &format!("byte {at} is {got:#04x}, not {want:#04x} (pattern {seed})"))
                },
            }
        }
        Request::EventOpen { handle } => {
            let mut h = aclrtIpcEventHandle::default();
            for (d, &b) in h.reserved.iter_mut().zip(handle) {
                *d = b as std::ffi::c_char;
            }
            let mut e: aclrtEvent = ptr::null_mut();
            match acl.aclrtIpcOpenEventHandle(h, &mut e) {
                Ok(r) if r.is_success() => CELLS.with_borrow_mut(|c| {
                    c.events.push(e as usize);
                    Reply { slot: c.events.len() - 1, ..reply(r, "aclrtIpcOpenEventHandle") }
                }),
                Ok(r) => reply(r, "aclrtIpcOpenEventHandle"),
                Err(f) => missing(f),
            }
        }
        Request::EventWaitRead { event, map, seed } => {
            let Some(e) = CELLS.with_borrow(|c| c.events.get(*event).copied()) else {
                return Some(no_slot("event", *event));
            };
            let Some(&m) = maps.get(*map) else { return Some(no_slot("mapping", *map)) };
            wait_then_read(acl, m, *seed, "aclrtStreamWaitEvent", |s| acl.aclrtStreamWaitEvent(s, e as aclrtEvent))
        }
        Request::EventRecordStuck { event } => {
            let Some(e) = CELLS.with_borrow(|c| c.events.get(*event).copied()) else {
                return Some(no_slot("event", *event));
            };
            let s = match stream(acl) {
                Ok(s) => s,
                Err(r) => return Some(r),
            };
            let mut word: *mut c_void = ptr::null_mut();
            let r = acl.aclrtMalloc(&mut word, 8, ACL_MEM_MALLOC_HUGE_FIRST);
            if !r.is_success() {
                return Some(reply(r, "aclrtMalloc"));
            }
            let r = acl.aclrtMemset(word, 8, 0, 8);
            if !r.is_success() {
                return Some(reply(r, "aclrtMemset"));
            }
            // The word stays 0: a wait for 1 never ends. Kept until the peer dies.
            match acl
                .aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s)
                .and_then(|r| if r.is_success() { acl.aclrtRecordEvent(e as aclrtEvent, s) } else { Ok(r) })
            {
                Ok(r) => reply(r, "aclrtValueWait, aclrtRecordEvent"),
                Err(f) => missing(f),
            }
        }
        _ => return None,
    })
}
