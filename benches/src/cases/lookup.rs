//! Import lookup with 10, 1,000 and 100,000 live exported handles (10,000
//! in the quick plan): the time of a first import (and its free) of a
//! handle that another process exported, while that many exports are live.
//! The registry finds an entry by its key with one path lookup, so the time
//! should not grow with the count; the target is 100,000 at most 1.2 × 10.
//!
//! The exports are held by peer processes ("holders"), each keeping up to
//! 16,000 (one open file each: the hold on an entry is a lock on an open
//! file description, and the hard limit of open files per process may be
//! as low as 20,000). They are added once per process, growing from one
//! count to the next, and the time that takes goes in the run record. Each
//! iteration imports the next handle of a fixed stride through all of them
//! onto device 0 and frees it, so consecutive lookups touch different
//! entries.
//!
//! No floor in the group: the reference is the same operation at the
//! smallest count. Beside it, `hot10` is the largest count again with only
//! the first 10 handles imported in turn, which tells cold caches (the
//! kernel's dentries and inodes of 100,000 files) from the cost of the
//! registry's size. On the emulator, `floor` makes the system calls of a
//! lookup (`open`, `flock`, `fstat`, `pread`, `close`) on the same entry
//! files, at each count: how the kernel itself fares with that many.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rustix::process::Resource;

use super::{Entry, Env, timed};
use crate::backend::Bk;
use crate::error::Result;
use crate::peer::Peer;

/// The group.
pub const GROUP: &str = "import_lookup";
/// Most exports one holder keeps.
const PER_HOLDER_MAX: usize = 16_000;
/// How long a holder may take to add its share.
const GROW_DEADLINE: Duration = Duration::from_secs(600);

/// The entries: per backend that shares by key (ACL), one per count,
/// sharing the holders. HIP and CUDA share by fd: no registry of keys to
/// look up, no entries (a note says so).
///
/// # Errors
/// The granularity query failed.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let mut out: Vec<Entry<'_>> = Vec::new();
    for b in env.backends() {
        if b.shares_by_key() {
            out.extend(backend_entries(env, b)?);
        } else {
            env.note(format!("{GROUP}: {} skipped: it shares by fd, there is no key to look up", b.name()));
        }
    }
    Ok(out)
}

fn backend_entries<'a>(env: &'a Env, b: &'a Bk) -> Result<Vec<Entry<'a>>> {
    let size = b.granularity()?;
    let d = b.dev(0);
    let hard = rustix::process::getrlimit(Resource::Nofile).maximum.unwrap_or(u64::MAX);
    let per = PER_HOLDER_MAX.min(usize::try_from(hard.saturating_sub(512)).unwrap_or(usize::MAX)).max(1);
    let holders = Rc::new(RefCell::new(Holders {
        env,
        backend: b.name(),
        peers: Vec::new(),
        counts: Vec::new(),
        keys: Vec::new(),
        per,
        size,
        devices: b.rt().device_count()?,
    }));
    let counts = env.plan.lookup_counts();
    let entry = |function: String, count: usize, cycled: usize| {
        let holders = holders.clone();
        let mut at = 0usize;
        Entry::new(GROUP, function, count.to_string(), move |n| {
            holders.borrow_mut().grow_to(count)?;
            let h = holders.borrow();
            let keys = &h.keys[..cycled];
            let stride = stride_for(cycled);
            timed(n, |_| {
                at = (at + stride) % cycled;
                Ok(d.import(keys[at], size)?.free()?)
            })
        })
    };
    let mut out: Vec<Entry<'_>> = Vec::new();
    for &c in counts {
        out.push(entry(b.name().to_owned(), c, c));
        if b.rt().backend().is_emulator() {
            out.push(floor_entry(env, &holders, c, size));
        }
    }
    // The largest count again, importing only the first HOT of the handles in
    // turn: the same registry, but its entries stay in the CPU caches. Beside
    // the smallest count it tells the cost of the registry's size (none, for
    // a lookup by name) from the cost of cold caches.
    if let (Some(&small), Some(&large)) = (counts.first(), counts.last())
        && large > small
    {
        out.push(entry(format!("hot{small}"), large, small));
    }
    Ok(out)
}

