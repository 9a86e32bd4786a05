//! What CUDA checks are written against: the table's calls ([`Cuda`]) and
//! the check context ([`Ctx`]).

mod ctx;
pub mod peer;
// The checks' calls into the vendor table: the C boundary.
#[allow(unsafe_code)]
mod table;

pub use ctx::{Ctx, desc, posix_prop, prop, setup};
pub use table::Cuda;
