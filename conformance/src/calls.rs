//! The one generator of the checks' call tables: a struct per vendor over
//! its `vmmkit-sys` function table, with one method per C function under
//! the function's C name (`aclrtMapMem`, `hipMemMap`, `cuMemMap`).
//!
//! Each vendor's `table.rs` expands its `vmmkit-sys` function list
//! (`acl_functions!`, `hip_functions!`, `cuda_functions!`) through
//! [`calls!`](crate::calls::calls), so every entry point the table holds is
//! callable, with the vendor's own signature, and nothing is written by
//! hand. What a method returns is the vendor's choice, stated once by
//! [`Returns`]: HIP and CUDA give the C result as is (an absent optional
//! function is `None`); ACL gives its codes as [`AclError`](vmmkit_sys::acl::AclError)
//! (an absent optional function is a not-supported failure).
//!
//! The methods take raw pointers because the suite passes NULL, garbage and
//! foreign addresses on purpose: the rules say how the library must reject
//! them. Callers pass NULL, an address, handle or context the library
//! handed out (never dereferenced by host code), a value that is not one
//! (which the rules say is looked up, not dereferenced), or a pointer to a
//! live local of the C type. The methods are `pub(crate)` for that reason:
//! the contract is the suite's, not a general one.

use crate::outcome::Failure;

/// What every generated call table is: a wrapper of the vendor's C table.
pub trait Table: Copy + std::fmt::Debug {
    /// The vendor's C table.
    type Api;
    /// Wraps a table.
    fn new(api: Self::Api) -> Self;
    /// The optional symbols the table lacks.
    fn missing_optional(&self) -> Vec<&'static str>;
}

/// How a vendor's call table gives back a C function's result `R`.
pub trait Returns<R> {
    /// What a required function's method returns.
    type Out;
    /// What an optional function's method returns.
    type Optional;
    /// A required function's result.
    fn out(r: R) -> Self::Out;
    /// An optional function's result; `None` when the table lacks `symbol`.
    fn optional(symbol: &'static str, r: Option<R>) -> Self::Optional;
}

/// [`Returns`] for results given as the C function gives them, an absent
/// optional function as `None` (HIP, CUDA).
macro_rules! returns_as_is {
    ($table:ty) => {
        impl<R> $crate::calls::Returns<R> for $table {
            type Out = R;
            type Optional = Option<R>;
            fn out(r: R) -> R {
                r
            }
            fn optional(_: &'static str, r: Option<R>) -> Option<R> {
                r
            }
        }
    };
}
pub(crate) use returns_as_is;

/// The not-supported failure of an optional function the table lacks.
pub fn lacks(symbol: &'static str) -> Failure {
    Failure::NotSupported(format!("the backend lacks {symbol}"))
}

/// Declares `$name`, a call table over `$api`, from a `vmmkit-sys` function
/// list: `vmmkit_sys::hip_functions!(crate::calls::calls { Hip(HipApi); })`.
/// The expansion site must allow unsafe code (it is the C boundary) and
/// have the list's types in scope.
macro_rules! calls {
    (
        $(#[$doc:meta])*
        $name:ident($api:ty);
        required { $( $(#[$rm:meta])* $r:ident $(= $rs:literal)? : fn($($ra:ident : $rt:ty),*) -> $rr:ty ; )* }
        optional { $( $(#[$om:meta])* $o:ident $(= $os:literal)? : fn($($oa:ident : $ot:ty),*) -> $or:ty ; )* }
    ) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy)]
        pub struct $name {
            api: $api,
        }

        impl $crate::calls::Table for $name {
            type Api = $api;
            fn new(api: $api) -> Self {
                Self { api }
            }
            fn missing_optional(&self) -> Vec<&'static str> {
                self.api.missing_optional()
            }
        }

        // The vendor's signatures decide the arity (`__hipRegisterFunction`
        // has 10); not every function has a check.
        #[allow(dead_code, non_snake_case, clippy::too_many_arguments)]
        impl $name {
            $(
                #[doc = concat!("`", stringify!($r), "`.")]
                pub(crate) fn $r(&self, $($ra: $rt),*) -> <Self as $crate::calls::Returns<$rr>>::Out {
                    // SAFETY: the table holds the backend's implementation of
                    // this C function with this signature (loaded by vmmkit-sys
                    // or filled by the emulator); the arguments follow the
                    // contract of `crate::calls`.
                    <Self as $crate::calls::Returns<$rr>>::out(unsafe { (self.api.$r)($($ra),*) })
                }
            )*
            $(
                #[doc = concat!("`", stringify!($o), "`, if the table has it.")]
                pub(crate) fn $o(&self, $($oa: $ot),*) -> <Self as $crate::calls::Returns<$or>>::Optional {
                    // SAFETY: as for the required functions.
                    let r = self.api.$o.map(|f| unsafe { f($($oa),*) });
                    <Self as $crate::calls::Returns<$or>>::optional(stringify!($o), r)
                }
            )*
        }
    };
}
pub(crate) use calls;
