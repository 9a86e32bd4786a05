//! Shared cells: the words of an interprocess event or of a notify, in a
//! one-page file of the root linked under its key in `shared/`, beside the
//! exported memory entries.
//!
//! ```text
//! [0, 64)       the cell's words (core/cell.rs `Words`), mapped by every holder
//! [64, 128)     CellHeader (little-endian u64 words)
//! [128, 500)    the last record's vector clock (core/cell.rs `RecordClock`)
//! [512, 4096)   a notify's trustlist: TRUST_CAP entries of (pid i32, holder stamp u32)
//! ```
//!
//! Holders are kept as for memory entries: every holding process keeps a
//! shared `flock` on its own open file description, which the kernel drops
//! when it exits or dies; whoever can take the lock exclusively is the last
//! and unlinks the file. A file nobody holds is collected by a lookup and by
//! `gc`, as a memory entry is (its header is not a memory header, so it
//! charges nothing).
//!
//! Keys have bit 63 set ([`CELL_KEY_BIT`]); memory keys never do, so the two
//! kinds never answer for each other.

use std::io;

use super::entry::{put_words, word_at};
use super::{LookupError, Registry};
use crate::os::lock;
use crate::os::object::Object;
use crate::os::proc::{self, ProcessId};

/// Bytes of a cell's file.
pub const CELL_FILE_LEN: u64 = 4096;
/// Bit 63 of every shared cell's key.
pub const CELL_KEY_BIT: u64 = 1 << 63;
const MAGIC: u64 = u64::from_le_bytes(*b"VMMKCEL1");
const HEADER_AT: u64 = 64;
const TRUST_AT: u64 = 512;
const TRUST_ENTRY: u64 = 8;
/// Most pids on a notify's trustlist (what fits in the page).
pub const CELL_TRUST_CAP: usize = ((CELL_FILE_LEN - TRUST_AT) / TRUST_ENTRY) as usize;

/// State bit: the creator let go of it; no new open may find it.
const STATE_WITHDRAWN: u64 = 1;
/// State bit: any process may open it (no pid validation).
const STATE_ANY_PROCESS: u64 = 2;

/// What a shared cell is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellKind {
    /// An interprocess event.
    Event,
    /// A notify (ACL).
    Notify,
}

impl CellKind {
    fn code(self) -> u64 {
        match self {
            CellKind::Event => 1,
            CellKind::Notify => 2,
        }
    }
    fn from_code(c: u64) -> Option<Self> {
        match c {
            1 => Some(CellKind::Event),
            2 => Some(CellKind::Notify),
            _ => None,
        }
    }
}

impl std::fmt::Display for CellKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CellKind::Event => "event",
            CellKind::Notify => "notify",
        })
    }
}

/// What a shared cell's file says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CellHeader {
    /// Its key (the file's name).
    pub key: u64,
    /// Event or notify.
    pub kind: CellKind,
    /// The owner's flags (event flags), opaque here.
    pub flags: u32,
    /// The process that made it.
    pub creator: ProcessId,
    /// When it was made (ns after boot).
    pub created_ns: u64,
    /// The creator let go of it.
    pub withdrawn: bool,
    /// Any process may open it (the trustlist is off).
    pub any_process: bool,
    /// Trustlist entries written.
    pub trust_len: u32,
}

const FIELDS: usize = 8;

impl CellHeader {
    fn to_bytes(self) -> [u8; FIELDS * 8] {
        let state =
            if self.withdrawn { STATE_WITHDRAWN } else { 0 } | if self.any_process { STATE_ANY_PROCESS } else { 0 };
        let words: [u64; FIELDS] = [
            MAGIC,
            self.key,
            self.kind.code() | (u64::from(self.flags) << 32),
            u64::from(self.creator.pid),
            self.creator.start,
            self.created_ns,
            state,
            u64::from(self.trust_len),
        ];
        let mut out = [0u8; FIELDS * 8];
        put_words(&mut out, &words);
        out
    }

    /// The header in `b`, if well formed: our magic, a kind we know, a key
    /// with [`CELL_KEY_BIT`], a pid that fits, a trustlist within the page.
    fn from_bytes(b: &[u8; FIELDS * 8]) -> Option<Self> {
        let w = |i: usize| word_at(b, i);
        if w(0) != MAGIC || w(1) & CELL_KEY_BIT == 0 {
            return None;
        }
        let kind = CellKind::from_code(w(2) & 0xffff_ffff)?;
        let trust_len = u32::try_from(w(7)).ok().filter(|&n| n as usize <= CELL_TRUST_CAP)?;
        Some(Self {
            key: w(1),
            kind,
            flags: (w(2) >> 32) as u32,
            creator: ProcessId { pid: u32::try_from(w(3)).ok()?, start: w(4) },
            created_ns: w(5),
            withdrawn: w(6) & STATE_WITHDRAWN != 0,
            any_process: w(6) & STATE_ANY_PROCESS != 0,
            trust_len,
        })
    }

