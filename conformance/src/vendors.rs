//! The one list of vendors the suite runs, and what follows from it: the
//! backends the command line names (a closed set, generated from the list),
//! the order in which `auto` tries the real libraries and the doctor prints
//! them, and each vendor's emulator table ([`Backed`]). A vendor is added
//! here, once; the CLI, `auto`, the doctor and the rules test follow.
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

use vmmkit_sys::rule::Dialect;
use vmmkit_sys::vendor::{self, Vendor};

/// Passes every vendor to `$cb` after `$pre`, in order: its backend (the
/// variant of [`BackendKind`], with the command line's name), the
/// [`Vendor`] type, and the emulator's table of it.
macro_rules! vendor_list {
    ($cb:path { $($pre:tt)* }) => {
        $crate::vendors::with_example! { $cb {
            $($pre)*
            /// A real `libascendcl.so`.
            Ascend = "ascend": Acl, vmmkit_emulator::acl::api;
            /// A real `libamdhip64.so` (HIP rules).
            Hip = "hip": Hip, vmmkit_emulator::hip::api;
            /// A real `libcuda.so.1` (CUDA rules).
            Cuda = "cuda": Cuda, vmmkit_emulator::cuda::api;
        } }
    };
}
pub(crate) use vendor_list;

/// Passes the list to `$cb`, with the example vendor (docs/adding-a-vendor.md)
/// last when the `example-vendor` feature is on.
#[cfg(feature = "example-vendor")]
macro_rules! with_example {
    ($cb:path { $($list:tt)* }) => {
        $cb! {
            $($list)*
            /// The example vendor's `libexample.so` (made up: no library exists; its rules run on the emulator).
            Example = "example": Example, vmmkit_emulator::example::api;
        }
    };
}
/// Passes the list to `$cb` as it is (the `example-vendor` feature is off).
#[cfg(not(feature = "example-vendor"))]
macro_rules! with_example {
    ($cb:path { $($list:tt)* }) => {
        $cb! { $($list)* }
    };
}
pub(crate) use with_example;

/// What the suite adds to a vendor's description: the backend that runs its
/// rules on the real library, and the emulator's table.
pub trait Backed: Vendor {
    /// The backend of the vendor's real library.
    const BACKEND: BackendKind;

    /// The emulator's table.
    fn emulator() -> Self::Api;

    /// The table of `backend`: the emulator's, or the real library's
    /// (`library`, else the default search).
    ///
    /// # Errors
    /// Why there is none: a load error, or a backend of another vendor.
    fn api(backend: BackendKind, library: Option<&Path>) -> Result<Self::Api, String> {
        match backend {
            BackendKind::Emulator => Ok(Self::emulator()),
            b if b == Self::BACKEND => Self::load(library).map(|l| l.api).map_err(|e| e.to_string()),
            b => Err(format!("backend {} has no {} table", b.name(), Self::DIALECT.label())),
        }
    }
}

/// The backend enum and the [`Backed`] impls, from [`vendor_list!`].
macro_rules! backends {
    ($( $(#[$doc:meta])* $kind:ident = $name:literal: $vendor:ident, $emulator:path; )*) => {
        /// A backend as named on the command line.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum)]
        pub enum BackendKind {
            /// The in-process emulator (every dialect it has).
            Emulator,
            $( $(#[$doc])* $kind, )*
            /// Each vendor's real library in turn, the first that loads and has a device; else the emulator.
            Auto,
        }

        impl BackendKind {
            /// The vendors' backends, in the order `auto` tries them.
            pub const VENDORS: &'static [Self] = &[$(Self::$kind),*];
            /// Every backend that runs rules (all but `auto`), in report order.
            pub const ALL: &'static [Self] = &[Self::Emulator, $(Self::$kind),*];

            /// The name as on the command line.
            pub fn name(self) -> &'static str {
                match self {
                    Self::Emulator => "emulator",
                    $( Self::$kind => $name, )*
                    Self::Auto => "auto",
                }
            }

            /// The dialects whose rules this backend runs.
            pub fn dialects(self) -> &'static [Dialect] {
                match self {
                    Self::Emulator => &[$(<vendor::$vendor as Vendor>::DIALECT),*],
                    $( Self::$kind => &[<vendor::$vendor as Vendor>::DIALECT], )*
                    Self::Auto => &[],
                }
            }
        }

        $(
            impl Backed for vendor::$vendor {
                const BACKEND: BackendKind = BackendKind::$kind;
                fn emulator() -> Self::Api {
                    $emulator()
                }
            }
        )*
    };
}

vendor_list!(backends {});

impl BackendKind {
    /// Whether this is one vendor's real library.
    pub fn is_vendor(self) -> bool {
        Self::VENDORS.contains(&self)
    }
}

/// Where a check runs: the backend and, for a real one, its library.
#[derive(Debug, Clone)]
pub struct Env {
    /// The backend.
    pub backend: BackendKind,
    /// The vendor library, for a real backend.
    pub library: Option<PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_vendor_is_a_backend_named_on_the_command_line() {
        for &kind in BackendKind::VENDORS {
            assert!(kind.is_vendor());
            assert_eq!(<BackendKind as clap::ValueEnum>::from_str(kind.name(), false), Ok(kind));
            assert_eq!(kind.dialects().len(), 1, "{}", kind.name());
            assert!(BackendKind::Emulator.dialects().contains(&kind.dialects()[0]));
        }
        assert_eq!(BackendKind::ALL.len(), BackendKind::VENDORS.len() + 1);
        assert_eq!(BackendKind::Emulator.dialects().len(), BackendKind::VENDORS.len());
        assert!(!BackendKind::ALL.contains(&BackendKind::Auto));
    }

    #[test]
    fn a_backend_has_only_its_own_vendors_table() {
        assert!(<vendor::Hip as Backed>::api(BackendKind::Emulator, None).is_ok());
        let err = <vendor::Hip as Backed>::api(BackendKind::Cuda, None).unwrap_err();
        assert_eq!(err, "backend cuda has no HIP table");
    }
}
