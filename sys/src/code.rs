//! The shape shared by every vendor's return-code type.
//!
//! A code is a transparent newtype over the C integer, never a Rust `enum`: a
//! real library may return values its headers did not list, and such a value
//! must stay a value (as rustix's `Errno`), not undefined behaviour.

/// Declares a vendor return-code newtype with named constants, the vendor's
/// spelling of each name, and a short description.
///
/// ```ignore
/// codes! {
///     /// doc
///     pub struct AclError(i32);
///     SUCCESS = 0 => "ACL_SUCCESS", "success";
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! codes {
    (
        $(#[$meta:meta])*
        pub struct $name:ident($repr:ty);
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
    };
}
