//! Messages between a bench process and its peer: one `SOCK_SEQPACKET`
//! datagram each, made of little-endian 64-bit words. A request is an
//! operation and its arguments; a reply starts with [`OK`] and values, or
//! with [`ERR`] and a UTF-8 message.

/// Largest datagram either side sends (bytes).
pub const MAX_MESSAGE: usize = 64 * 1024;
/// Keys per reply of [`Op::Grow`].
pub const KEYS_PER_REPLY: usize = MAX_MESSAGE / 8 - 2;

/// Reply tag: success, values follow.
pub const OK: u64 = 0;
/// Reply tag: failure, a message follows.
pub const ERR: u64 = 1;

/// What the bench process asks of its peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum Op {
    /// Sent by the peer, unasked, once it is ready: `[OK, host pid]`.
    Hello = 1,
    /// `[key, size]`: import the key onto device 0, reserve, map, read the
    /// first byte with a device-to-host copy; reply `[OK, byte]`. The import
    /// is kept until [`Op::ReleaseImport`].
    ImportMapRead = 2,
    /// Unmap, release and free what [`Op::ImportMapRead`] kept.
    ReleaseImport = 3,
    /// `[size]`: the floor of the handoff: open the floor directory's
    /// `handoff` file, map `size` bytes shared, read the first byte; reply
    /// `[OK, byte]`. Kept until [`Op::CloseFloor`].
    OpenMapRead = 4,
    /// Unmap and close what [`Op::OpenMapRead`] kept.
    CloseFloor = 5,
    /// `[count, device, size]`: allocate and export (any process may import)
    /// `count` more allocations of `size` bytes on `device`, and keep them;
    /// reply with their keys in datagrams of `[OK, more, keys...]`, `more`
    /// being 0 in the last.
    Grow = 6,
    /// Exit (after freeing what is kept).
    Quit = 7,
    /// `[size]`, a file descriptor beside it: the handoff's floor for the
    /// vendors that share by fd: map the received descriptor shared, read
    /// the first byte; reply `[OK, byte]`. Kept until [`Op::CloseFloor`].
    MapReadFd = 8,
    /// `[size, peers, pids...]`: all-to-all among `peers` processes, export
    /// side: allocate `size` bytes on device 0 and export them (ACL: trusting
    /// the host `pids`, the other peers); reply `[OK, key]`, the exported fd
    /// beside it (HIP, CUDA).
    /// Kept until [`Op::MeshRelease`].
    MeshExport = 9,
    /// `[size, keys...]`, the fds beside it (HIP, CUDA): all-to-all, import
    /// side: import each of the others' handles onto device 0, reserve, map,
    /// grant access; reply `[OK, count]`. Kept until [`Op::MeshRelease`].
    MeshImport = 10,
    /// Unmap, release and free what the all-to-all ops kept (theirs and the floor's).
    MeshRelease = 11,
    /// `[size, peers]`: the all-to-all floor's export side: an unnamed tmpfs file
    /// of `size` bytes in the floor directory (`open(O_TMPFILE)` +
    /// `ftruncate`); reply `[OK, 0]`, its fd beside it.
    MeshFloorExport = 12,
    /// `[size]`, the fds beside it: the floor's import side: map each shared;
    /// reply `[OK, count]`.
    MeshFloorMap = 13,
    /// `[size, keys...]`: import each key onto device 0 and hold it (no
    /// mapping), for the memory an importer of many handles takes; reply
    /// `[OK, count]`. Held until [`Op::MeshRelease`].
    ImportHold = 14,
}

impl Op {
    /// The operation a request word names.
    pub fn from_word(w: u64) -> Option<Self> {
        Some(match w {
            1 => Self::Hello,
            2 => Self::ImportMapRead,
            3 => Self::ReleaseImport,
            4 => Self::OpenMapRead,
            5 => Self::CloseFloor,
            6 => Self::Grow,
            7 => Self::Quit,
            8 => Self::MapReadFd,
            9 => Self::MeshExport,
            10 => Self::MeshImport,
            11 => Self::MeshRelease,
            12 => Self::MeshFloorExport,
            13 => Self::MeshFloorMap,
            14 => Self::ImportHold,
            _ => return None,
        })
    }
}

/// Words to bytes.
pub fn encode(words: &[u64]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Bytes to words (a trailing partial word is ignored).
pub fn decode(bytes: &[u8]) -> Vec<u64> {
    bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
}

/// A failure reply: [`ERR`] and the message.
pub fn error(msg: &str) -> Vec<u8> {
    let mut b = ERR.to_le_bytes().to_vec();
    b.extend_from_slice(&msg.as_bytes()[..msg.len().min(MAX_MESSAGE - 8)]);
    b
}

/// A reply's values, or its message as the error.
pub fn reply(bytes: &[u8]) -> Result<Vec<u64>, String> {
    if bytes.len() < 8 {
        return Err(format!("a reply of {} bytes", bytes.len()));
    }
    let (tag, rest) = bytes.split_at(8);
    match u64::from_le_bytes(tag.try_into().expect("8 bytes")) {
        OK => Ok(decode(rest)),
        ERR => Err(String::from_utf8_lossy(rest).into_owned()),
        t => Err(format!("a reply tagged {t}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_round_trip() {
        assert_eq!(reply(&encode(&[OK, 7, u64::MAX])), Ok(vec![7, u64::MAX]));
        assert_eq!(reply(&error("no such key")), Err("no such key".into()));
        assert!(reply(&[1, 2]).is_err());
        assert_eq!(Op::from_word(Op::Grow as u64), Some(Op::Grow));
        assert_eq!(Op::from_word(99), None);
    }
}
