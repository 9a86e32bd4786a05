//! The journal directory of a run, read back one record at a time.
//!
//! The directory is opened before the program starts and read through that
//! descriptor, so a program that renames it is still reported on. A program
//! that removes it (`rm -rf "$VMMKIT_JOURNAL"`) removes the journals in it:
//! the report then says that the directory was removed and that the
//! processes whose journals were in it are missing from it.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use anyhow::Context;
use rustix::fs::{Mode, OFlags};
use vmmkit_emulator::journal::Record;

/// What the reader buffers of a journal file at a time.
const BUFFER: usize = 64 << 10;

/// One step of reading the journals.
#[derive(Debug)]
pub enum Item<'a> {
    /// The records that follow are those of this pid.
    Process(u32),
    /// A record of the last process named.
    Record(&'a Record),
}

/// What reading the journals found besides the records.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reading {
    /// Journals read.
    pub journals: usize,
    /// Records read.
    pub records: u64,
    /// Lines that did not parse (a damaged file), skipped.
    pub skipped: u64,
    /// Whether the directory was removed during the run.
    pub removed: bool,
    /// Journals that could not be read, and why.
    pub errors: Vec<String>,
}

impl Reading {
    /// What the report must add: what is missing from it, and why. Empty
    /// when everything was read.
    pub fn notes(&self, path: &Path) -> Vec<String> {
        let mut notes = Vec::new();
        if self.removed {
            notes.push(format!(
                "the journal directory ({}, $VMMKIT_JOURNAL) was removed during the run: the processes whose \
                 journals were in it are missing from this report",
                path.display()
            ));
        }
        if self.skipped > 0 {
            notes.push(format!("{} damaged journal line(s) skipped", self.skipped));
        }
        notes.extend(self.errors.iter().cloned());
        notes
    }
}

/// The journal directory, open.
#[derive(Debug)]
pub struct JournalDir {
    path: PathBuf,
    fd: OwnedFd,
}

impl JournalDir {
    /// Opens `path`, a directory.
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let fd = rustix::fs::open(path, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .with_context(|| format!("opening the journal directory {}", path.display()))?;
        Ok(Self { path: path.to_path_buf(), fd })
    }

    /// Its path when the run started.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The pids of the journals (`<pid>.jsonl`) in it, in order.
    fn pids(&self) -> std::io::Result<Vec<u32>> {
        let mut pids = Vec::new();
        for e in rustix::fs::Dir::read_from(&self.fd)? {
            let e = e?;
            let Some(stem) = e.file_name().to_str().ok().and_then(|n| n.strip_suffix(".jsonl")) else { continue };
            if let Ok(pid) = stem.parse() {
                pids.push(pid);
            }
        }
        pids.sort_unstable();
        Ok(pids)
    }

    /// Reads every journal, by pid, one record at a time into `each`: an
    /// [`Item::Process`] before the records of each. Holds one record and
    /// a buffer of `BUFFER` bytes (64 KiB) at a time.
    pub fn read(&self, mut each: impl FnMut(Item<'_>)) -> Reading {
        let mut reading =
            Reading { removed: rustix::fs::fstat(&self.fd).is_ok_and(|s| s.st_nlink == 0), ..Reading::default() };
        let pids = match self.pids() {
            Ok(p) => p,
            Err(e) => {
                reading.errors.push(format!("the journal directory {} could not be read: {e}", self.path.display()));
                return reading;
            }
        };
        let mut line = Vec::new();
        for pid in pids {
            let name = format!("{pid}.jsonl");
            let file =
                match rustix::fs::openat(&self.fd, name.as_str(), OFlags::RDONLY | OFlags::CLOEXEC, Mode::empty()) {
                    Ok(fd) => File::from(fd),
                    Err(e) => {
                        reading.errors.push(format!("the journal of process {pid} could not be read: {e}"));
                        continue;
                    }
                };
            reading.journals += 1;
            each(Item::Process(pid));
            let mut r = BufReader::with_capacity(BUFFER, file);
            loop {
                line.clear();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) => break,
                    Ok(_) => match serde_json::from_slice::<Record>(&line) {
                        Ok(rec) => {
                            reading.records += 1;
                            each(Item::Record(&rec));
                        }
                        Err(_) => reading.skipped += 1,
                    },
                    Err(e) => {
                        reading.errors.push(format!("the journal of process {pid} could not be read to its end: {e}"));
                        break;
                    }
                }
            }
        }
        reading
    }
}