    /// Writes this header into `object`.
    pub fn store(&self, object: &Object) -> io::Result<()> {
        object.write_at(&self.to_bytes(), HEADER_AT)
    }

    /// The header of `object`, if it is a well-formed cell file (exactly
    /// [`CELL_FILE_LEN`] bytes) named `key`.
    pub fn read(object: &Object, key: u64) -> io::Result<Option<Self>> {
        if object.len()? != CELL_FILE_LEN {
            return Ok(None);
        }
        let mut b = [0u8; FIELDS * 8];
        object.read_at(&mut b, HEADER_AT)?;
        Ok(Self::from_bytes(&b).filter(|h| h.key == key))
    }

    /// The trustlist: (pid, holder stamp) pairs.
    pub fn trustlist(&self, object: &Object) -> io::Result<Vec<(i32, u32)>> {
        let n = (self.trust_len as usize).min(CELL_TRUST_CAP);
        let mut buf = vec![0u8; n * TRUST_ENTRY as usize];
        object.read_at(&mut buf, TRUST_AT)?;
        Ok(buf
            .chunks_exact(TRUST_ENTRY as usize)
            .map(|c| {
                let pid = i32::from_le_bytes(c[0..4].try_into().expect("4 bytes"));
                (pid, u32::from_le_bytes(c[4..8].try_into().expect("4 bytes")))
            })
            .filter(|(pid, _)| *pid != 0)
            .collect())
    }

    /// Whether the process `me` may open it: any process, the creator, or a
    /// pid on the trustlist set while `me` had it (its holder stamp matches:
    /// from its start time, which `me` carries, without a look in `/proc`).
    pub fn admits(&self, object: &Object, me: ProcessId) -> io::Result<bool> {
        if self.any_process || self.creator == me {
            return Ok(true);
        }
        let Ok(pid) = i32::try_from(me.pid) else { return Ok(false) };
        let stamp = if me.start != 0 { proc::stamp(me.start) } else { proc::holder_stamp(pid) };
        Ok(self.trustlist(object)?.iter().any(|&(p, h)| p == pid && h == stamp))
    }
}

/// A shared cell this process holds (a shared lock on its own open file
/// description of it).
#[derive(Debug)]
pub struct HeldCell {
    /// The file, with this process's hold on it.
    pub object: Object,
    /// Its header as read or written.
    pub header: CellHeader,
    /// This is the creator's own hold, made with the cell (not an open of
    /// its key, even in the creating process): its release withdraws the cell.
    pub creating: bool,
}

impl Registry {
    /// A fresh key for a shared cell.
    fn new_cell_key(&self) -> u64 {
        CELL_KEY_BIT | u64::from(self.state.next_share_id())
    }

    /// Makes a shared cell of `kind` for this process, held by it and linked
    /// into the root under a fresh key. Its words are all zero but `flags`,
    /// which the header keeps too.
    ///
    /// When the root's file system has no inode or space left for it, what
    /// dead processes left is collected and the creation tried once more.
    pub fn cell_create(&self, kind: CellKind, flags: u32) -> io::Result<HeldCell> {
        self.with_room(|| self.cell_make(kind, flags))
    }

    fn cell_make(&self, kind: CellKind, flags: u32) -> io::Result<HeldCell> {
        let object = Object::create(&self.root, CELL_FILE_LEN, !self.exact_modes)?;
        if !lock::try_shared(&object)? {
            return Err(io::Error::other("a fresh cell file is locked by someone else"));
        }
        let mut header = CellHeader {
            key: self.new_cell_key(),
            kind,
            flags,
            creator: self.me,
            created_ns: proc::boot_time_ns(),
            withdrawn: false,
            any_process: false,
            trust_len: 0,
        };
        let mut tries = 0;
        loop {
            header.store(&object)?;
            match object.link(&self.entry_path(header.key)) {
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && tries < 64 => {
                    tries += 1;
                    header.key = self.new_cell_key();
                }
                Err(e) => return Err(e),
                Ok(()) => return Ok(HeldCell { object, header, creating: true }),
            }
        }
    }

    /// Finds the shared cell `key` and takes a hold on it. A cell nobody
    /// holds (its creator and openers all died) is collected here, and the
    /// key is unknown; so is one its creator let go of.
    pub fn cell_open(&self, key: u64) -> Result<HeldCell, LookupError> {
        let io = |source| LookupError::Io { key, source };
        if key & CELL_KEY_BIT == 0 {
            return Err(LookupError::Unknown(key));
        }
        let object = self.open_entry(key)?;
        if lock::try_exclusive(&object).map_err(io)? {
            self.cell_unlink(&object, key).map_err(io)?;
            return Err(LookupError::Unknown(key));
        }
        if !lock::try_shared(&object).map_err(io)? {
            return Err(LookupError::Releasing(key));
        }
        // From here on this process holds the cell: a refusal lets go as any
        // holder does, and removes the file when it was the last. The
        // creator's destroy may have withdrawn it, and seen this hold, after
        // our lock: then nobody else is left to remove it.
        let header = match object.is_linked() {
            Ok(true) => CellHeader::read(&object, key),
            Ok(false) => Ok(None),
            Err(e) => Err(e),
        };
        match header {
            Ok(Some(header)) if !header.withdrawn => Ok(HeldCell { object, header, creating: false }),
            Ok(_) => {
                self.cell_let_go(&object, key).map_err(io)?;
                Err(LookupError::Unknown(key))
            }
            Err(e) => {
                let _ = self.cell_let_go(&object, key);
                Err(io(e))
            }
        }
    }

