//! What the example vendor's checks are written against (feature
//! `example-vendor`): the table's calls ([`Example`]) and the check context
//! ([`Ctx`]). The vendor is made up (`docs/adding-a-vendor.md`); its rules
//! run on the emulator only.

mod ctx;
// The checks' calls into the vendor table: the C boundary.
#[allow(unsafe_code)]
mod table;

pub use ctx::{Ctx, setup};
pub use table::Example;
