//! What every vendor's return code shares, and the one list of vendors.
//!
//! A code is a transparent newtype over the C integer, never a Rust `enum`: a
//! real library may return values its headers did not list, and such a value
//! must stay a value (as rustix's `Errno`), not undefined behaviour.
//!
//! This module sits below the vendors: it names them only in [`Dialect`] and
//! imports none of their types. A vendor's code type (made by `codes!`)
//! describes itself with a [`CodeFamily`], so that a [`Code`] of any vendor
//! is one vendor-neutral value, and the rule records above (`crate::rule`)
//! depend on no vendor module.

use std::fmt;
use std::hash::{Hash, Hasher};

/// The vendor API family a rule belongs to. A backend runs the rules of the
/// family it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// Ascend CANN `aclrt*` (reference acl.md).
    Acl,
    /// AMD HIP (reference hip.md).
    Hip,
    /// CUDA driver API (reference cuda.md).
    Cuda,
    /// The example vendor (docs/adding-a-vendor.md).
    #[cfg(feature = "example-vendor")]
    Example,
    /// The conformance suite's own synthetic rules, used to test its runner
    /// and reports without any backend.
    Selftest,
}

impl Dialect {
    /// Lower-case name, as in `--backend`.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Acl => "acl",
            Self::Hip => "hip",
            Self::Cuda => "cuda",
            #[cfg(feature = "example-vendor")]
            Self::Example => "example",
            Self::Selftest => "selftest",
        }
    }

    /// Upper-case name, as in the rule ids.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Acl => "ACL",
            Self::Hip => "HIP",
            Self::Cuda => "CUDA",
            #[cfg(feature = "example-vendor")]
            Self::Example => "EX",
            Self::Selftest => "SELF",
        }
    }
}

/// How a vendor's code type describes itself to [`Code`]: which family it is,
/// its Rust name, and its table of names. Made by `codes!`.
#[derive(Debug)]
pub struct CodeFamily {
    /// The vendor.
    pub dialect: Dialect,
    /// The Rust type (`AclError`), as `Debug` shows it.
    pub type_name: &'static str,
    /// The vendor's name for a number, if it is a known one.
    pub name: fn(i64) -> Option<&'static str>,
}

/// A vendor return code, whichever vendor's table the call went to: the
/// number the C function returned and the vendor it belongs to.
///
/// ```
/// use vmmkit_sys::rule::Code;
/// use vmmkit_sys::acl::AclError;
/// let c = Code::Acl(AclError::RT_INVALID_HANDLE);
/// assert_eq!(c, AclError::RT_INVALID_HANDLE);
/// assert_eq!(c.to_string(), "107017 ACL_ERROR_RT_INVALID_HANDLE");
/// ```
#[derive(Clone, Copy)]
pub struct Code {
    family: &'static CodeFamily,
    raw: i64,
}

impl Code {
    /// The code `raw` of the vendor `family` describes (made by each code
    /// type's `code()`, `From` and the `acl!`, `hip!`, `cuda!` macros).
    pub const fn new(family: &'static CodeFamily, raw: i64) -> Self {
        Self { family, raw }
    }

    /// The family whose code this is.
    pub fn dialect(self) -> Dialect {
        self.family.dialect
    }

    /// The vendor whose code this is: `"ACL"`, `"HIP"` or `"CUDA"`.
    pub fn vendor(self) -> &'static str {
        self.dialect().label()
    }

    /// Whether this is the vendor's success value (0 for every vendor).
    pub fn is_success(self) -> bool {
        self.raw == 0
    }

    /// The vendor's name for the code (`ACL_ERROR_RT_PARAM_INVALID`), if it is a known one.
    pub fn name(self) -> Option<&'static str> {
        (self.family.name)(self.raw)
    }

    /// The number the C function returned.
    pub fn raw(self) -> i64 {
        self.raw
    }
}

impl PartialEq for Code {
    fn eq(&self, other: &Self) -> bool {
        self.dialect() == other.dialect() && self.raw == other.raw
    }
}

impl Eq for Code {}

impl Hash for Code {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dialect().hash(state);
        self.raw.hash(state);
    }
}

impl fmt::Display for Code {
    /// The vendor code's own form, e.g. `107000 ACL_ERROR_RT_PARAM_INVALID`,
    /// or `123 (unknown code)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => write!(f, "{} {}", self.raw, n),
            None => write!(f, "{} (unknown code)", self.raw),
        }
    }
}

