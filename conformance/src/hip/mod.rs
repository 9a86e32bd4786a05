//! What HIP checks are written against: the table's calls ([`Hip`]) and the
//! check context ([`Ctx`]), and the HIP peer process ([`peer`]).

mod ctx;
pub mod peer;
// The checks' calls into the vendor table: the C boundary.
#[allow(unsafe_code)]
mod table;

pub use ctx::{Ctx, Va, posix_prop, prop, rw_desc, setup};
pub use table::Hip;
