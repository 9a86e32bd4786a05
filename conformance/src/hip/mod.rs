//! What HIP checks are written against: the table's calls ([`Hip`]) and the
//! check context ([`Ctx`]).

mod ctx;
mod table;

pub use ctx::{Ctx, Va, posix_prop, probe, prop, rw_desc, setup};
pub use table::Hip;
