//! `aclrtLaunchCallback` runs a host function in stream
//! order on the report thread the program subscribed to the stream
//! (`aclrtSubscribeReport`), which runs it inside `aclrtProcessReport`;
//! `aclrtLaunchHostFunc` runs one in stream order without a subscription,
//! as the runtime's own callback thread does.
//!
//! CANN (hicann/runtime@681ef76): the thread id is the subscriber's
//! `pthread_self()` (PidTidFetcher::GetCurrentUserTid, osal.cc:311-320); a
//! callback on a stream no thread is subscribed to is 107015
//! (ApiImpl::CallbackLaunch, api_impl.cc:5353-5378); aclrtProcessReport
//! refuses timeouts below -1 and 0 (callback.cpp:187-192), fails with 107012
//! on a thread no stream is subscribed to and 507012 when nothing came in
//! time; a BLOCK callback holds its stream until it has run.
#![allow(non_snake_case)]

use std::collections::{HashMap, VecDeque};
use std::ffi::c_void;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use vmmkit_sys::acl::*;

use super::call::{Fail, emu, run};
use super::device::{STREAM_BASE, stream_id, sync_fail};
use super::state::{lock, state};
use crate::core::Work;

/// A callback waiting for its report thread, and who waits for it.
struct Job {
    f: unsafe extern "C" fn(*mut c_void),
    data: usize,
    /// The stream it was launched on: what it does is ordered as that
    /// stream's work (the unsynchronised-access check).
    stream: crate::core::StreamId,
    /// For a BLOCK callback: set once it has run.
    done: Option<Arc<(Mutex<bool>, Condvar)>>,
}

/// The subscriptions and the callbacks queued for each report thread.
#[derive(Default)]
pub(super) struct Reports {
    /// Per stream handle (`STREAM_BASE` + core number), its report thread.
    subs: Mutex<HashMap<usize, u64>>,
    /// Per report thread, its callbacks in arrival order.
    queues: Mutex<HashMap<u64, VecDeque<Job>>>,
    /// Signalled when a callback is queued.
    arrived: Condvar,
}

impl std::fmt::Debug for Reports {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reports").field("subs", &*lock(&self.subs)).finish_non_exhaustive()
    }
}

/// The handle key of `stream` (NULL: the current device's default stream).
fn key(stream: aclrtStream) -> Result<usize, Fail> {
    Ok(STREAM_BASE + stream_id(stream)?.0 as usize)
}

/// `aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream)`:
/// callbacks launched on `stream` run on thread `threadId` (its
/// `pthread_self()`); a stream already subscribed is 107011.
pub extern "C" fn aclrtSubscribeReport(threadId: u64, stream: aclrtStream) -> aclError {
    run("aclrtSubscribeReport", || {
        let k = key(stream)?;
        let mut subs = lock(&state(emu()?).reports.subs);
        if subs.contains_key(&k) {
            return Err(Fail::plain(AclError::RT_STREAM_SUBSCRIBE, format!("{stream:p} is already subscribed")));
        }
        subs.insert(k, threadId);
        Ok(())
    })
}

/// `aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream)`:
/// ends the subscription; 107011 when `stream` is not subscribed to `threadId`.
pub extern "C" fn aclrtUnSubscribeReport(threadId: u64, stream: aclrtStream) -> aclError {
    run("aclrtUnSubscribeReport", || {
        let k = key(stream)?;
        let mut subs = lock(&state(emu()?).reports.subs);
        if subs.get(&k) != Some(&threadId) {
            return Err(Fail::plain(
                AclError::RT_STREAM_SUBSCRIBE,
                format!("{stream:p} is not subscribed to thread {threadId:#x}"),
            ));
        }
        subs.remove(&k);
        Ok(())
    })
}

/// `aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType, aclrtStream stream)`:
/// when the stream gets there, `fn(userData)` is handed to the stream's
/// report thread; with `ACL_CALLBACK_BLOCK` the stream's later work waits
/// until it has run.
pub extern "C" fn aclrtLaunchCallback(
    fn_: aclrtCallback,
    userData: *mut c_void,
    blockType: aclrtCallbackBlockType,
    stream: aclrtStream,
) -> aclError {
    run("aclrtLaunchCallback", || {
        if blockType != ACL_CALLBACK_BLOCK && blockType != ACL_CALLBACK_NO_BLOCK {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("blockType {blockType} is not BLOCK or NO_BLOCK")));
        }
        let Some(f) = fn_ else {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, "fn is NULL".into()));
        };
        let id = stream_id(stream)?;
        let e = emu()?;
        let Some(thread) = lock(&state(e).reports.subs).get(&(STREAM_BASE + id.0 as usize)).copied() else {
            return Err(Fail::plain(
                AclError::RT_STREAM_NO_CB_REG,
                format!("{stream:p} is not bound to a thread: call aclrtSubscribeReport first"),
            ));
        };
        let block = blockType == ACL_CALLBACK_BLOCK;
        let data = userData as usize;
        let sub = STREAM_BASE + id.0 as usize;
        // A `Call`, not a one-shot `Host`: a capture makes it a node of its
        // model, and each execution queues the callback again (ACL-MRI-013).
        let work = Work::Call(Arc::new(move || {
            let Ok(e) = crate::core::emulator() else { return };
            let r = &state(e).reports;
            let done = block.then(|| Arc::new((Mutex::new(false), Condvar::new())));
            lock(&r.queues).entry(thread).or_default().push_back(Job { f, data, stream: id, done: done.clone() });
            r.arrived.notify_all();
            if let Some(d) = done {
                wait_ran(r, &d, sub, thread);
            }
        }));
        // SAFETY: a host function touches no device memory of its own.
        unsafe { e.enqueue(id, work) }.map_err(sync_fail)
    })
}

