//! State a dialect keeps for the whole process, as its vendor's runtime
//! does (ACL's initialisation, device references and streams, HIP's import
//! types, CUDA's primary contexts). The emulator holds it, one value per
//! type, so that no dialect needs a global of its own; the core does not
//! know the types, each dialect asks for its own.

use std::any::Any;
use std::sync::OnceLock;

use super::Emulator;

/// How many state types one emulator holds: one per dialect, and room.
const SLOTS: usize = 4;

/// The dialects' states, each made at first use.
#[derive(Debug, Default)]
pub(super) struct DialectStates([OnceLock<Box<dyn Any + Send + Sync>>; SLOTS]);

impl Emulator {
    /// This process's state of type `S`, made with `S::default()` the first
    /// time it is asked for. Takes no lock once made.
    ///
    /// # Panics
    /// When more than `SLOTS` types are asked for, a mistake of the emulator
    /// itself that any test of the dialects shows.
    pub(crate) fn dialect_state<S: Any + Default + Send + Sync>(&self) -> &S {
        for slot in &self.dialects.0 {
            // A slot holds the first type asked for while it was empty; a
            // racing thread that filled it with another type moves on.
            if let Some(s) = slot.get_or_init(|| Box::new(S::default())).downcast_ref::<S>() {
                return s;
            }
        }
        panic!("more than {SLOTS} dialect state types: raise core::dialect::SLOTS")
    }
}
