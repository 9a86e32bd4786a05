//! An exported entry: the physical object's own file, linked into the root
//! under its key, with its metadata in a tail region after the data.
//!
//! Keeping the metadata in the object's file makes a lookup one `open`, and
//! lets a process that received only the file descriptor (HIP and CUDA share
//! fds) read what the memory is.
//!
//! ```text
//! [0, data_len)                    the memory
//! [meta, meta + HEADER_LEN)        Header (little-endian fields), where extended attributes are not supported
//! [meta + HEADER_LEN, ...)         trustlist: TRUST_CAP entries of (pid i32, holder u32, set time ns u64)
//! [meta + HISTORY_AT, +HISTORY_LEN) the accesses the holders' streams and hosts made (core/access_history.rs)
//! xattr user.vmmkit.entry          Header, where the file system has user extended attributes,
//!                                  then a trustlist of at most INLINE_CAP entries (FLAG_TRUST_INLINE)
//! ```
//!
//! A short trustlist lies in the attribute after the header, so that an
//! import reads both in one `fgetxattr` and the exporter writes both in one
//! `fsetxattr`; a list that outgrows [`INLINE_CAP`] moves to the tail whole.
//!
//! The header is the file's extended attribute [`HEADER_XATTR`] wherever the
//! root's file system allows (tmpfs since Linux 6.6, ext4, xfs, btrfs): the
//! first write into the tail allocates and zeroes a page, which cost an
//! export about 2 µs, four times an `fsetxattr` (measured on tmpfs, Linux
//! 6.18, 2026-11-28: `open(O_TMPFILE)` + `ftruncate` + `close` 2.1–2.3 µs, with an
//! `fsetxattr` of 128 bytes 2.6–2.7 µs, with a `pwrite` of 128 bytes into the tail
//! 4.3–4.6 µs). An attribute is also replaced in one step, where a reader
//! could see a `pwrite` half done. Where a file system has no user
//! attributes (`EOPNOTSUPP`), or no room for one (`ENOSPC`: tmpfs charges
//! attributes to its inode space), the header is the tail's first page;
//! readers look for the attribute first, then in the tail.
//!
//! Holders are not written down: every holding process keeps a shared `flock`
//! on its own open file description of the entry, which the kernel drops when
//! the process exits or dies. The last holder is whoever can take the lock
//! exclusively.
//!
//! Any process of the user can write any byte of an entry, so a header is
//! believed only when it is well formed (see [`Header::read`]); anything else
//! is "not an entry": a lookup says unknown, and gc may remove it once nobody
//! holds it.

use crate::config::MAX_DEVICES;
use crate::os::object::Object;
use crate::os::proc::ProcessId;
use std::collections::{HashMap, HashSet};
use std::io;

const MAGIC: u64 = u64::from_le_bytes(*b"VMMKENT1");
/// The extended attribute that holds the header (see the module's documentation).
pub const HEADER_XATTR: &str = "user.vmmkit.entry";
/// Bytes of the header region (one page).
pub const HEADER_LEN: u64 = 4096;
/// Most trustlist entries (reference acl.md §2.6: 65,535 pids per shareable handle).
pub const TRUST_CAP: usize = 65_535;
/// Bytes of one trustlist entry.
pub const TRUST_ENTRY: u64 = 16;
/// Where the access history starts in the metadata tail (page-aligned, after the trustlist).
pub const HISTORY_AT: u64 = HEADER_LEN + (TRUST_CAP as u64 * TRUST_ENTRY).next_multiple_of(HEADER_LEN);
/// Bytes of the access history (a sparse region: pages only once written).
pub const HISTORY_LEN: u64 = 64 << 10;
/// Bytes of the metadata tail.
pub const META_LEN: u64 = HISTORY_AT + HISTORY_LEN;

/// Header flag bit on disk: any process may import (the trustlist is off).
/// In memory this is [`Header::trust`]; `to_bytes`/`from_bytes` convert.
const FLAG_NO_TRUSTLIST: u64 = 1;
/// Header flag: the exporter let go of the memory while others held it; the
/// holders keep it, and no new import may find it.
pub const FLAG_WITHDRAWN: u64 = 2;
/// Header flag: the trustlist is the header attribute's bytes after the
/// header ([`Header::trust_len`] entries of [`TRUST_ENTRY`] bytes), not the
/// tail's: a list of up to [`INLINE_CAP`] pids, written with the header in
/// one `fsetxattr` and read with it in one `fgetxattr`.
pub const FLAG_TRUST_INLINE: u64 = 4;
/// Most trustlist entries kept in the header's attribute: an import of an
/// entry trusting at most this many pids reads its list with its header
/// (one system call fewer), and listing them writes no page of the tail.
pub const INLINE_CAP: usize = 64;
/// Bytes of the header attribute at most: the header and an inline list.
const ATTR_MAX: usize = FIELDS * 8 + INLINE_CAP * TRUST_ENTRY as usize;

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
    /// Bits 32 and up of a key for memory at this place: the device, or
    /// 64 + node (at most 255) for host memory (acl.md §2.5).
    pub fn key_device(self) -> u64 {
        match self {
            Place::Device(d) => u64::from(d),
            Place::Host(n) => 64 + u64::from(n.min(191)),
        }
    }

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

