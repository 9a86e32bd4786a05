//! The example vendor (`libexample.so`): a made-up C API of three functions
//! that exists only to prove the vendor seam, as wgpu's noop backend does.
//! Its spec is `docs/adding-a-vendor.md` ("The example vendor"); no real
//! library implements it. Compiled only with the `example-vendor` feature.
//!
//! ```
//! use vmmkit_sys::example::{ExResult, rules};
//! assert_eq!(rules::MEM_001.id.as_str(), "EX-MEM-001");
//! assert_eq!(ExResult::INVALID_VALUE.to_string(), "1 EX_ERROR_INVALID_VALUE");
//! ```

mod api;
mod error;
pub mod rules;
mod types;

pub use api::{ExampleApi, LIBRARY};
pub use error::ExResult;
pub use types::*;
