//! Handle values for the C ABI: a dialect's tag in the top 16 bits and the
//! core's [`HandleId`] below, so that a value is never a canonical x86-64
//! address (a program that dereferences one faults) and a value of another
//! dialect or of no dialect is told apart without a lookup.

use super::HandleId;

/// A dialect's handle tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HandleTag(u64);

impl HandleTag {
    const MASK: u64 = 0xffff_0000_0000_0000;

    /// The tag `prefix` in the top 16 bits; it must not be 0 or 0xffff (canonical addresses).
    pub const fn new(prefix: u16) -> Self {
        assert!(prefix != 0 && prefix != 0xffff, "a canonical prefix would make handles look like addresses");
        Self((prefix as u64) << 48)
    }

    /// The C value of `id`.
    pub fn value(self, id: HandleId) -> usize {
        (self.0 | (id.0 & !Self::MASK)) as usize
    }

    /// The handle a C value names, if it carries this tag. Liveness is the
    /// core's to check; values are looked up, never dereferenced.
    pub fn id(self, value: usize) -> Option<HandleId> {
        let v = value as u64;
        (v & Self::MASK == self.0).then_some(HandleId(v & !Self::MASK))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_foreign_values() {
        let tag = HandleTag::new(0x4849);
        let v = tag.value(HandleId(7));
        assert_eq!(v, 0x4849_0000_0000_0007);
        assert_eq!(tag.id(v), Some(HandleId(7)));
        assert_eq!(tag.id(7), None);
        assert_eq!(HandleTag::new(0xacd0).id(v), None);
    }
}
