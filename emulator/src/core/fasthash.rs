//! A fast hasher for the process tables' small integer keys (handle ids,
//! 64-bit shareable keys, device pairs): one rotate, xor and multiply per
//! word (the Fx hash of rustc), where the standard library's SipHash-1-3
//! costs some 20 ns per key and was a quarter of a repeated import's time.
//!
//! It does not resist hash flooding. The keys hashed here are made by this
//! process (handle ids) or by processes of the same user sharing its root
//! (shareable keys), which can harm this process in easier ways.

use std::hash::{BuildHasherDefault, Hasher};

/// The multiplier of rustc's Fx hash (2^64 / φ, odd).
const K: u64 = 0x517c_c1b7_2722_0a95;

/// See the module documentation.
#[derive(Debug, Default, Clone, Copy)]
pub struct FxHasher(u64);

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(u64::from_le_bytes(c.try_into().expect("8 bytes")));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut b = [0u8; 8];
            b[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(b));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn write_isize(&mut self, i: isize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A `HashMap` hashed with [`FxHasher`].
pub type FastMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;
/// A `HashSet` hashed with [`FxHasher`].
pub type FastSet<T> = std::collections::HashSet<T, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, Hash};

    fn h(x: impl Hash) -> u64 {
        BuildHasherDefault::<FxHasher>::default().hash_one(x)
    }

    #[test]
    fn spreads_consecutive_keys_and_tells_pairs_apart() {
        let hs: FastSet<u64> = (0..10_000u64).map(h).collect();
        assert_eq!(hs.len(), 10_000);
        // Buckets are picked by the high bits: consecutive ids must not share them.
        let tops: FastSet<u64> = (0..256u64).map(|i| h(i) >> 56).collect();
        assert!(tops.len() > 128, "{} distinct top bytes of 256", tops.len());
        assert_ne!(h((1u32, 2u32)), h((2u32, 1u32)));
        assert_ne!(h(&[1u8, 2, 3][..]), h(&[1u8, 2, 3, 0][..]));
    }

    #[test]
    fn maps_work() {
        let mut m: FastMap<(u64, u32), u32> = FastMap::default();
        for i in 0..1000u32 {
            m.insert((u64::from(i) << 32, i % 7), i);
        }
        assert!((0..1000u32).all(|i| m[&(u64::from(i) << 32, i % 7)] == i));
    }
}
