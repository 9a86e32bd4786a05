//! `Acl`: the calls of an [`AclApi`] table, one method per C function under
//! its C name ([`crate::calls`]), each code given as an [`AclError`] and an
//! absent optional function as a not-supported failure; and the helpers
//! that do more than pass a call through.
#![allow(non_snake_case)]

use std::ffi::{CStr, c_char, c_void};

use vmmkit_sys::acl::*;

use crate::calls::{Returns, lacks};
use crate::outcome::Failure;

vmmkit_sys::acl_functions!(crate::calls::calls {
    /// An ACL table, with a method per entry point.
    Acl(AclApi);
});

/// ACL's codes come back as [`AclError`]; an optional function the
/// backend lacks makes the check not-supported.
impl Returns<aclError> for Acl {
    type Out = AclError;
    type Optional = Result<AclError, Failure>;
    fn out(r: aclError) -> AclError {
        AclError(r)
    }
    fn optional(symbol: &'static str, r: Option<aclError>) -> Result<AclError, Failure> {
        r.map(AclError).ok_or_else(|| lacks(symbol))
    }
}

/// The few ACL functions that return something other than a code give it as is.
macro_rules! not_codes {
    ($($t:ty),*) => {$(
        impl Returns<$t> for Acl {
            type Out = $t;
            type Optional = Result<$t, Failure>;
            fn out(r: $t) -> $t {
                r
            }
            fn optional(symbol: &'static str, r: Option<$t>) -> Result<$t, Failure> {
                r.ok_or_else(|| lacks(symbol))
            }
        }
    )*};
}
not_codes!(
    *const c_char,
    *mut c_void,
    *mut aclDataBuffer,
    *mut aclrtGroupInfo,
    *mut aclrtStreamConfigHandle,
    u16,
    u32,
    f32,
    usize
);

impl Acl {
    /// `aclrtGetSocName`, as text; `None` where the library answers NULL.
    pub fn soc_name(&self) -> Option<String> {
        let p = self.aclrtGetSocName();
        // SAFETY: a non-NULL answer of aclrtGetSocName is a NUL-terminated
        // string the library keeps for the life of the process.
        (!p.is_null()).then(|| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
    }
}
