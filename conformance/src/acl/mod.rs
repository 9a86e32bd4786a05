//! What ACL checks are written against: the table's calls ([`Acl`]) and the
//! check context ([`Ctx`]), and the ACL peer process ([`serve`]).

mod ctx;
pub mod serve;
mod serve_cells;
// The checks' calls into the vendor table: the C boundary.
#[allow(unsafe_code)]
mod table;

pub use ctx::Ctx;
pub use ctx::{GIB, Handle, MIB, Mapped, TWO_MIB, Va, prop, prop_with, rw_desc, setup};
pub use table::Acl;
