//! Callbacks run by aclInit and aclFinalize
//! (`aclInitCallbackRegister` …), and `aclFinalizeReference`, over the
//! process's aclInit reference count.
//!
//! CANN (hicann/runtime@681ef76): src/acl/aclrt_impl/init_callback_manager.cpp
//! (registration: a NULL function is 100000, a second function for a type
//! other than `ACL_REG_TYPE_OTHER` or an unknown one to unregister 500000;
//! an init callback registered after aclInit runs at once), acl.cpp:436-526
//! (aclInit notifies MODEL, OP_EXECUTOR, DVPP, OTHER with the config file's
//! text), acl.cpp:560-617 (aclFinalize notifies OP_COMPILER, MODEL, DVPP,
//! OTHER), acl.cpp:648-680 (aclFinalizeReference).
#![allow(non_snake_case)]

use std::ffi::{c_char, c_void};
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use vmmkit_sys::acl::*;

use super::call::{Fail, emu, run};
use crate::ffi::{CStrIn, Out};
use super::state::{lock, state};

/// One registered callback: its type, function and user data.
struct Entry<F> {
    kind: aclRegisterCallbackType,
    f: F,
    data: usize,
}

type InitFn = unsafe extern "C" fn(*const c_char, usize, *mut c_void) -> aclError;
type FinalizeFn = unsafe extern "C" fn(*mut c_void) -> aclError;

// Process-global, not in the ACL state of the emulator: a program registers
// these callbacks before aclInit, which is what starts the emulator (and a
// registration must not fail for want of a root), and they outlive
// aclFinalize, as CANN keeps them.
/// The init callbacks registered.
static INIT: Mutex<Vec<Entry<InitFn>>> = Mutex::new(Vec::new());
/// The finalize callbacks registered.
static FINALIZE: Mutex<Vec<Entry<FinalizeFn>>> = Mutex::new(Vec::new());
/// The config file's text of the first aclInit (what later init callbacks
/// get); process-global with the callbacks it is handed to.
static CONFIG: Mutex<String> = Mutex::new(String::new());

/// The types aclInit notifies, in its order (acl.cpp:438, 455, 505, 526).
const ON_INIT: [aclRegisterCallbackType; 4] =
    [ACL_REG_TYPE_ACL_MODEL, ACL_REG_TYPE_ACL_OP_EXECUTOR, ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER];
/// The types aclFinalize notifies, in its order (acl.cpp:560, 566, 586, 617).
const ON_FINALIZE: [aclRegisterCallbackType; 4] =
    [ACL_REG_TYPE_ACL_OP_COMPILER, ACL_REG_TYPE_ACL_MODEL, ACL_REG_TYPE_ACL_DVPP, ACL_REG_TYPE_OTHER];

/// Adds `f` for `kind` to `list`: 500000 when the kind (not OTHER) has one.
fn register<F: Copy>(list: &Mutex<Vec<Entry<F>>>, kind: aclRegisterCallbackType, f: F, data: *mut c_void) -> Result<(), Fail> {
    let mut l = lock(list);
    if kind != ACL_REG_TYPE_OTHER && l.iter().any(|e| e.kind == kind) {
        return Err(Fail::plain(AclError::INTERNAL_ERROR, format!("type {kind} already has a callback")));
    }
    l.push(Entry { kind, f, data: data as usize });
    Ok(())
}

/// Removes `f` of `kind` from `list`: 500000 when it is not there.
fn unregister<F: PartialEq>(list: &Mutex<Vec<Entry<F>>>, kind: aclRegisterCallbackType, f: F) -> Result<(), Fail> {
    let mut l = lock(list);
    let Some(i) = l.iter().position(|e| e.kind == kind && e.f == f) else {
        return Err(Fail::plain(AclError::INTERNAL_ERROR, format!("no such callback for type {kind}")));
    };
    l.remove(i);
    Ok(())
}

fn null_callback() -> Fail {
    Fail::plain(AclError::INVALID_PARAM, "cbFunc is NULL".into())
}

/// Runs the callbacks of `kinds` (in that order, each kind's in registration
/// order) with `call`; the first failure's code is returned.
fn notify<F: Copy>(list: &Mutex<Vec<Entry<F>>>, kinds: &[aclRegisterCallbackType], call: impl Fn(F, *mut c_void) -> aclError) -> Result<(), Fail> {
    // Copied out: a callback may register or unregister.
    let entries: Vec<(aclRegisterCallbackType, F, usize)> = lock(list).iter().map(|e| (e.kind, e.f, e.data)).collect();
    for kind in kinds {
        for (_, f, data) in entries.iter().filter(|(k, ..)| k == kind) {
            let rc = call(*f, *data as *mut c_void);
            if rc != AclError::SUCCESS.0 {
                return Err(Fail::plain(AclError(rc), format!("a callback of type {kind} returned {rc}")));
            }
        }
    }
    Ok(())
}

