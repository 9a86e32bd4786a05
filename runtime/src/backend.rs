//! Which vendor library the runtime talks to: the emulator, or a real one.
//!
//! `VMMKIT_BACKEND` forces a backend (`emulator` or `emulator-acl`,
//! `emulator-hip`, `emulator-cuda`: the in-process emulator's dialects;
//! `ascend`, `hip`, `cuda`: a library; `auto` or unset selects). Selection
//! takes the first real library, in the order Ascend, HIP, CUDA, that loads
//! **and** reports at least one device, and otherwise the emulator's ACL
//! dialect. The default library search passes over
//! vmmkit's own drop-in libraries (vmmkit-sys `SHIM_MARKER`), so a machine
//! without the vendor's library selects the emulator instead of testing it
//! through its shim; name a shim's path explicitly (`Backend::Ascend(Some(path))`)
//! to use it.
#![forbid(unsafe_code)]

use std::fmt;
use std::path::{Path, PathBuf};

use crate::driver::Vendor;

/// Declares [`Backend`] from the crate's list of vendors: per vendor an
/// emulated variant and a library variant.
macro_rules! backend_enum {
    ([] $($v:ident $lower:ident $soname:literal:
        $emu:ident [$emu_name:literal $(, $alias:literal)*], $lib:ident $lib_name:literal $(, drop_in $pkg:literal)?;)*) => {
        /// A backend: where the vendor table comes from.
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        pub enum Backend {
            $(
                #[doc = concat!("The in-process emulator's ", stringify!($v), " dialect (`vmmkit_emulator::", stringify!($lower), "::api()`).")]
                $emu,
            )*
            $(
                #[doc = concat!("`", $soname, "`: this file, or vmmkit-sys's default search (its `VMMKIT_*_LIBRARY` variable, the loader's path, the vendor's install prefix).")]
                $lib(Option<PathBuf>),
            )*
        }

        impl Backend {
            /// The name used by `VMMKIT_BACKEND`: `emulator` (the ACL dialect),
            /// `emulator-hip`, `emulator-cuda`, `ascend`, `hip` or `cuda`.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$emu => $emu_name, Self::$lib(_) => $lib_name,)*
                }
            }

            /// The vendor whose C API the backend's table speaks.
            pub fn vendor(&self) -> Vendor {
                match self {
                    $(Self::$emu | Self::$lib(_) => Vendor::$v,)*
                }
            }

            /// The library file given for a real backend (`None` for the emulator).
            pub fn library(&self) -> Option<&Path> {
                match self {
                    $(Self::$emu => None, Self::$lib(p) => p.as_deref(),)*
                }
            }

            /// The in-process emulator's dialect of `vendor`.
            pub fn emulator(vendor: Vendor) -> Self {
                match vendor {
                    $(Vendor::$v => Self::$emu,)*
                }
            }

            /// The library backend of `vendor`: `library`, or the default search.
            pub fn real(vendor: Vendor, library: Option<PathBuf>) -> Self {
                match vendor {
                    $(Vendor::$v => Self::$lib(library),)*
                }
            }

            /// The backend named `name` (as in `VMMKIT_BACKEND`), with the default library search.
            pub fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($emu_name $(| $alias)* => Some(Self::$emu), $lib_name => Some(Self::$lib(None)),)*
                    _ => None,
                }
            }

            /// Whether the table is the in-process emulator's (of any dialect).
            pub fn is_emulator(&self) -> bool {
                matches!(self, $(Self::$emu)|*)
            }

            /// The names `VMMKIT_BACKEND` takes, in words.
            const EXPECTED: &str = concat!(
                $($emu_name, $(" (= ", $alias, ")",)* ", ",)*
                $($lib_name, ", ",)*
                "or auto (the default)"
            );

            /// The emulated dialects, in the order of [`Vendor::ALL`].
            pub const EMULATED: [Self; Vendor::ALL.len()] = [$(Self::$emu),*];

            /// The real backends, in the order selection tries them.
            pub const REAL: [Self; Vendor::ALL.len()] = [$(Self::$lib(None)),*];
        }
    };
}
vendors!(backend_enum);

/// `VMMKIT_BACKEND` holds a value that names no backend.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{var}={value:?}: not a backend; expected one of {expected}", expected = Backend::EXPECTED)]
pub struct SelectError {
    /// The variable (`VMMKIT_BACKEND`).
    pub var: &'static str,
    /// Its value.
    pub value: String,
}

impl fmt::Display for Backend {
    /// The name, with the library path when one was given: `ascend:/opt/x/libascendcl.so`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        if let Some(p) = self.library() {
            write!(f, ":{}", p.display())?;
        }
        Ok(())
    }
}

impl Backend {
    /// The environment variable that forces a backend.
    pub const ENV: &'static str = "VMMKIT_BACKEND";

    /// The real backends whose tables drive the safe API (all of them:
    /// Ascend, HIP, CUDA); what [`crate::Runtime::auto`] chooses among.
    pub const DRIVEN: [Self; Vendor::ALL.len()] = Self::REAL;
}