/// The floor at `count` live handles: the system calls of a lookup, made on
/// the emulator's entry files themselves (`shared/<key as 16 hex digits>`
/// in the root, docs/emulator.md), in the same order as the lookups.
fn floor_entry<'a>(env: &'a Env, holders: &Rc<RefCell<Holders<'a>>>, count: usize, size: usize) -> Entry<'a> {
    let holders = holders.clone();
    let shared = env.root().join("shared");
    let mut at = 0usize;
    Entry::new(GROUP, "floor", count.to_string(), move |n| {
        holders.borrow_mut().grow_to(count)?;
        let paths: Vec<_> = holders.borrow().keys[..count].iter().map(|k| shared.join(format!("{k:016x}"))).collect();
        let stride = stride_for(count);
        // The header follows the memory, at the next 4 KiB boundary.
        let offset = size.next_multiple_of(4096) as u64;
        timed(n, |_| {
            at = (at + stride) % count;
            crate::floor::lookup(&paths[at], offset, 128)
        })
    })
}

/// A step through `n` entries that visits every one (coprime with `n`)
/// and jumps far between consecutive ones.
fn stride_for(n: usize) -> usize {
    if n <= 1 {
        return 0;
    }
    let mut s = (n as f64 * 0.618_033_988_7) as usize | 1;
    while gcd(s, n) != 1 {
        s += 2;
    }
    s % n
}

fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The holder processes and the keys they exported, in order.
struct Holders<'a> {
    env: &'a Env,
    /// The backend the holders open (`VMMKIT_BACKEND`).
    backend: &'static str,
    peers: Vec<Peer>,
    /// Exports kept by each holder.
    counts: Vec<usize>,
    keys: Vec<u64>,
    per: usize,
    size: usize,
    devices: u32,
}

impl Holders<'_> {
    /// Adds exports until `n` are live, holders working in parallel.
    fn grow_to(&mut self, n: usize) -> Result<()> {
        if self.keys.len() >= n {
            return Ok(());
        }
        let t = Instant::now();
        let before = (self.keys.len(), self.peers.len());
        let mut need = n - self.keys.len();
        let mut asks = Vec::new();
        while need > 0 {
            let i = match self.counts.last() {
                Some(&c) if c < self.per => self.counts.len() - 1,
                _ => {
                    self.peers.push(Peer::spawn(
                        self.env.peer_exe(),
                        self.backend,
                        self.env.root(),
                        self.env.floor_dir(),
                    )?);
                    self.counts.push(0);
                    self.counts.len() - 1
                }
            };
            let k = need.min(self.per - self.counts[i]);
            let device = i as u32 % self.devices.max(1);
            self.peers[i].send(crate::peer::wire::Op::Grow, &[k as u64, u64::from(device), self.size as u64])?;
            asks.push(i);
            self.counts[i] += k;
            need -= k;
        }
        for i in asks {
            let keys = self.peers[i].collect_grow(GROW_DEADLINE)?;
            self.keys.extend(keys);
        }
        self.env.note(format!(
            "{GROUP}: set-up from {} to {n} live exported handles ({} more holder process(es), {} in all) took {:.2} s",
            before.0,
            self.peers.len() - before.1,
            self.peers.len(),
            t.elapsed().as_secs_f64()
        ));
        Ok(())
    }
}

impl Drop for Holders<'_> {
    fn drop(&mut self) {
        if self.peers.is_empty() {
            return;
        }
        let t = Instant::now();
        let n = self.keys.len();
        self.peers.clear(); // each frees what it exported, then exits
        self.env.note(format!(
            "{GROUP}: tear-down of {n} exported handles (freed by their holders, one holder after the other) took {:.2} s",
            t.elapsed().as_secs_f64()
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strides_visit_every_entry() {
        for n in [1, 2, 10, 100, 1_000, 10_000, 100_000] {
            let s = stride_for(n);
            let mut seen = vec![false; n];
            let mut at = 0;
            for _ in 0..n {
                at = (at + s) % n;
                seen[at] = true;
            }
            assert!(seen.iter().all(|&b| b), "{n}");
        }
    }
}
