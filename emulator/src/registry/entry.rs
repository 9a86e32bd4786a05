//! An exported entry: the physical object's own file, linked into the root
//! under its key, with its metadata in a tail region after the data.
//!
//! Keeping the metadata in the object's file makes a lookup one `open`, and
//! lets a process that received only the file descriptor (HIP and CUDA share
//! fds) read what the memory is.
//!
//! ```text
//! [0, data_len)                    the memory
//! [meta, meta + HEADER_LEN)        Header (little-endian fields)
//! [meta + HEADER_LEN, ...)         trustlist: TRUST_CAP entries of (pid i32, 0, set time ns u64)
//! ```
//!
//! Holders are not written down: every holding process keeps a shared `flock`
//! on its own open file description of the entry, which the kernel drops when
//! the process exits or dies. The last holder is whoever can take the lock
//! exclusively.

use crate::os::object::Object;
use crate::os::proc::ProcessId;
use std::io;

const MAGIC: u64 = u64::from_le_bytes(*b"VMMKENT1");
/// Bytes of the header region (one page).
pub const HEADER_LEN: u64 = 4096;
/// Most trustlist entries (reference acl.md §2.6: 65,535 pids per shareable handle).
pub const TRUST_CAP: usize = 65_535;
const TRUST_ENTRY: u64 = 16;
/// Bytes of the metadata tail.
pub const META_LEN: u64 = HEADER_LEN + TRUST_CAP as u64 * TRUST_ENTRY;

/// Header flag bit on disk: any process may import (the trustlist is off).
/// In memory this is [`Header::trust`]; `to_bytes`/`from_bytes` convert.
const FLAG_NO_TRUSTLIST: u64 = 1;
/// Header flag: the exporter let go of the memory while others held it; the
/// holders keep it, and no new import may find it.
pub const FLAG_WITHDRAWN: u64 = 2;

/// Who may import an exported entry. Parsed once from the vendor's export
/// flag by the dialect and kept in this form down to the entry's header.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Trust {
    /// Only the processes on the entry's trustlist (and the exporter).
    Trustlist,
    /// Any process: the trustlist is off.
    AnyProcess,
}

/// Where the memory of an entry lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Place {
    /// Device memory of device `n` (charged to its capacity).
    Device(u32),
    /// Host memory (NUMA node or 0).
    Host(u32),
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Place::Device(d) => write!(f, "device {d}"),
            Place::Host(n) => write!(f, "host {n}"),
        }
    }
}

impl Place {
    fn encode(self) -> (u32, u32) {
        match self {
            Place::Device(d) => (1, d),
            Place::Host(n) => (0, n),
        }
    }
    fn decode(kind: u32, id: u32) -> Option<Self> {
        match kind {
            1 => Some(Place::Device(id)),
            0 => Some(Place::Host(id)),
            _ => None,
        }
    }
}

/// What an entry says about its memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The shareable key (the file's name).
    pub key: u64,
    /// Bytes of memory.
    pub data_len: u64,
    /// Where it lives.
    pub place: Place,
    /// Dialect-defined properties of the allocation (e.g. ACL's memAttr and page size).
    pub props: [u64; 4],
    /// Who may import it.
    pub trust: Trust,
    /// `FLAG_*` bits ([`FLAG_WITHDRAWN`]).
    pub flags: u64,
    /// The exporting process.
    pub exporter: ProcessId,
    /// When it was exported (ns after boot).
    pub created_ns: u64,
    /// Trustlist entries written (some may be blank).
    pub trust_len: u32,
}

const FIELDS: usize = 16;

impl Header {
    fn to_bytes(&self) -> [u8; FIELDS * 8] {
        let (kind, id) = self.place.encode();
        let words: [u64; FIELDS] = [
            MAGIC,
            self.key,
            self.data_len,
            (u64::from(kind) << 32) | u64::from(id),
            self.props[0],
            self.props[1],
            self.props[2],
            self.props[3],
            self.flags | if self.trust == Trust::AnyProcess { FLAG_NO_TRUSTLIST } else { 0 },
            u64::from(self.exporter.pid),
            self.exporter.start,
            self.created_ns,
            u64::from(self.trust_len),
            0,
            0,
            0,
        ];
        let mut out = [0u8; FIELDS * 8];
        for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        out
    }

    fn from_bytes(b: &[u8; FIELDS * 8]) -> Option<Self> {
        let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
        if w(0) != MAGIC {
            return None;
        }
        Some(Self {
            key: w(1),
            data_len: w(2),
            place: Place::decode((w(3) >> 32) as u32, w(3) as u32)?,
            props: [w(4), w(5), w(6), w(7)],
            trust: if w(8) & FLAG_NO_TRUSTLIST != 0 { Trust::AnyProcess } else { Trust::Trustlist },
            flags: w(8) & !FLAG_NO_TRUSTLIST,
            exporter: ProcessId { pid: w(9) as u32, start: w(10) },
            created_ns: w(11),
            trust_len: w(12) as u32,
        })
    }

    /// Offset of the metadata tail for memory of `data_len` bytes.
    pub fn meta_offset(data_len: u64) -> u64 {
        data_len.next_multiple_of(HEADER_LEN)
    }

    /// Extends `object` with the tail and writes this header into it.
    pub fn write_new(&self, object: &Object) -> io::Result<()> {
        let meta = Self::meta_offset(self.data_len);
        object.set_len(meta + META_LEN)?;
        object.write_at(&self.to_bytes(), meta)
    }

