//! The CUDA driver API (`libcuda.so.1`), as the reference
//! `shared/reference/cuda.md` describes it (CUDA 12.6 headers).
//!
//! Names keep the C spelling so the header can be grepped; table fields drop
//! the `_v2` suffix of the symbol they resolve.

mod api;
mod error;
pub mod rules;
mod types;

pub use api::{CudaApi, LIBRARY};
pub use error::CuResult;
pub use types::*;