impl fmt::Debug for Code {
    /// As the vendor's variant: `Acl(AclError(107017 ACL_ERROR_RT_INVALID_HANDLE))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}({}({self}))", self.dialect(), self.family.type_name)
    }
}

/// Declares a vendor return-code newtype with named constants, the vendor's
/// spelling of each name, and a short description; with its [`CodeFamily`]
/// and the conversions to and from [`Code`].
///
/// ```ignore
/// codes! {
///     /// doc
///     pub struct AclError(i32): Acl;
///     SUCCESS = 0 => "ACL_SUCCESS", "success";
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! codes {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($repr:ty): $dialect:ident;
        $( $konst:ident = $val:expr => $cname:literal, $desc:literal; )*
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(pub $repr);

        impl $name {
            $(
                #[doc = concat!("`", $cname, "`: ", $desc, ".")]
                pub const $konst: Self = Self($val);
            )*

            /// Every named code, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$konst),*];

            const TABLE: &'static [($repr, &'static str, &'static str)] = &[$(($val, $cname, $desc)),*];

            /// The vendor's name for this code (e.g. `ACL_ERROR_RT_PARAM_INVALID`), if it is a known one.
            pub fn name(self) -> Option<&'static str> {
                Self::TABLE.iter().find(|e| e.0 == self.0).map(|e| e.1)
            }

            /// A short description of this code, if it is a known one.
            pub fn description(self) -> Option<&'static str> {
                Self::TABLE.iter().find(|e| e.0 == self.0).map(|e| e.2)
            }

            /// The code with the vendor's name `name`, if there is one.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::TABLE.iter().find(|e| e.1 == name).map(|e| Self(e.0))
            }

            /// Whether this is the vendor's success value (0).
            pub fn is_success(self) -> bool {
                self.0 == 0
            }

            /// `Ok(())` for success, `Err(self)` otherwise, so callers can use `?`.
            pub fn result(self) -> Result<(), Self> {
                if self.is_success() { Ok(()) } else { Err(self) }
            }
        }

        impl ::core::fmt::Display for $name {
            /// `107000 ACL_ERROR_RT_PARAM_INVALID`, or `123 (unknown code)`.
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self.name() {
                    Some(n) => write!(f, "{} {}", self.0, n),
                    None => write!(f, "{} (unknown code)", self.0),
                }
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                write!(f, "{}({})", stringify!($name), self)
            }
        }

        impl ::std::error::Error for $name {}

        impl From<$repr> for $name {
            fn from(v: $repr) -> Self {
                Self(v)
            }
        }

        impl $name {
            /// How [`Code`](crate::rule::Code) names and shows this type's codes.
            pub const FAMILY: $crate::code::CodeFamily = $crate::code::CodeFamily {
                dialect: $crate::code::Dialect::$dialect,
                type_name: stringify!($name),
                name: Self::name_of,
            };

            fn name_of(raw: i64) -> Option<&'static str> {
                <$repr>::try_from(raw).ok().and_then(|r| Self(r).name())
            }

            /// The vendor-neutral [`Code`](crate::rule::Code) of this code (usable in `const`).
            pub const fn code(self) -> $crate::code::Code {
                $crate::code::Code::new(&Self::FAMILY, self.0 as i64)
            }
        }

        impl $crate::code::Code {
            #[doc = concat!("The [`Code`](crate::rule::Code) of a `", stringify!($name), "`, written as the variant it was.")]
            #[allow(non_snake_case, reason = "spelt as the vendor's variant of the former closed enum")]
            pub const fn $dialect(c: $name) -> Self {
                c.code()
            }
        }

        impl From<$name> for $crate::code::Code {
            fn from(c: $name) -> Self {
                c.code()
            }
        }

        impl TryFrom<$crate::code::Code> for $name {
            type Error = $crate::code::Code;
            fn try_from(c: $crate::code::Code) -> Result<Self, $crate::code::Code> {
                match <$repr>::try_from(c.raw()) {
                    Ok(raw) if c.dialect() == $crate::code::Dialect::$dialect => Ok(Self(raw)),
                    _ => Err(c),
                }
            }
        }

        impl PartialEq<$name> for $crate::code::Code {
            fn eq(&self, other: &$name) -> bool {
                *self == other.code()
            }
        }
    };
}
