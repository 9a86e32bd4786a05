//! The vendor C ABI that vmmkit speaks: ACL (Ascend CANN), HIP and the CUDA
//! driver API.
//!
//! For each vendor this crate holds the `#[repr(C)]` types and constants with
//! the values of the reference documents, the return codes as named
//! newtypes, and a table of C function pointers (`AclApi`, `HipApi`,
//! `CudaApi`) that is filled either from the real library (with
//! [`libloading`]) or by the emulator. Names keep the C spelling.
//!
//! ```
//! use vmmkit_sys::acl::{AclApi, AclError};
//!
//! // On a machine without CANN the load fails with every path it tried.
//! if let Err(e) = AclApi::load(Some("/nonexistent/libascendcl.so".as_ref())) {
//!     assert!(e.to_string().contains("/nonexistent/libascendcl.so"));
//! }
//! assert_eq!(AclError::RT_INVALID_HANDLE.name(), Some("ACL_ERROR_RT_INVALID_HANDLE"));
//! ```

#![deny(unsafe_code)]

mod code;
// dlopen and symbol lookup: the boundary with the vendor libraries.
#[allow(unsafe_code)]
mod loader;
mod opaque;
mod table;

pub mod acl;
pub mod cuda;
#[cfg(feature = "example-vendor")]
pub mod example;
pub mod hip;
pub mod rule;
pub mod vendor;

pub use loader::{Attempt, LibrarySpec, LoadError, Loaded, Opened, SHIM_MARKER, SHIM_SKIPPED};
pub use vendor::{Vendor, VendorCode};