    /// Rewrites this header (of an entry already written) in place.
    pub fn store(&self, object: &Object) -> io::Result<()> {
        object.write_at(&self.to_bytes(), Self::meta_offset(self.data_len))
    }

    /// Reads the header of an object whose memory is `data_len` bytes, or of
    /// any entry when `data_len` is unknown (`None`: found from the file size).
    pub fn read(object: &Object, data_len: Option<u64>) -> io::Result<Option<Self>> {
        let meta = match data_len {
            Some(n) => Self::meta_offset(n),
            None => match object.len()?.checked_sub(META_LEN) {
                Some(m) => m,
                None => return Ok(None),
            },
        };
        let mut b = [0u8; FIELDS * 8];
        match object.read_at(&mut b, meta) {
            Ok(()) => Ok(Self::from_bytes(&b).filter(|h| Self::meta_offset(h.data_len) == meta)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }

    fn trust_offset(&self, i: usize) -> u64 {
        Self::meta_offset(self.data_len) + HEADER_LEN + i as u64 * TRUST_ENTRY
    }

    /// The trustlist: (pid, time it was set in ns after boot).
    pub fn trustlist(&self, object: &Object) -> io::Result<Vec<(i32, u64)>> {
        let n = (self.trust_len as usize).min(TRUST_CAP);
        let mut buf = vec![0u8; n * TRUST_ENTRY as usize];
        object.read_at(&mut buf, self.trust_offset(0))?;
        Ok(buf
            .chunks_exact(TRUST_ENTRY as usize)
            .map(|c| {
                let pid = i32::from_le_bytes(c[0..4].try_into().expect("4 bytes"));
                let t = u64::from_le_bytes(c[8..16].try_into().expect("8 bytes"));
                (pid, t)
            })
            .filter(|&(pid, _)| pid != 0)
            .collect())
    }

    /// Adds `pids` (refreshing the time of those already listed), if the list
    /// has room for the new ones. Only the exporting process writes, and its
    /// callers serialise the writes; readers may read concurrently, and see
    /// the new length only after the entries (written first).
    pub fn add_trusted(&mut self, object: &Object, pids: &[i32], now_ns: u64) -> io::Result<bool> {
        let listed = self.trustlist(object)?;
        let mut index: std::collections::HashMap<i32, usize> = std::collections::HashMap::new();
        for (i, (pid, _)) in listed.iter().enumerate() {
            index.insert(*pid, i);
        }
        // New pids in call order, each once (a set keeps 65,535 pids linear).
        let mut seen = std::collections::HashSet::new();
        let fresh: Vec<i32> =
            pids.iter().copied().filter(|&p| p != 0 && !index.contains_key(&p) && seen.insert(p)).collect();
        if self.trust_len as usize + fresh.len() > TRUST_CAP {
            return Ok(false);
        }
        let entry = |pid: i32| {
            let mut e = [0u8; TRUST_ENTRY as usize];
            e[0..4].copy_from_slice(&pid.to_le_bytes());
            e[8..16].copy_from_slice(&now_ns.to_le_bytes());
            e
        };
        // Refresh the listed ones in place (ACL-PID-009).
        for &p in pids.iter().filter(|&&p| p != 0) {
            if let Some(&i) = index.get(&p) {
                object.write_at(&entry(p), self.trust_offset(i))?;
            }
        }
        if !fresh.is_empty() {
            let mut buf = Vec::with_capacity(fresh.len() * TRUST_ENTRY as usize);
            for p in &fresh {
                buf.extend_from_slice(&entry(*p));
            }
            object.write_at(&buf, self.trust_offset(self.trust_len as usize))?;
            self.trust_len += fresh.len() as u32;
            object.write_at(&self.to_bytes(), Self::meta_offset(self.data_len))?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_trustlist_grows() {
        let dir = tempfile::tempdir().unwrap();
        let obj = Object::create(dir.path(), 2 << 20).unwrap();
        let mut h = Header {
            key: 0x0000_0003_0000_0007,
            data_len: 2 << 20,
            place: Place::Device(3),
            props: [4, 2 << 20, 0, 0],
            trust: Trust::AnyProcess,
            flags: FLAG_WITHDRAWN,
            exporter: ProcessId::current(),
            created_ns: 42,
            trust_len: 0,
        };
        h.write_new(&obj).unwrap();
        assert_eq!(Header::read(&obj, Some(2 << 20)).unwrap().unwrap(), h);
        assert_eq!(Header::read(&obj, None).unwrap().unwrap(), h);
        assert!(h.add_trusted(&obj, &[10, 0, 11, 10], 5).unwrap());
        assert_eq!(h.trustlist(&obj).unwrap(), vec![(10, 5), (11, 5)]);
        assert!(h.add_trusted(&obj, &[11], 9).unwrap());
        let back = Header::read(&obj, None).unwrap().unwrap();
        assert_eq!(back.trust_len, 2);
        assert_eq!(back.trustlist(&obj).unwrap(), vec![(10, 5), (11, 9)]);
    }

    #[test]
    fn garbage_is_not_a_header() {
        let dir = tempfile::tempdir().unwrap();
        let obj = Object::create(dir.path(), 4096).unwrap();
        assert_eq!(Header::read(&obj, None).unwrap(), None);
        obj.set_len(META_LEN + 4096).unwrap();
        assert_eq!(Header::read(&obj, None).unwrap(), None);
    }
}
