//! The byte pattern written to device memory and read back, so that a read
//! proves it saw the very bytes another mapping or process wrote.
#![forbid(unsafe_code)]

/// Byte `i` of the pattern with `seed`: no period shorter than 64 KiB, and
/// different seeds differ at every 256th byte at least.
pub fn byte(seed: u8, i: usize) -> u8 {
    let x = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 56;
    (x as u8) ^ seed ^ ((i >> 16) as u8)
}

/// `len` bytes of the pattern with `seed`.
pub fn fill(seed: u8, len: usize) -> Vec<u8> {
    (0..len).map(|i| byte(seed, i)).collect()
}

/// The first offset where `data` differs from the pattern with `seed`, with
/// the byte expected and the byte found.
pub fn first_mismatch(seed: u8, data: &[u8]) -> Option<(usize, u8, u8)> {
    data.iter().enumerate().find(|(i, b)| **b != byte(seed, *i)).map(|(i, b)| (i, byte(seed, i), *b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_differ_and_round_trip() {
        let a = fill(1, 1 << 20);
        assert_eq!(first_mismatch(1, &a), None);
        assert!(first_mismatch(2, &a).is_some());
        let mut b = a.clone();
        b[4097] ^= 0xff;
        assert_eq!(first_mismatch(1, &b).map(|m| m.0), Some(4097));
    }
}
