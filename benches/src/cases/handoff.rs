//! The cross-process handoff: a peer process, kept warm, is sent a
//! shareable handle, imports it, reserves and maps it, reads its first byte
//! (a device-to-host copy) and answers with it. The time is from sending the
//! handle to having the answer; releasing the peer's side afterwards is not
//! measured. The exporter allocated, wrote, exported and added the peer to
//! the trustlist once, beforehand (export has its own bench).
//!
//! Floor: the same socketpair round trip, in which the peer opens a file
//! of the root's file system by name, maps it shared and reads its first
//! byte: `sendmsg` + `recvmsg` each way, `open`, `mmap`, a page fault.

use super::{Entry, Env};
use crate::backend::{Mapped, Mem, Shareable, Va, Vmm};
use crate::error::{BenchError, Result};
use crate::floor;
use crate::peer::Peer;
use crate::peer::wire::Op;
use crate::plan::size_label;
use std::rc::Rc;
use std::time::{Duration, Instant};
use vmmkit_runtime::Sharing;

/// The group.
pub const GROUP: &str = "handoff";
/// The floor's file, in the floor directory.
pub const FLOOR_FILE: &str = "handoff";
/// The byte the exporter writes first, and the peer must read.
const FIRST: u8 = 0xa5;

/// The entries: the backend's handoff of a granule, and the floor. The
/// peer is started here, once for both.
///
/// # Errors
/// The peer could not be started, or the granularity query failed.
pub fn entries(env: &Env) -> Result<Vec<Entry<'_>>> {
    let v = env.vmm();
    let g = v.granularity()?;
    let l = size_label(g);
    let peer = Rc::new(Peer::spawn(env.peer_exe(), env.root(), env.floor_dir())?);
    let p2 = peer.clone();
    let mut shared: Option<Exported<'_>> = None;
    let mut floor_made = false;
    Ok(vec![
        Entry::new(GROUP, v.name(), &l, move |n| {
            if shared.is_none() {
                shared = Some(Exported::new(v, g, peer.host_pid())?);
            }
            let key = shared.as_ref().expect("set above").key;
            round_trips(n, &peer, Op::ImportMapRead, &[key.0, g as u64], Op::ReleaseImport)
        }),
        Entry::new(GROUP, "floor", &l, move |n| {
            if !floor_made {
                floor::named_file(&env.floor_dir().join(FLOOR_FILE), g, FIRST)?;
                floor_made = true;
            }
            round_trips(n, &p2, Op::OpenMapRead, &[g as u64], Op::CloseFloor)
        }),
    ])
}

/// `n` times: `op` measured, then `undo` not.
fn round_trips(n: u64, peer: &Peer, op: Op, args: &[u64], undo: Op) -> Result<Duration> {
    let mut total = Duration::ZERO;
    for _ in 0..n {
        crate::syscalls::begin();
        let t = Instant::now();
        let got = peer.call(op, args);
        total += t.elapsed();
        crate::syscalls::end();
        let got = got?;
        if got != [u64::from(FIRST)] {
            return Err(BenchError::Check(format!("{op:?}: the peer read {got:?}, not [{FIRST}]")));
        }
        peer.call(undo, &[])?;
    }
    Ok(total)
}

/// The exporter's memory: mapped, written, exported, the peer trusted.
struct Exported<'a> {
    v: &'a dyn Vmm,
    held: Option<(Mem, Va, Mapped)>,
    key: Shareable,
}

impl<'a> Exported<'a> {
    fn new(v: &'a dyn Vmm, size: usize, peer: i32) -> Result<Self> {
        let mem = v.alloc(0, size)?;
        let va = v.reserve(size)?;
        let m = v.map(&va, &mem)?;
        let mut me = Self { v, held: None, key: Shareable(0) };
        let r = v.write(&m, 0, &[FIRST]);
        me.held = Some((mem, va, m));
        r?;
        let (mem, ..) = me.held.as_ref().expect("set above");
        me.key = v.export(mem, Sharing::Trustlist)?;
        v.allow(me.key, &[peer])?;
        Ok(me)
    }
}

impl Drop for Exported<'_> {
    fn drop(&mut self) {
        if let Some((mem, va, m)) = self.held.take() {
            let v = self.v;
            if let Err(e) = v.unmap(m).and_then(|()| v.release(va)).and_then(|()| v.free(mem)) {
                eprintln!("handoff bench clean-up: {e}");
            }
        }
    }
}
