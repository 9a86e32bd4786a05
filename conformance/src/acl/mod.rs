//! What ACL checks are written against: the table's calls ([`Acl`]) and the
//! check context ([`Ctx`]).

mod ctx;
// The checks' calls into the vendor table: the C boundary.
#[allow(unsafe_code)]
mod table;

pub use ctx::Ctx;
pub use ctx::{GIB, Handle, MIB, Mapped, TWO_MIB, Va, prop, prop_with, rw_desc, setup};
pub use table::Acl;
