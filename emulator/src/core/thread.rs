//! Per-thread state, as the vendor runtimes keep it: the current device and
//! the last error message; and the entry point the thread is in, which the
//! core records as the creator of what it makes (set by `crate::instrument`).

use std::cell::{Cell, RefCell};
use std::ffi::{CString, c_char};

thread_local! {
    /// The current device of ACL and HIP (aclrtSetDevice, hipSetDevice): per thread, as theirs.
    static CURRENT: Cell<Option<u32>> = const { Cell::new(None) };
    /// The last error message (aclGetRecentErrMsg and the others): per thread, as theirs.
    static MESSAGE: RefCell<CString> = RefCell::new(CString::default());
    /// The number, on its stream, of the last work this thread enqueued
    /// (ACL's aclrtGetThreadLastTaskId): 0 before any.
    static LAST_TASK: Cell<u32> = const { Cell::new(0) };
    /// The entry point the calling thread is in (leak reports name it as the
    /// creator; fault injection counts by it). Per thread: calls nest per thread.
    static CALL: Cell<&'static str> = const { Cell::new("") };
}

/// The entry point the calling thread is in (`""` outside any).
pub fn current_call() -> &'static str {
    CALL.with(Cell::get)
}

/// Makes `name` the calling thread's entry point; returns the one it was in.
pub fn enter_call(name: &'static str) -> &'static str {
    CALL.with(|c| c.replace(name))
}

/// Puts back the entry point `outer` that [`enter_call`] returned.
pub fn leave_call(outer: &'static str) {
    CALL.with(|c| c.set(outer));
}

/// The number, on its stream, of the last work the calling thread enqueued.
pub fn last_task() -> u32 {
    LAST_TASK.with(Cell::get)
}

/// Records that the calling thread enqueued work number `seq` of its stream.
pub(crate) fn set_last_task(seq: u32) {
    LAST_TASK.with(|c| c.set(seq));
}

/// The calling thread's current device.
pub fn current_device() -> Option<u32> {
    CURRENT.with(Cell::get)
}

/// Sets (or clears) the calling thread's current device.
pub fn set_current_device(d: Option<u32>) {
    CURRENT.with(|c| c.set(d));
}

/// Records the calling thread's last error message.
pub fn set_message(msg: &str) {
    let c = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    MESSAGE.with(|m| *m.borrow_mut() = c);
}

/// Clears the calling thread's last error message.
pub fn clear_message() {
    MESSAGE.with(|m| *m.borrow_mut() = CString::default());
}

/// The calling thread's last error message, valid until its next error.
pub fn message_ptr() -> *const c_char {
    MESSAGE.with(|m| m.borrow().as_ptr())
}

/// A copy of the calling thread's last error message.
pub fn message() -> String {
    MESSAGE.with(|m| m.borrow().to_string_lossy().into_owned())
}
