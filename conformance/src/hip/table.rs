//! `Hip`: the calls of a [`HipApi`] table, one method per C function under
//! its C name ([`crate::calls`]), and the few helpers that do more than
//! pass a call through.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};

use vmmkit_sys::hip::*;

vmmkit_sys::hip_functions!(crate::calls::calls {
    /// A HIP table, with a method per entry point.
    Hip(HipApi);
});
crate::calls::returns_as_is!(Hip);

impl Hip {
    /// Closes an fd that `hipMemExportToShareableHandle` gave the caller,
    /// who owns it ([HIP-VMM-025](vmmkit_sys::hip::rules::VMM_025)). Negative values are ignored.
    pub fn close_exported_fd(fd: i32) {
        drop(Self::own_exported_fd(fd));
    }

    /// Takes ownership of an fd that `hipMemExportToShareableHandle` gave
    /// the caller ([HIP-VMM-025](vmmkit_sys::hip::rules::VMM_025)); `None` for a negative value.
    pub fn own_exported_fd(fd: i32) -> Option<std::os::fd::OwnedFd> {
        use std::os::fd::{FromRawFd, OwnedFd};
        // SAFETY: the export made this descriptor for the caller, who owns
        // it from here; nothing else in the suite holds it, and the OwnedFd
        // closes it once.
        (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// `hipGetErrorName(code)` as text.
    pub fn error_name(&self, code: HipError) -> String {
        text(self.hipGetErrorName(code.0))
    }

    /// `hipGetErrorString(code)` as text.
    pub fn error_string(&self, code: HipError) -> String {
        text(self.hipGetErrorString(code.0))
    }
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return "(NULL)".into();
    }
    // SAFETY: the HIP name and string functions return static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// Keeps `c_void` in scope for the list's signatures.
const _: Option<*mut c_void> = None;
