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
}

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
        }
    };
}

/// [`VendorCode`] for a code newtype over `$raw`.
macro_rules! vendor_code {
    ($($code:ty: $raw:ty),*) => {$(
        impl VendorCode for $code {
            type Raw = $raw;
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

vendor_code!(AclError: i32, HipError: i32, CuResult: u32);
#[cfg(feature = "example-vendor")]
vendor_code!(ExResult: i32);

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
