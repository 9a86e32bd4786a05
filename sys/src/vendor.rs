//! One description per vendor: its C table, its code type, its family name
//! and its rule table, as associated items of one trait (the shape of
//! wgpu-hal's `Api`). Code that is the same for every vendor — the
//! emulator's call path, the conformance context and runner, the runtime —
//! is written once over `V: Vendor`.
//!
//! ```
//! use vmmkit_sys::vendor::{Acl, Vendor};
//! assert_eq!(Acl::DIALECT.label(), "ACL");
//! assert!(Acl::rules().iter().any(|r| r.id.as_str() == "ACL-MAP-003"));
//! ```
#![forbid(unsafe_code)]

use std::fmt;
use std::hash::Hash;
use std::path::Path;

use crate::acl::{self, AclApi, AclError};
use crate::cuda::{self, CuResult, CudaApi};
#[cfg(feature = "example-vendor")]
use crate::example::{self, ExResult, ExampleApi};
use crate::hip::{self, HipApi, HipError};
use crate::loader::{LoadError, Loaded};
use crate::rule::{Code, Dialect, Rule};

/// A vendor return-code newtype (made by the `codes!` macro).
pub trait VendorCode:
    Copy + Eq + Hash + fmt::Display + fmt::Debug + Send + Sync + Into<Code> + TryFrom<Code, Error = Code> + 'static
{
    /// The C type the vendor's functions return (`aclError`, `hipError_t`, `CUresult`).
    type Raw: Copy + fmt::Debug;
    /// That C type's name, as the vendor table writes it (`aclError`).
    const C_TYPE: &'static str;
    /// The numbers the C type holds.
    const RANGE: (i64, i64);
    /// The vendor's success value.
    const SUCCESS: Self;
    /// The number as the C function returns it.
    fn raw(self) -> Self::Raw;
    /// Whether this is success.
    fn is_ok(self) -> bool;
}

/// Everything that makes a vendor, for code written once over all of them.
pub trait Vendor: 'static {
    /// The family: its name in ids (`ACL`) and on the command line (`acl`).
    const DIALECT: Dialect;
    /// The table of C entry points.
    type Api: Copy + Send + Sync + fmt::Debug + 'static;
    /// The return-code type.
    type Code: VendorCode;
    /// The rule table, in the reference's order.
    fn rules() -> &'static [&'static Rule];
    /// Loads the real library, `explicit` first.
    ///
    /// # Errors
    /// A [`LoadError`] naming every path tried, or every missing symbol.
    fn load(explicit: Option<&Path>) -> Result<Loaded<Self::Api>, LoadError>;
    /// The vendor as a value ([`VENDORS`] lists every one).
    const DESCRIPTION: Description;
}

/// A vendor as a value, for code that goes over every vendor at run time
/// (a fault list naming any vendor's function, a code named by any vendor).
#[derive(Debug, Clone, Copy)]
pub struct Description {
    /// The family.
    pub dialect: Dialect,
    /// Every entry point of its C table, with its C return type.
    pub functions: &'static [(&'static str, &'static str)],
    /// The C type of its return codes (`aclError`).
    pub code_type: &'static str,
    /// The numbers that type holds, lowest and highest.
    pub code_range: (i64, i64),
    /// The code with the vendor's name `name`, if it has one.
    pub code_named: fn(&str) -> Option<Code>,
    /// The rule table.
    pub rules: fn() -> &'static [&'static Rule],
}

/// Every vendor, in one list: code that goes over the vendors at run time
/// reads them here, so a new vendor is added once (below, with `vendor!`).
pub static VENDORS: &[Description] = &[
    Acl::DESCRIPTION,
    Hip::DESCRIPTION,
    Cuda::DESCRIPTION,
    #[cfg(feature = "example-vendor")]
    Example::DESCRIPTION,
];

/// Declares a vendor's marker type and its [`Vendor`] and [`VendorCode`] impls.
macro_rules! vendor {
    ($(#[$meta:meta])* $name:ident: $dialect:ident, $api:ty, $code:ty, $rules:path) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum $name {}

        impl Vendor for $name {
            const DIALECT: Dialect = Dialect::$dialect;
            type Api = $api;
            type Code = $code;
            fn rules() -> &'static [&'static Rule] {
                use $rules as rules;
                rules::ALL
            }
            fn load(explicit: Option<&Path>) -> Result<Loaded<Self::Api>, LoadError> {
                <$api>::load(explicit)
            }
            const DESCRIPTION: Description = Description {
                dialect: Dialect::$dialect,
                functions: <$api>::FUNCTIONS,
                code_type: <$code as VendorCode>::C_TYPE,
                code_range: <$code as VendorCode>::RANGE,
                code_named: |name| <$code>::from_name(name).map(Code::from),
                rules: Self::rules,
            };
        }
    };
}

