//! The shape shared by every vendor's function table.

/// Declares a table of C entry points: one `unsafe extern "C" fn` field per
/// function, named in the vendor's spelling.
///
/// It is invoked through a vendor's list macro (`acl_functions!`), which
/// holds every function once with named parameters; the emulator's shims
/// expand the same list into their `#[no_mangle]` exports.
///
/// A field may name a different symbol (`cuMemAlloc = "cuMemAlloc_v2"`), for
/// the versioned entry points of CUDA. Fields in the `optional` section are
/// `Option`s: their absence does not fail a load (functions that only newer
/// releases of a library have).
#[macro_export]
#[doc(hidden)]
macro_rules! api_table {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        required {
            $( $(#[$rm:meta])* $rfield:ident $(= $rsym:literal)? : fn( $($ran:ident : $rarg:ty),* $(,)? ) $(-> $rret:ty)? ; )*
        }
        optional {
            $( $(#[$om:meta])* $ofield:ident $(= $osym:literal)? : fn( $($oan:ident : $oarg:ty),* $(,)? ) $(-> $oret:ty)? ; )*
        }
    ) => {
        $(#[$meta])*
        #[allow(non_snake_case)]
        #[derive(Clone, Copy)]
        pub struct $name {
            $( $(#[$rm])* pub $rfield: unsafe extern "C" fn($($rarg),*) $(-> $rret)?, )*
            $( $(#[$om])* pub $ofield: Option<unsafe extern "C" fn($($oarg),*) $(-> $oret)?>, )*
        }

        #[allow(non_snake_case)]
        impl $name {
            /// Symbols a library must export for a table to load.
            pub const REQUIRED: &'static [&'static str] = &[$($crate::api_table!(@sym $rfield $($rsym)?)),*];
            /// Symbols that are filled when present.
            pub const OPTIONAL: &'static [&'static str] = &[$($crate::api_table!(@sym $ofield $($osym)?)),*];
            /// Every function, required then optional, by field name (the
            /// name programs write: `cuMemAlloc`, not its symbol
            /// `cuMemAlloc_v2`), with its return type as the list writes it.
            pub const FUNCTIONS: &'static [(&'static str, &'static str)] = &[
                $((stringify!($rfield), stringify!($($rret)?)),)*
                $((stringify!($ofield), stringify!($($oret)?)),)*
            ];

            /// Resolves every entry point from `lib`.
            ///
            /// # Errors
            /// The names of all required symbols that `lib` lacks.
            ///
            /// # Safety
            /// `lib` must be the vendor's library (or one exporting the same C
            /// signatures under these names), and must stay loaded for as long
            /// as the table is used.
            #[allow(unsafe_code)] // symbol lookup: the boundary with the vendor library
            pub unsafe fn from_library(lib: &::libloading::Library) -> Result<Self, Vec<&'static str>> {
                let mut missing = Vec::new();
                $(
                    let sym = $crate::api_table!(@sym $rfield $($rsym)?);
                    // SAFETY: the caller promises the library exports this symbol with this signature.
                    let $rfield = match unsafe { lib.get::<unsafe extern "C" fn($($rarg),*) $(-> $rret)?>(sym.as_bytes()) } {
                        Ok(f) => Some(*f),
                        Err(_) => { missing.push(sym); None }
                    };
                )*
                $(
                    let sym = $crate::api_table!(@sym $ofield $($osym)?);
                    // SAFETY: as above.
                    let $ofield = unsafe { lib.get::<unsafe extern "C" fn($($oarg),*) $(-> $oret)?>(sym.as_bytes()) }
                        .ok()
                        .map(|f| *f);
                )*
                if !missing.is_empty() {
                    return Err(missing);
                }
                Ok(Self {
                    $( $rfield: $rfield.expect("checked above"), )*
                    $( $ofield, )*
                })
            }

            /// Optional symbols that this table lacks.
            pub fn missing_optional(&self) -> Vec<&'static str> {
                // A list without optional functions pushes nothing.
                #[allow(unused_mut)]
                let mut v = Vec::new();
                $( if self.$ofield.is_none() { v.push($crate::api_table!(@sym $ofield $($osym)?)); } )*
                v
            }
        }

        impl ::core::fmt::Debug for $name {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("missing_optional", &self.missing_optional())
                    .finish_non_exhaustive()
            }
        }
    };
    (@sym $field:ident $sym:literal) => { $sym };
    (@sym $field:ident) => { stringify!($field) };
}
