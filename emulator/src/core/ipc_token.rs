//! The 64-byte IPC memory handle of HIP and CUDA, in the emulator's own
//! self-describing layout.
//!
//! It keeps the shape of ROCm's private layout (hip.md §3.2): a token in
//! bytes 0–31, then the allocation size, the offset of the exported pointer,
//! the exporter's pid and device. The token is ours: a magic naming the
//! dialect, the registry key, the allocation's generation and a check word,
//! so that an all-zero or garbage handle is told apart from a forged or
//! stale one, and the same-process check reads the pid field as the real
//! runtimes do.
//!
//! | bytes | content |
//! |---|---|
//! | 0–7 | magic of the dialect (`VMMKHIP1`, `VMMKCUD1`) |
//! | 8–15 | registry key of the exported allocation |
//! | 16–23 | the allocation's generation (new for every allocation) |
//! | 24–31 | check word: FNV-1a of bytes 0–23 and 32–55 |
//! | 32–39 | allocation size, as asked of the allocator (`size_t`) |
//! | 40–47 | offset of the exported pointer from the allocation base |
//! | 48–51 | exporter pid (`int`) |
//! | 52–55 | exporter device ordinal |
//! | 56–63 | zero |

use std::sync::atomic::{AtomicU64, Ordering};

/// Size of an IPC memory handle (`HIP_IPC_HANDLE_SIZE`, `CU_IPC_HANDLE_SIZE`).
pub const IPC_HANDLE_SIZE: usize = 64;

/// What a handle says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpcToken {
    /// The registry key the allocation is shared under.
    pub key: u64,
    /// The allocation's generation ([`new_generation`]).
    pub generation: u64,
    /// The size the program asked for.
    pub size: u64,
    /// Offset of the exported pointer from the allocation base.
    pub offset: u64,
    /// The exporting process.
    pub pid: i32,
    /// The exporter's device ordinal.
    pub device: i32,
}

fn fnv(parts: &[&[u8]]) -> u64 {
    parts
        .iter()
        .flat_map(|p| p.iter())
        .fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

fn word(b: &[u8; IPC_HANDLE_SIZE], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

fn int(b: &[u8; IPC_HANDLE_SIZE], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

impl IpcToken {
    /// The 64 bytes of this token under `magic`.
    pub fn encode(&self, magic: [u8; 8]) -> [u8; IPC_HANDLE_SIZE] {
        let mut b = [0u8; IPC_HANDLE_SIZE];
        b[0..8].copy_from_slice(&magic);
        b[8..16].copy_from_slice(&self.key.to_le_bytes());
        b[16..24].copy_from_slice(&self.generation.to_le_bytes());
        b[32..40].copy_from_slice(&self.size.to_le_bytes());
        b[40..48].copy_from_slice(&self.offset.to_le_bytes());
        b[48..52].copy_from_slice(&self.pid.to_le_bytes());
        b[52..56].copy_from_slice(&self.device.to_le_bytes());
        let check = fnv(&[&b[0..24], &b[32..56]]);
        b[24..32].copy_from_slice(&check.to_le_bytes());
        b
    }

    /// The token in `b`, if it carries `magic` and its check word matches
    /// (otherwise the handle was altered, forged, or is another dialect's).
    pub fn decode(magic: [u8; 8], b: &[u8; IPC_HANDLE_SIZE]) -> Option<Self> {
        if !Self::has_magic(magic, b) || word(b, 24) != fnv(&[&b[0..24], &b[32..56]]) {
            return None;
        }
        Some(Self {
            key: word(b, 8),
            generation: word(b, 16),
            size: word(b, 32),
            offset: word(b, 40),
            pid: int(b, 48),
            device: int(b, 52),
        })
    }

    /// The size field (bytes 32–39), whatever else the handle holds.
    pub fn size_field(b: &[u8; IPC_HANDLE_SIZE]) -> u64 {
        word(b, 32)
    }

    /// The pid field (bytes 48–51), whatever else the handle holds.
    pub fn pid_field(b: &[u8; IPC_HANDLE_SIZE]) -> i32 {
        int(b, 48)
    }

    /// Whether `b` starts with `magic`.
    pub fn has_magic(magic: [u8; 8], b: &[u8; IPC_HANDLE_SIZE]) -> bool {
        b[0..8] == magic
    }
}

/// A generation for a new allocation: never repeated in this process, and
/// unlikely to be guessed from another (it mixes in the pid and the clock).
/// It makes a handle of freed memory differ from one of memory later
/// allocated at the same address ([HIP-IPC-006](vmmkit_sys::hip::rules::IPC_006), [CUDA-IPC-003](vmmkit_sys::cuda::rules::IPC_003)).
pub fn new_generation() -> u64 {
    // Process-wide by nature: HIP and CUDA allocations draw from one sequence,
    // so no two allocations of the process share a generation.
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    (u64::from(std::process::id()) << 40) ^ t.rotate_left(17) ^ n.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAGIC: [u8; 8] = *b"VMMKTST1";

    #[test]
    fn round_trips_and_detects_changes() {
        let t = IpcToken { key: 0x1_0000_0007, generation: 42, size: 257, offset: 128, pid: 1234, device: 1 };
        let b = t.encode(MAGIC);
        assert_eq!(IpcToken::decode(MAGIC, &b), Some(t));
        assert_eq!((IpcToken::size_field(&b), IpcToken::pid_field(&b)), (257, 1234));
        let mut altered = b;
        altered[40] ^= 1;
        assert_eq!(IpcToken::decode(MAGIC, &altered), None);
        assert!(IpcToken::has_magic(MAGIC, &altered));
        assert_eq!(IpcToken::decode(*b"VMMKOTHR", &b), None, "another dialect's magic");
        assert!(!IpcToken::has_magic(MAGIC, &[0; IPC_HANDLE_SIZE]));
    }

    #[test]
    fn generations_differ() {
        assert_ne!(new_generation(), new_generation());
    }
}