/// aclInit's part: counts the reference, keeps the config file's text (empty
/// without a path or a readable file), and on the first aclInit runs the
/// init callbacks.
pub(super) fn on_init(config_path: CStrIn<'_>, first: bool) -> Result<(), Fail> {
    state(emu()?).init_refs.fetch_add(1, Ordering::SeqCst);
    if !first {
        return Ok(());
    }
    let text = if config_path.is_null() {
        String::new()
    } else {
        let path = config_path.get()?.to_string_lossy().into_owned();
        std::fs::read_to_string(path).unwrap_or_default()
    };
    *lock(&CONFIG) = text.clone();
    notify(&INIT, &ON_INIT, |f, data| {
        // SAFETY: the program registered `f` for this call (its C contract); `text` outlives it.
        unsafe { f(text.as_ptr().cast(), text.len(), data) }
    })
}

/// aclFinalize's part: the finalize callbacks, and the count back to 0.
pub(super) fn on_finalize() -> Result<(), Fail> {
    if let Some(e) = crate::core::running() {
        state(e).init_refs.store(0, Ordering::SeqCst);
    }
    // SAFETY: the program registered `f` for this call (its C contract).
    notify(&FINALIZE, &ON_FINALIZE, |f, data| unsafe { f(data) })
}

/// `aclError aclInitCallbackRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc, void *userData)`:
/// run by aclInit; registered after it, run at once (its code ignored).
#[allow(clippy::not_unsafe_ptr_arg_deref)] // userData goes to the program's callback, never dereferenced here
pub extern "C" fn aclInitCallbackRegister(
    type_: aclRegisterCallbackType,
    cbFunc: aclInitCallbackFunc,
    userData: *mut c_void,
) -> aclError {
    run("aclInitCallbackRegister", || {
        let f = cbFunc.ok_or_else(null_callback)?;
        register(&INIT, type_, f, userData)?;
        if state(emu()?).initialised.load(Ordering::SeqCst) {
            let text = lock(&CONFIG).clone();
            // SAFETY: as in on_init.
            let _ = unsafe { f(text.as_ptr().cast(), text.len(), userData) };
        }
        Ok(())
    })
}

/// `aclError aclInitCallbackUnRegister(aclRegisterCallbackType type, aclInitCallbackFunc cbFunc)`.
pub extern "C" fn aclInitCallbackUnRegister(type_: aclRegisterCallbackType, cbFunc: aclInitCallbackFunc) -> aclError {
    run("aclInitCallbackUnRegister", || unregister(&INIT, type_, cbFunc.ok_or_else(null_callback)?))
}

/// `aclError aclFinalizeCallbackRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc, void *userData)`:
/// run by aclFinalize.
pub extern "C" fn aclFinalizeCallbackRegister(
    type_: aclRegisterCallbackType,
    cbFunc: aclFinalizeCallbackFunc,
    userData: *mut c_void,
) -> aclError {
    run("aclFinalizeCallbackRegister", || register(&FINALIZE, type_, cbFunc.ok_or_else(null_callback)?, userData))
}

/// `aclError aclFinalizeCallbackUnRegister(aclRegisterCallbackType type, aclFinalizeCallbackFunc cbFunc)`.
pub extern "C" fn aclFinalizeCallbackUnRegister(
    type_: aclRegisterCallbackType,
    cbFunc: aclFinalizeCallbackFunc,
) -> aclError {
    run("aclFinalizeCallbackUnRegister", || unregister(&FINALIZE, type_, cbFunc.ok_or_else(null_callback)?))
}

/// `aclError aclFinalizeReference(uint64_t *refCount)`: drops one aclInit
/// reference; the last one finalizes as aclFinalize does. Without a
/// reference it is 100037 ([ACL-GEN-002](vmmkit_sys::acl::rules::GEN_002)'s code). `refCount` (may be NULL)
/// gets the count left.
pub extern "C" fn aclFinalizeReference(refCount: Out<'_, u64>) -> aclError {
    let refs = crate::core::running().map_or(0, |e| state(e).init_refs.load(Ordering::SeqCst));
    let write = |n: u64| {
        refCount.write_if_given(n);
    };
    write(refs);
    if refs > 1 {
        return run("aclFinalizeReference", || {
            let n = state(emu()?).init_refs.fetch_sub(1, Ordering::SeqCst) - 1;
            write(n);
            Ok(())
        });
    }
    if refs == 0 {
        return run("aclFinalizeReference", || {
            Err(Fail::plain(AclError::REPEAT_FINALIZE, "no aclInit reference is left".into()))
        });
    }
    let rc = super::device::aclFinalize();
    write(0);
    rc
}