/// How often a wait for a report thread looks whether that thread still
/// has the subscription (a thread that unsubscribed never processes it).
const LOOK: Duration = Duration::from_millis(100);

/// Holds a stream's worker until its BLOCK callback `d` has run on report
/// thread `thread`, or until the stream `sub` is no longer subscribed to
/// that thread (aclrtUnSubscribeReport, or the thread gave up): then the
/// callback is taken back unrun, if it was not started, and the stream goes
/// on, instead of waiting for a thread that will never process it.
fn wait_ran(r: &Reports, d: &Arc<(Mutex<bool>, Condvar)>, sub: usize, thread: u64) {
    let mut ran = lock(&d.0);
    while !*ran {
        ran = d.1.wait_timeout(ran, LOOK).unwrap_or_else(|p| p.into_inner()).0;
        if *ran || lock(&r.subs).get(&sub) == Some(&thread) {
            continue;
        }
        drop(ran);
        let mut queues = lock(&r.queues);
        let q = queues.entry(thread).or_default();
        let before = q.len();
        q.retain(|j| !j.done.as_ref().is_some_and(|x| Arc::ptr_eq(x, d)));
        let taken_back = q.len() < before;
        drop(queues);
        ran = lock(&d.0);
        if taken_back {
            return;
        }
        // Taken by aclrtProcessReport already: it is running, wait for it.
    }
}

/// The calling thread's id as CANN takes it: `pthread_self()`.
fn this_thread() -> u64 {
    // SAFETY: pthread_self has no preconditions.
    unsafe { libc::pthread_self() as u64 }
}

/// `aclError aclrtProcessReport(int32_t timeout)`: runs, on the calling
/// thread, the callbacks queued for it, waiting up to `timeout` ms (-1: no
/// limit) for the first one.
pub extern "C" fn aclrtProcessReport(timeout: i32) -> aclError {
    run("aclrtProcessReport", || {
        if timeout < -1 || timeout == 0 {
            return Err(Fail::plain(AclError::INVALID_PARAM, format!("timeout {timeout}: -1 or a positive value")));
        }
        let me = this_thread();
        let r = &state(emu()?).reports;
        if !lock(&r.subs).values().any(|t| *t == me) {
            return Err(Fail::plain(AclError::RT_THREAD_SUBSCRIBE, format!("thread {me:#x} has no subscribed stream")));
        }
        let deadline = (timeout > 0).then(|| Instant::now() + Duration::from_millis(timeout as u64));
        let mut queues = lock(&r.queues);
        let jobs: Vec<Job> = loop {
            let q = queues.entry(me).or_default();
            if !q.is_empty() {
                break q.drain(..).collect();
            }
            queues = match deadline {
                // Without a limit, it still ends once no stream is subscribed
                // to this thread any more (no callback can come): as the
                // call's own check at entry says.
                None => {
                    let (qs, _) = r.arrived.wait_timeout(queues, LOOK).unwrap_or_else(|p| p.into_inner());
                    if qs.get(&me).is_none_or(VecDeque::is_empty) && !lock(&r.subs).values().any(|t| *t == me) {
                        return Err(Fail::plain(
                            AclError::RT_THREAD_SUBSCRIBE,
                            format!("thread {me:#x} has no subscribed stream any more"),
                        ));
                    }
                    qs
                }
                Some(d) => {
                    let left = d.saturating_duration_since(Instant::now());
                    if left.is_zero() {
                        return Err(Fail::plain(AclError::RT_REPORT_TIMEOUT, format!("no callback in {timeout} ms")));
                    }
                    r.arrived.wait_timeout(queues, left).unwrap_or_else(|p| p.into_inner()).0
                }
            };
        };
        drop(queues);
        for j in jobs {
            let in_stream = crate::core::hazard::InStream::enter(j.stream);
            // SAFETY: the program passed `f` for `data` to aclrtLaunchCallback (its C contract).
            unsafe { (j.f)(j.data as *mut c_void) };
            drop(in_stream);
            if let Some(d) = j.done {
                *lock(&d.0) = true;
                d.1.notify_all();
            }
        }
        Ok(())
    })
}

/// `aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)`:
/// `fn(args)` runs in stream order, the stream's later work after it
/// (ApiImpl::LaunchHostFunc, api_impl.cc:9139-9170: the context's own
/// callback thread, no subscription needed).
pub extern "C" fn aclrtLaunchHostFunc(stream: aclrtStream, fn_: aclrtHostFunc, args: *mut c_void) -> aclError {
    run("aclrtLaunchHostFunc", || {
        let Some(f) = fn_ else {
            return Err(Fail::plain(AclError::RT_PARAM_INVALID, "fn is NULL".into()));
        };
        let id = stream_id(stream)?;
        let data = args as usize;
        // A `Call`: a capture makes it a node its model runs at every execution (ACL-MRI-013).
        // SAFETY: the program passed `f` for `args` (its C contract).
        let work = Work::Call(Arc::new(move || unsafe { f(data as *mut c_void) }));
        // SAFETY: a host function touches no device memory of its own.
        unsafe { emu()?.enqueue(id, work) }.map_err(sync_fail)
    })
}