/// One trustlist entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grant {
    /// The pid allowed to import.
    pub pid: i32,
    /// Which process had that pid when it was set ([`crate::os::proc::holder_stamp`]):
    /// a process that got the pid later is not the one that was trusted.
    pub holder: u32,
    /// When it was set (ns after boot).
    pub set_ns: u64,
}

const FIELDS: usize = 16;

/// Writes `words` little-endian into `out` (8 bytes each), as headers lie on disk.
pub(super) fn put_words(out: &mut [u8], words: &[u64]) {
    for (chunk, w) in out.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
}

/// Word `i` of a little-endian header in `b`.
pub(super) fn word_at(b: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"))
}

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
        put_words(&mut out, &words);
        out
    }

    /// The header in `b`, if it is well formed: our magic, a place kind we
    /// know, a device below [`MAX_DEVICES`], memory of whole pages (and not
    /// so large that the file could not exist), a trustlist length within
    /// [`TRUST_CAP`], an exporter pid that fits, and a key (when not 0) whose
    /// device bits match the place. The file length is checked by [`Self::read`].
    fn from_bytes(b: &[u8; FIELDS * 8]) -> Option<Self> {
        let w = |i: usize| word_at(b, i);
        if w(0) != MAGIC {
            return None;
        }
        let place = Place::decode((w(3) >> 32) as u32, w(3) as u32)?;
        if matches!(place, Place::Device(d) if d >= MAX_DEVICES) {
            return None;
        }
        let (key, data_len) = (w(1), w(2));
        // The file is data_len + META_LEN bytes, and a file size is an i64.
        let fits = data_len.checked_add(META_LEN).is_some_and(|n| n <= i64::MAX as u64);
        if data_len == 0 || data_len % HEADER_LEN != 0 || !fits {
            return None;
        }
        if key != 0 && key >> 32 != place.key_device() {
            return None;
        }
        let inline = w(8) & FLAG_TRUST_INLINE != 0;
        let cap = if inline { INLINE_CAP } else { TRUST_CAP };
        let trust_len = u32::try_from(w(12)).ok().filter(|&n| n as usize <= cap)?;
        let pid = u32::try_from(w(9)).ok()?;
        Some(Self {
            key,
            data_len,
            place,
            props: [w(4), w(5), w(6), w(7)],
            trust: if w(8) & FLAG_NO_TRUSTLIST != 0 { Trust::AnyProcess } else { Trust::Trustlist },
            flags: w(8) & !FLAG_NO_TRUSTLIST,
            exporter: ProcessId { pid, start: w(10) },
            created_ns: w(11),
            trust_len,
        })
    }

    /// Offset of the metadata tail for memory of `data_len` bytes.
    pub fn meta_offset(data_len: u64) -> u64 {
        data_len.next_multiple_of(HEADER_LEN)
    }

    /// Offset of the access history for memory of `data_len` bytes.
    pub fn history_offset(data_len: u64) -> u64 {
        Self::meta_offset(data_len) + HISTORY_AT
    }

    /// Length of the file of an entry whose memory is `data_len` bytes: the
    /// memory, then the metadata tail.
    pub fn entry_len(data_len: u64) -> u64 {
        Self::meta_offset(data_len) + META_LEN
    }

    /// Extends `object` with the tail and writes this header.
    pub fn write_new(&self, object: &Object) -> io::Result<()> {
        object.set_len(Self::entry_len(self.data_len))?;
        self.store(object)
    }

    /// Writes this header into `object` (whose file is an entry's length):
    /// its extended attribute, or the tail where the file system has none,
    /// or has no room for one (tmpfs counts attributes against its inodes,
    /// so a tmpfs out of inodes takes a page where it has room for one).
    pub fn store(&self, object: &Object) -> io::Result<()> {
        self.store_or(object, || false)
    }

    /// [`Header::store`], but when the attribute finds no room, `make_room`
    /// runs first (a collection of what dead processes left); when it says
    /// it ran, the attribute is tried once more before the tail is used.
    pub fn store_or(&self, object: &Object, make_room: impl FnOnce() -> bool) -> io::Result<()> {
        if self.inline() {
            return self.store_keeping_list(object);
        }
        let bytes = self.to_bytes();
        let first = object.set_attr(HEADER_XATTR, &bytes);
        let tried = match first {
            Err(e) if super::out_of_room(&e) && make_room() => object.set_attr(HEADER_XATTR, &bytes),
            r => r,
        };
        match tried {
            Err(e) if e.raw_os_error() == Some(libc::EOPNOTSUPP) => {
                object.write_at(&bytes, Self::meta_offset(self.data_len))
            }
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENOSPC | libc::EDQUOT)) => {
                object.write_at(&bytes, Self::meta_offset(self.data_len))?;
                // An older header in an attribute would be read first.
                match object.remove_attr(HEADER_XATTR) {
                    Err(e) if e.raw_os_error() != Some(libc::ENODATA) => Err(e),
                    _ => Ok(()),
                }
            }
            r => r,
        }
    }

    /// Writes this header, whose list lies in the attribute, with the list
    /// the attribute holds now (a change of the header alone, such as
    /// [`FLAG_WITHDRAWN`]: only the exporter writes its entry's attribute,
    /// under its tables' lock). The attribute is replaced whole.
    fn store_keeping_list(&self, object: &Object) -> io::Result<()> {
        let mut b = [0u8; ATTR_MAX];
        let n = object.get_attr(HEADER_XATTR, &mut b)?;
        let list = b.get(FIELDS * 8..n).unwrap_or_default();
        if list.len() != self.trust_len as usize * TRUST_ENTRY as usize {
            return Err(io::Error::other("the trustlist in the header's attribute is not the header's"));
        }
        let mut bytes = self.to_bytes().to_vec();
        bytes.extend_from_slice(list);
        object.set_attr(HEADER_XATTR, &bytes)
    }

    /// Reads the header of an object whose memory is `data_len` bytes, or of
    /// any entry when `data_len` is unknown (`None`: found from the file size).
    ///
    /// `None` unless the header is well formed (see [`Self::from_bytes`]) and
    /// agrees with the file: the file is exactly the memory and the metadata
    /// tail long (a truncated or extended file is not an entry), and its
    /// memory is `data_len` bytes when that is given.
    pub fn read(object: &Object, data_len: Option<u64>) -> io::Result<Option<Self>> {
        Self::read_sized(object, object.len()?, data_len)
    }

    /// [`Header::read`] of an object whose file is `file_len` bytes (from an
    /// `fstat` the caller made anyway).
    pub fn read_sized(object: &Object, file_len: u64, data_len: Option<u64>) -> io::Result<Option<Self>> {
        Ok(Self::read_with_list(object, file_len, data_len)?.map(|(h, _)| h))
    }

    /// [`Header::read_sized`], and the trustlist when it lies in the
    /// attribute with the header ([`FLAG_TRUST_INLINE`]): read in the same
    /// `fgetxattr` (`None`: the list is the tail's, [`Header::trustlist`]).
    pub fn read_with_list(
        object: &Object,
        file_len: u64,
        data_len: Option<u64>,
    ) -> io::Result<Option<(Self, Option<Vec<Grant>>)>> {
        let Some(meta) = file_len.checked_sub(META_LEN) else { return Ok(None) };
        if data_len.is_some_and(|n| n != meta) {
            return Ok(None);
        }
        let mut b = [0u8; ATTR_MAX];
        match object.get_attr(HEADER_XATTR, &mut b) {
            Ok(n) => return Ok(Self::from_attr(&b[..n]).filter(|(h, _)| h.data_len == meta)),
            // Longer than any header with its list: not our header.
            Err(e) if e.raw_os_error() == Some(libc::ERANGE) => return Ok(None),
            // None here, or none on this file system: the tail's.
            Err(e) if matches!(e.raw_os_error(), Some(libc::ENODATA | libc::EOPNOTSUPP)) => {}
            Err(e) => return Err(e),
        }
        let mut b = [0u8; FIELDS * 8];
        match object.read_at(&mut b, meta) {
            // The tail's header never has its list inline.
            Ok(()) => Ok(Self::from_bytes(&b).filter(|h| h.data_len == meta && !h.inline()).map(|h| (h, None))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The header in the attribute's bytes `b`, and its inline list: the
    /// header alone, or (with [`FLAG_TRUST_INLINE`]) followed by exactly
    /// [`Header::trust_len`] entries. Any other length is not our header.
    fn from_attr(b: &[u8]) -> Option<(Self, Option<Vec<Grant>>)> {
        let head: &[u8; FIELDS * 8] = b.get(..FIELDS * 8)?.try_into().ok()?;
        let h = Self::from_bytes(head)?;
        let rest = &b[FIELDS * 8..];
        if !h.inline() {
            return rest.is_empty().then_some((h, None));
        }
        if rest.len() != h.trust_len as usize * TRUST_ENTRY as usize {
            return None;
        }
        let list = grants(rest);
        Some((h, Some(list)))
    }

    /// Whether the trustlist lies in the attribute ([`FLAG_TRUST_INLINE`]).
    fn inline(&self) -> bool {
        self.flags & FLAG_TRUST_INLINE != 0
    }

    /// Reads the header of the file named `name` in `shared/`: as
    /// [`Self::read`], and `None` unless `name` is the header's key in 16
    /// lowercase hex digits. A copy of an entry under another name is not an
    /// entry: it must not be counted, nor its capacity given back twice.
    pub fn read_named(object: &Object, name: &std::ffi::OsStr) -> io::Result<Option<Self>> {
        Ok(Self::read(object, None)?.filter(|h| name.to_str() == Some(&format!("{:016x}", h.key))))
    }

    fn trust_offset(&self, i: usize) -> u64 {
        Self::meta_offset(self.data_len) + HEADER_LEN + i as u64 * TRUST_ENTRY
    }

    /// The trustlist. Reads at most [`TRUST_CAP`] entries, and none past the
    /// end of the file (one that was cut short after its header was read
    /// lists fewer: nobody gains trust). A list in the attribute
    /// ([`FLAG_TRUST_INLINE`]) is read from the attribute as it is now (or
    /// from the tail, when it has moved there since).
    pub fn trustlist(&self, object: &Object) -> io::Result<Vec<Grant>> {
        Ok(self.raw_list(object)?.into_iter().filter(|g| g.pid != 0).collect())
    }

    /// Every slot of the list, blank ones (pid 0) included.
    fn raw_list(&self, object: &Object) -> io::Result<Vec<Grant>> {
        let mut h = self.clone();
        if self.inline() {
            let mut b = [0u8; ATTR_MAX];
            let n = match object.get_attr(HEADER_XATTR, &mut b) {
                Ok(n) => n,
                Err(e) if matches!(e.raw_os_error(), Some(libc::ERANGE | libc::ENODATA)) => return Ok(Vec::new()),
                Err(e) => return Err(e),
            };
            match Self::from_attr(&b[..n]) {
                Some((_, Some(list))) => return Ok(list),
                Some((now, None)) => h = now,
                None => return Ok(Vec::new()),
            }
        }
        let n = (h.trust_len as usize).min(TRUST_CAP);
        let mut buf = vec![0u8; n * TRUST_ENTRY as usize];
        // The read stops at the end of the file: no `fstat` for its length
        // first (one system call fewer per import of a trustlisted entry).
        let got = object.read_upto(&mut buf, h.trust_offset(0))?;
        buf.truncate(got - got % TRUST_ENTRY as usize);
        Ok(grants(&buf))
    }

    /// Adds `pids` (refreshing those already listed), if the list has room
    /// for the new ones, each with the [`Grant::holder`] that `holder` gives
    /// for it and `now_ns` as the time it was set. Only the exporting
    /// process writes, and its callers serialise the writes; readers may read
    /// concurrently, and see the new length only after the entries (written
    /// first).
    ///
    /// `index` is the exporter's record of where each listed pid sits: each
    /// pid asked for is looked up there, so a call costs what it adds, not
    /// the length of the list (a list of 32,768 pids filled 31 at a time was
    /// a read of the whole list per call). It is read from the file once,
    /// when it does not describe this list's length (the first add).
    pub fn add_trusted(
        &mut self,
        object: &Object,
        index: &mut TrustIndex,
        pids: &[i32],
        now_ns: u64,
        holder: impl Fn(i32) -> u32,
    ) -> io::Result<bool> {
        if index.len != self.trust_len {
            *index = TrustIndex::read(self, object)?;
        }
        // New pids in call order, each once.
        let mut seen = HashSet::new();
        let fresh: Vec<i32> =
            pids.iter().copied().filter(|&p| p != 0 && !index.slots.contains_key(&p) && seen.insert(p)).collect();
        if self.trust_len as usize + fresh.len() > TRUST_CAP {
            return Ok(false);
        }
        let entry = |pid: i32| Grant { pid, holder: holder(pid), set_ns: now_ns };
        let len = self.trust_len as usize + fresh.len();
        // A short list (or none yet) stays in the attribute: the header and
        // the whole list in one `fsetxattr`, replaced at once.
        if len <= INLINE_CAP && (self.inline() || self.trust_len == 0) {
            let mut list = index.inline.clone();
            for &p in pids.iter().filter(|&&p| p != 0) {
                if let Some(&i) = index.slots.get(&p) {
                    list[i as usize] = entry(p);
                }
            }
            list.extend(fresh.iter().map(|&p| entry(p)));
            let mut h = self.clone();
            h.flags |= FLAG_TRUST_INLINE;
            h.trust_len = len as u32;
            let mut bytes = h.to_bytes().to_vec();
            for g in &list {
                bytes.extend_from_slice(&g.to_bytes());
            }
            // Where the attribute cannot hold it (no user attributes, no
            // room), the list goes to the tail below.
            if object.set_attr(HEADER_XATTR, &bytes).is_ok() {
                for (i, &p) in fresh.iter().enumerate() {
                    index.slots.insert(p, self.trust_len + i as u32);
                }
                *self = h;
                index.len = self.trust_len;
                index.inline = list;
                return Ok(true);
            }
        }
        if self.inline() {
            // The list moves to the tail (its entries first, then the
            // header that says so), in its slots.
            let mut buf = Vec::with_capacity(index.inline.len() * TRUST_ENTRY as usize);
            for g in &index.inline {
                buf.extend_from_slice(&g.to_bytes());
            }
            object.write_at(&buf, self.trust_offset(0))?;
        }
        // Refresh the listed ones in place (ACL-PID-009).
        for &p in pids.iter().filter(|&&p| p != 0) {
            if let Some(&i) = index.slots.get(&p) {
                object.write_at(&entry(p).to_bytes(), self.trust_offset(i as usize))?;
            }
        }
        let was_inline = self.inline();
        if !fresh.is_empty() || was_inline {
            let mut buf = Vec::with_capacity(fresh.len() * TRUST_ENTRY as usize);
            for p in &fresh {
                buf.extend_from_slice(&entry(*p).to_bytes());
            }
            object.write_at(&buf, self.trust_offset(self.trust_len as usize))?;
            for (i, &p) in fresh.iter().enumerate() {
                index.slots.insert(p, self.trust_len + i as u32);
            }
            self.trust_len += fresh.len() as u32;
            self.flags &= !FLAG_TRUST_INLINE;
            index.len = self.trust_len;
            index.inline = Vec::new();
            self.store(object)?;
        }
        Ok(true)
    }
}

impl Grant {
    fn to_bytes(self) -> [u8; TRUST_ENTRY as usize] {
        let mut e = [0u8; TRUST_ENTRY as usize];
        e[0..4].copy_from_slice(&self.pid.to_le_bytes());
        e[4..8].copy_from_slice(&self.holder.to_le_bytes());
        e[8..16].copy_from_slice(&self.set_ns.to_le_bytes());
        e
    }
}

/// The entries in `b` (whole entries only), blank ones included.
fn grants(b: &[u8]) -> Vec<Grant> {
    b.chunks_exact(TRUST_ENTRY as usize)
        .map(|c| Grant {
            pid: i32::from_le_bytes(c[0..4].try_into().expect("4 bytes")),
            holder: u32::from_le_bytes(c[4..8].try_into().expect("4 bytes")),
            set_ns: u64::from_le_bytes(c[8..16].try_into().expect("8 bytes")),
        })
        .collect()
}

/// Where each pid on an entry's trustlist sits, as its exporter knows it:
/// the first slot of each pid, for the list of [`TrustIndex::len`] entries.
/// Only the exporter writes the list, so its index stays true while it
/// keeps it; an index of another length is read again from the file.
#[derive(Debug, Default)]
pub struct TrustIndex {
    slots: HashMap<i32, u32>,
    len: u32,
    /// The list itself while it lies in the attribute: written whole.
    inline: Vec<Grant>,
}

impl TrustIndex {
    /// The index of `header`'s list as the file holds it (one read).
    fn read(header: &Header, object: &Object) -> io::Result<Self> {
        let list = header.raw_list(object)?;
        let mut slots = HashMap::new();
        for (i, g) in list.iter().enumerate() {
            if g.pid != 0 {
                slots.entry(g.pid).or_insert(i as u32);
            }
        }
        let inline = if header.inline() { list } else { Vec::new() };
        Ok(Self { slots, len: header.trust_len, inline })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (pid, set time) of each entry, checking each entry's holder stamp.
    fn pairs(h: &Header, obj: &Object) -> Vec<(i32, u64)> {
        let list = h.trustlist(obj).unwrap();
        assert!(list.iter().all(|g| g.holder == g.pid as u32 + 100), "{list:?}");
        list.iter().map(|g| (g.pid, g.set_ns)).collect()
    }

    #[test]
    fn header_round_trips_and_trustlist_grows() {
        let dir = tempfile::tempdir().unwrap();
        let obj = Object::create(dir.path(), 2 << 20, true).unwrap();
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
        assert!(h.add_trusted(&obj, &mut TrustIndex::default(), &[10, 0, 11, 10], 5, |pid| pid as u32 + 100).unwrap());
        assert_eq!(pairs(&h, &obj), vec![(10, 5), (11, 5)]);
        assert!(h.add_trusted(&obj, &mut TrustIndex::default(), &[11], 9, |pid| pid as u32 + 100).unwrap());
        let back = Header::read(&obj, None).unwrap().unwrap();
        assert_eq!(back.trust_len, 2);
        assert_eq!(pairs(&back, &obj), vec![(10, 5), (11, 9)]);
    }

    /// The header is an extended attribute where the file system has them
    /// (the tail's page is then never written: no page is allocated), and
    /// an attribute of another length is no header.
    #[test]
    fn the_header_is_an_attribute_where_it_can_be() {
        let dir = tempfile::tempdir().unwrap();
        let (obj, h) = entry(dir.path());
        let mut b = [0u8; FIELDS * 8 + 1];
        match obj.get_attr(HEADER_XATTR, &mut b) {
            Ok(n) => {
                assert_eq!(n, FIELDS * 8);
                let st = rustix::fs::fstat(obj.fd()).unwrap();
                let trust_pages = (HEADER_LEN + 2 * TRUST_ENTRY).div_ceil(4096);
                assert!(st.st_blocks as u64 * 512 <= trust_pages * 4096 * 2, "{} blocks", st.st_blocks);
                obj.set_attr(HEADER_XATTR, &b[..FIELDS * 8 - 8]).unwrap();
                assert_eq!(Header::read(&obj, None).unwrap(), None, "too short");
                obj.set_attr(HEADER_XATTR, &b).unwrap();
                assert_eq!(Header::read(&obj, None).unwrap(), None, "too long");
                h.store(&obj).unwrap();
                assert_eq!(Header::read(&obj, None).unwrap(), Some(h));
            }
            Err(e) => eprintln!(
                "the file system of {} has no user attributes ({e}): the tail holds the header",
                dir.path().display()
            ),
        }
    }

    /// A header in the tail (written where the file system has no user
    /// attributes) is read from there when the file has no attribute.
    #[test]
    fn a_header_in_the_tail_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let obj = Object::create(dir.path(), Header::entry_len(LEN), true).unwrap();
        let h = Header {
            key: 0x0000_0002_0000_0001,
            data_len: LEN,
            place: Place::Device(2),
            props: [1, 2, 3, 4],
            trust: Trust::Trustlist,
            flags: 0,
            exporter: ProcessId::current(),
            created_ns: 3,
            trust_len: 0,
        };
        assert_eq!(Header::read(&obj, None).unwrap(), None, "no header anywhere");
        obj.write_at(&h.to_bytes(), Header::meta_offset(LEN)).unwrap();
        assert_eq!(Header::read(&obj, Some(LEN)).unwrap(), Some(h));
    }

    #[test]
    fn garbage_is_not_a_header() {
        let dir = tempfile::tempdir().unwrap();
        let obj = Object::create(dir.path(), 4096, true).unwrap();
        assert_eq!(Header::read(&obj, None).unwrap(), None);
        obj.set_len(META_LEN + 4096).unwrap();
        assert_eq!(Header::read(&obj, None).unwrap(), None);
    }

    const LEN: u64 = 2 << 20;

    /// A well-formed entry of 2 MiB on device 3, with two trusted pids.
    fn entry(dir: &std::path::Path) -> (Object, Header) {
        let obj = Object::create(dir, LEN, true).unwrap();
        let mut h = Header {
            key: 0x0000_0003_0000_0009,
            data_len: LEN,
            place: Place::Device(3),
            props: [0; 4],
            trust: Trust::Trustlist,
            flags: 0,
            exporter: ProcessId::current(),
            created_ns: 1,
            trust_len: 0,
        };
        h.write_new(&obj).unwrap();
        assert!(h.add_trusted(&obj, &mut TrustIndex::default(), &[7, 8], 2, |pid| pid as u32 + 100).unwrap());
        assert_eq!(Header::read(&obj, None).unwrap().as_ref(), Some(&h));
        (obj, h)
    }

    /// [`entry`] with its list in the tail, as a list longer than
    /// [`INLINE_CAP`] (or one on a file system without attributes) lies.
    fn entry_in_tail(dir: &std::path::Path) -> (Object, Header) {
        let (obj, mut h) = entry(dir);
        assert!(h.inline(), "a short list lies in the attribute");
        let mut buf = Vec::new();
        for g in h.raw_list(&obj).unwrap() {
            buf.extend_from_slice(&g.to_bytes());
        }
        obj.write_at(&buf, h.trust_offset(0)).unwrap();
        h.flags &= !FLAG_TRUST_INLINE;
        h.store(&obj).unwrap();
        assert_eq!(Header::read(&obj, None).unwrap().as_ref(), Some(&h));
        (obj, h)
    }

    /// A short list lies in the header's attribute and is read with it; a
    /// list that outgrows [`INLINE_CAP`] moves to the tail, whole; an
    /// attribute whose length disagrees with its list is no header.
    #[test]
    fn a_short_list_lies_in_the_attribute() {
        let dir = tempfile::tempdir().unwrap();
        let (obj, mut h) = entry(dir.path());
        let mut b = [0u8; ATTR_MAX];
        if obj.get_attr(HEADER_XATTR, &mut b).is_err() {
            eprintln!("no user attributes here: every list lies in the tail");
            return;
        }
        let len = Header::entry_len(LEN);
        let (read, list) = Header::read_with_list(&obj, len, None).unwrap().unwrap();
        assert_eq!(read, h);
        let pids: Vec<(i32, u64)> = list.unwrap().iter().map(|g| (g.pid, g.set_ns)).collect();
        assert_eq!(pids, vec![(7, 2), (8, 2)], "the list came with the header");
        let mut index = TrustIndex::default();
        assert!(h.add_trusted(&obj, &mut index, &[8, 9], 3, |pid| pid as u32 + 100).unwrap());
        assert!(h.inline());
        assert_eq!(pairs(&h, &obj), vec![(7, 2), (8, 3), (9, 3)], "8 refreshed in place, 9 added");
        let more: Vec<i32> = (100..100 + INLINE_CAP as i32).collect();
        assert!(h.add_trusted(&obj, &mut index, &more, 4, |pid| pid as u32 + 100).unwrap());
        assert!(!h.inline(), "past INLINE_CAP the list lies in the tail");
        assert_eq!(Header::read(&obj, None).unwrap().as_ref(), Some(&h));
        let got = pairs(&h, &obj);
        assert_eq!(got.len(), 3 + INLINE_CAP);
        assert_eq!(got[..3], [(7, 2), (8, 3), (9, 3)], "the first entries kept their slots");
        assert!(Header::read_with_list(&obj, len, None).unwrap().unwrap().1.is_none());
        // A change of the header alone (withdrawn) keeps a list in the attribute.
        let (obj2, mut h2) = entry(dir.path());
        h2.flags |= FLAG_WITHDRAWN;
        h2.store(&obj2).unwrap();
        assert_eq!(Header::read(&obj2, None).unwrap().as_ref(), Some(&h2));
        assert_eq!(pairs(&h2, &obj2), vec![(7, 2), (8, 2)], "the list stayed");
        // An inline header whose list is one entry short is no header.
        let (obj, _) = entry(dir.path());
        let n = obj.get_attr(HEADER_XATTR, &mut b).unwrap();
        obj.set_attr(HEADER_XATTR, &b[..n - TRUST_ENTRY as usize]).unwrap();
        assert_eq!(Header::read(&obj, None).unwrap(), None);
    }

    /// Overwrites header word `i` (see `to_bytes`) of the entry in `obj`,
    /// where its header is (the attribute, or the tail).
    fn set_word(obj: &Object, i: u64, value: u64) {
        let at = i as usize * 8;
        let mut b = [0u8; ATTR_MAX];
        if let Ok(n) = obj.get_attr(HEADER_XATTR, &mut b) {
            b[at..at + 8].copy_from_slice(&value.to_le_bytes());
            obj.set_attr(HEADER_XATTR, &b[..n]).unwrap();
        } else {
            obj.write_at(&value.to_le_bytes(), LEN + i * 8).unwrap();
        }
    }

    /// Each kind of damage makes the file "not an entry", whatever else it says.
    #[test]
    fn damaged_entries_are_not_entries() {
        let dir = tempfile::tempdir().unwrap();
        type Damage = (&'static str, fn(&Object));
        let damages: &[Damage] = &[
            ("truncated by one byte", |o| o.set_len(LEN + META_LEN - 1).unwrap()),
            ("truncated into the header", |o| o.set_len(LEN + 64).unwrap()),
            ("truncated to the memory", |o| o.set_len(LEN).unwrap()),
            ("truncated to nothing", |o| o.set_len(0).unwrap()),
            ("extended by a page (wrong length)", |o| o.set_len(LEN + META_LEN + 4096).unwrap()),
            ("extended by one byte", |o| o.set_len(LEN + META_LEN + 1).unwrap()),
            ("bad magic", |o| set_word(o, 0, u64::from_le_bytes(*b"VMMKENT2"))),
            ("magic zeroed", |o| set_word(o, 0, 0)),
            ("device 64", |o| {
                set_word(o, 3, (1 << 32) | 64);
                set_word(o, 1, (64 << 32) | 9);
            }),
            ("device u32::MAX", |o| set_word(o, 3, (1 << 32) | u64::from(u32::MAX))),
            ("unknown place kind 2", |o| set_word(o, 3, (2 << 32) | 3)),
            ("unknown place kind u32::MAX", |o| set_word(o, 3, u64::MAX)),
            ("trust_len TRUST_CAP + 1", |o| set_word(o, 12, TRUST_CAP as u64 + 1)),
            ("trust_len u32::MAX", |o| set_word(o, 12, u64::from(u32::MAX))),
            ("trust_len 2^32 (0 when cut to 32 bits)", |o| set_word(o, 12, 1 << 32)),
            ("data_len 0", |o| set_word(o, 2, 0)),
            ("data_len not whole pages", |o| set_word(o, 2, LEN - 1)),
            ("data_len disagrees with the file", |o| set_word(o, 2, LEN - 4096)),
            ("data_len u64::MAX", |o| set_word(o, 2, u64::MAX)),
            ("key of another device", |o| set_word(o, 1, 0x0000_0004_0000_0009)),
            ("key with high bits", |o| set_word(o, 1, 0x0100_0003_0000_0009)),
            ("exporter pid above u32", |o| set_word(o, 9, 1 << 32)),
        ];
        for (what, damage) in damages {
            let (obj, _) = entry(dir.path());
            damage(&obj);
            assert_eq!(Header::read(&obj, None).unwrap(), None, "{what}");
            assert_eq!(Header::read(&obj, Some(LEN)).unwrap(), None, "{what}, size given");
        }
    }

    /// A well-formed copy of an entry under a name that is not its key is
    /// not an entry.
    #[test]
    fn a_copy_under_another_name_is_not_an_entry() {
        let dir = tempfile::tempdir().unwrap();
        let (obj, h) = entry(dir.path());
        let own = std::ffi::OsString::from(format!("{:016x}", h.key));
        assert_eq!(Header::read_named(&obj, &own).unwrap(), Some(h.clone()));
        for other in ["0000000000000002", "0000000300000009.x", "300000009", "0000000300000009 "] {
            assert_eq!(Header::read_named(&obj, std::ffi::OsStr::new(other)).unwrap(), None, "{other}");
        }
    }

    /// Fields that may hold any value, and the places a key may name.
    #[test]
    fn well_formed_variants_are_entries() {
        let dir = tempfile::tempdir().unwrap();
        let (obj, h) = entry_in_tail(dir.path());
        assert_eq!(Header::read(&obj, Some(LEN - 4096)).unwrap(), None, "another size asked for");
        set_word(&obj, 1, 0);
        assert_eq!(Header::read(&obj, None).unwrap().map(|h| h.key), Some(0), "key 0 is not checked");
        set_word(&obj, 3, (1 << 32) | u64::from(MAX_DEVICES - 1));
        set_word(&obj, 1, (u64::from(MAX_DEVICES - 1) << 32) | 5);
        assert_eq!(Header::read(&obj, None).unwrap().map(|h| h.place), Some(Place::Device(MAX_DEVICES - 1)));
        for node in [0u32, 1, 191, 192, u32::MAX] {
            set_word(&obj, 3, u64::from(node));
            set_word(&obj, 1, (Place::Host(node).key_device() << 32) | 5);
            assert_eq!(Header::read(&obj, None).unwrap().map(|h| h.place), Some(Place::Host(node)), "host {node}");
        }
        set_word(&obj, 12, TRUST_CAP as u64);
        assert_eq!(Header::read(&obj, None).unwrap().map(|h| h.trust_len), Some(TRUST_CAP as u32));
        assert_eq!(pairs(&h, &obj), vec![(7, 2), (8, 2)]);
    }

    /// However long the header says the trustlist is, reading it stays
    /// inside the file and within TRUST_CAP entries.
    #[test]
    fn trustlist_never_reads_past_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let (obj, mut h) = entry_in_tail(dir.path());
        h.trust_len = u32::MAX; // a header held in memory, as read before damage
        assert_eq!(pairs(&h, &obj), vec![(7, 2), (8, 2)], "blank entries up to TRUST_CAP are skipped");
        obj.set_len(LEN + HEADER_LEN + TRUST_ENTRY + 3).unwrap(); // cut after the header was read
        assert_eq!(pairs(&h, &obj), vec![(7, 2)], "only whole entries inside the file");
        obj.set_len(LEN).unwrap();
        assert_eq!(pairs(&h, &obj), vec![]);
        let full = h.add_trusted(&obj, &mut TrustIndex::default(), &[9], 3, |pid| pid as u32 + 100).unwrap();
        assert!(!full, "no room past TRUST_CAP");
    }

    /// The exporter's index answers which pids are listed: a pid listed
    /// before is refreshed in place even where the file's copy of the list
    /// no longer shows it, and the list's file is not read again while the
    /// index describes its length.
    #[test]
    fn kept_index_answers_without_reading_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let (obj, mut h) = entry(dir.path());
        let mut index = TrustIndex::default();
        assert!(h.add_trusted(&obj, &mut index, &[9], 3, |pid| pid as u32 + 100).unwrap());
        assert_eq!(h.trust_len, 3, "7 and 8 read from the file, 9 added");
        // Blank pid 7's entry in the file: only the index still knows it.
        obj.write_at(&[0u8; TRUST_ENTRY as usize], h.trust_offset(0)).unwrap();
        assert!(h.add_trusted(&obj, &mut index, &[7, 10], 4, |pid| pid as u32 + 100).unwrap());
        assert_eq!(h.trust_len, 4, "7 is listed (refreshed in slot 0), 10 is new");
        assert_eq!(pairs(&h, &obj), vec![(7, 4), (8, 2), (9, 3), (10, 4)]);
    }
}