/// [`VendorCode`] for a code newtype over `$raw`.
macro_rules! vendor_code {
    ($($code:ty: $raw:ty = $c_type:literal),*) => {$(
        impl VendorCode for $code {
            type Raw = $raw;
            const C_TYPE: &'static str = $c_type;
            const RANGE: (i64, i64) = (<$raw>::MIN as i64, <$raw>::MAX as i64);
            const SUCCESS: Self = Self(0);
            fn raw(self) -> $raw {
                self.0
            }
            fn is_ok(self) -> bool {
                self.is_success()
            }
        }
    )*};
}

vendor_code!(AclError: i32 = "aclError", HipError: i32 = "hipError_t", CuResult: u32 = "CUresult");
#[cfg(feature = "example-vendor")]
vendor_code!(ExResult: i32 = "exResult");

vendor!(
    /// Ascend CANN's runtime (`libascendcl.so`, reference acl.md).
    Acl: Acl, AclApi, AclError, acl::rules
);
vendor!(
    /// AMD HIP (`libamdhip64.so`, reference hip.md).
    Hip: Hip, HipApi, HipError, hip::rules
);
vendor!(
    /// The CUDA driver API (`libcuda.so.1`, reference cuda.md).
    Cuda: Cuda, CudaApi, CuResult, cuda::rules
);
#[cfg(feature = "example-vendor")]
vendor!(
    /// The example vendor (`libexample.so`, docs/adding-a-vendor.md): made up, to prove the seam.
    Example: Example, ExampleApi, ExResult, example::rules
);

impl Code {
    /// The code with the vendor's name `name` (`ACL_ERROR_RT_PARAM_INVALID`,
    /// `hipErrorInvalidValue`, `CUDA_ERROR_INVALID_VALUE`), of any vendor.
    pub fn from_name(name: &str) -> Option<Self> {
        VENDORS.iter().find_map(|v| (v.code_named)(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_converts_both_ways() {
        let c = Code::from(HipError::INVALID_VALUE);
        assert_eq!(HipError::try_from(c), Ok(HipError::INVALID_VALUE));
        assert_eq!(AclError::try_from(c), Err(c));
        assert_eq!(CuResult::try_from(c), Err(c), "the same number of another vendor is another code");
        assert_ne!(c, Code::from(CuResult::INVALID_VALUE));
        assert_eq!(c.raw(), 1);
        assert_eq!(c.vendor(), "HIP");
        assert_eq!(format!("{c:?}"), "Hip(HipError(1 hipErrorInvalidValue))");
        assert_eq!(Code::from_name("CUDA_ERROR_INVALID_VALUE"), Some(Code::Cuda(CuResult::INVALID_VALUE)));
        assert_eq!(Code::Acl(AclError(42)).to_string(), "42 (unknown code)");
    }

    #[test]
    fn expect_display_lists_codes_with_names() {
        use crate::acl;
        use crate::rule::Expect;
        let e = Expect::Codes(&[acl!(RT_CONTEXT_NULL), acl!(RT_FEATURE_NOT_SUPPORT)]);
        assert_eq!(e.to_string(), "107002 ACL_ERROR_RT_CONTEXT_NULL / 207000 ACL_ERROR_RT_FEATURE_NOT_SUPPORT");
        assert!(e.has_error_code());
        assert!(!Expect::Codes(&[acl!(SUCCESS)]).has_error_code());
    }

    #[test]
    fn every_vendor_is_listed_once() {
        let dialects: Vec<Dialect> = VENDORS.iter().map(|v| v.dialect).collect();
        assert_eq!(dialects[..3], [Dialect::Acl, Dialect::Hip, Dialect::Cuda]);
        #[cfg(feature = "example-vendor")]
        assert_eq!(dialects[3..], [Dialect::Example]);
        for v in VENDORS {
            assert!(v.functions.iter().any(|(_, ret)| *ret == v.code_type), "{:?}", v.dialect);
            assert!((v.rules)().iter().all(|r| r.dialect == v.dialect), "{:?}", v.dialect);
        }
        assert_eq!(Cuda::DESCRIPTION.code_range, (0, i64::from(u32::MAX)));
    }
}