    /// Gives up this process's hold on a cell without withdrawing it (an
    /// open that was refused after it took its hold): the last holder
    /// removes the file.
    pub fn cell_drop(&self, cell: HeldCell) -> io::Result<()> {
        self.cell_let_go(&cell.object, cell.header.key)
    }

    /// Lets go of the hold `object` has (dropping it closes the description):
    /// removes the file when no other process holds it. A conversion to an
    /// exclusive lock that fails drops the shared one (the kernel removes the
    /// old lock before it looks for conflicts: seen on Linux 6.18), so of
    /// processes letting go at once the last to try always succeeds.
    fn cell_let_go(&self, object: &Object, key: u64) -> io::Result<()> {
        if lock::try_exclusive(object)? {
            self.cell_unlink(object, key)?;
        }
        Ok(())
    }

    /// Adds `pids` to the trustlist of a cell this process made (each with
    /// the holder stamp of the process that has it now: for a live process
    /// of the root, from its slot's start time, [`State::live_starts`]; for
    /// any other, from `/proc`). `false` when the list has no room for the
    /// new ones.
    ///
    /// [`State::live_starts`]: super::state::State::live_starts
    pub fn cell_trust(&self, cell: &mut HeldCell, pids: &[i32]) -> io::Result<bool> {
        let starts = self.state.live_starts(pids);
        let holder = |pid: i32| starts.get(&pid).map_or_else(|| proc::holder_stamp(pid), |&s| proc::stamp(s));
        let listed = cell.header.trustlist(&cell.object)?;
        let mut fresh: Vec<i32> = Vec::new();
        for &p in pids {
            if p != 0 && !fresh.contains(&p) && !listed.iter().any(|&(l, _)| l == p) {
                fresh.push(p);
            }
        }
        let entry = |pid: i32| {
            let mut e = [0u8; TRUST_ENTRY as usize];
            e[0..4].copy_from_slice(&pid.to_le_bytes());
            e[4..8].copy_from_slice(&holder(pid).to_le_bytes());
            e
        };
        // Listed pids are stamped again (a new process with the pid is now the trusted one).
        for (i, &(l, _)) in listed.iter().enumerate() {
            if pids.contains(&l) {
                cell.object.write_at(&entry(l), TRUST_AT + i as u64 * TRUST_ENTRY)?;
            }
        }
        let start = cell.header.trust_len as usize;
        if start + fresh.len() > CELL_TRUST_CAP {
            return Ok(false);
        }
        for (i, &p) in fresh.iter().enumerate() {
            cell.object.write_at(&entry(p), TRUST_AT + (start + i) as u64 * TRUST_ENTRY)?;
        }
        cell.header.trust_len += fresh.len() as u32;
        cell.header.store(&cell.object)?;
        Ok(true)
    }

    /// Turns the trustlist of a cell this process made off (any process may
    /// open it) or on.
    pub fn cell_set_any_process(&self, cell: &mut HeldCell, any: bool) -> io::Result<()> {
        cell.header.any_process = any;
        cell.header.store(&cell.object)
    }

    /// Gives up this process's hold on a cell. The release of the creator's
    /// own hold marks it withdrawn (no new open finds it); an open of its key
    /// in the creating process lets go as any other does. The last holder
    /// unlinks it.
    pub fn cell_release(&self, mut cell: HeldCell) -> io::Result<()> {
        if cell.creating && !cell.header.withdrawn {
            cell.header.withdrawn = true;
            cell.header.store(&cell.object)?;
        }
        self.cell_let_go(&cell.object, cell.header.key)
    }

    fn cell_unlink(&self, object: &Object, key: u64) -> io::Result<()> {
        if !object.is_linked()? {
            return Ok(());
        }
        match std::fs::remove_file(self.entry_path(key)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

impl Registry {
    /// The header of the shared cell `key`, read without taking a hold.
    pub fn cell_peek(&self, key: u64) -> Result<CellHeader, LookupError> {
        let io = |source| LookupError::Io { key, source };
        if key & CELL_KEY_BIT == 0 {
            return Err(LookupError::Unknown(key));
        }
        let object = self.open_entry(key)?;
        match CellHeader::read(&object, key).map_err(io)? {
            Some(h) if !h.withdrawn => Ok(h),
            _ => Err(LookupError::Unknown(key)),
        }
    }
}
