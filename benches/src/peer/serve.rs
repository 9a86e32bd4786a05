//! The peer's side: answers requests until it is asked to quit or its
//! parent goes away (the socket reads end-of-file).

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rustix::process::{Resource, Rlimit};
use vmmkit_testkit::{Channel, RecvError};

use super::wire::{self, Op};
use crate::backend::{Mapped, Mem, Shareable, Va, Vmm};
use crate::error::{BenchError, Result};
use crate::floor::{self, Range};
use vmmkit_runtime::Sharing;

/// How long the peer waits for the next request: a bench group may run for
/// long between two (it dies with its bench process in any case).
const IDLE: Duration = Duration::from_secs(24 * 3600);

/// The peer executable's main: takes the channel its bench process gave it
/// as stdin, opens the backend, says hello and serves. Returns the exit code.
pub fn main() -> std::process::ExitCode {
    let sock = match vmmkit_testkit::peer::serve_channel() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("vmmkit-bench-peer: stdin must be the channel of a bench process: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let floor_dir = std::env::var_os(super::FLOOR_ENV).map(PathBuf::from).unwrap_or_default();
    match run(&sock, &floor_dir) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vmmkit-bench-peer: {e}");
            let _ = sock.send(&wire::error(&e.to_string()), &[]);
            std::process::ExitCode::FAILURE
        }
    }
}

fn run(sock: &Channel, floor_dir: &Path) -> Result<()> {
    let vmm = crate::backend::open()?;
    let pid = vmm.host_pid()?;
    reply(sock, &[pid as u64])?;
    let mut st = State { vmm: vmm.as_ref(), floor_dir, import: None, floor: None, held: Vec::new() };
    loop {
        let bytes = match sock.recv(IDLE) {
            Ok((bytes, _fds)) => bytes,
            Err(RecvError::Closed) => {
                st.clear()?; // the bench process went away
                return Ok(());
            }
            Err(e) => return Err(BenchError::Peer(e.to_string())),
        };
        let words = wire::decode(&bytes);
        let Some((&op, args)) = words.split_first() else { continue };
        let op = Op::from_word(op);
        let r = match op {
            Some(Op::Grow) => st.grow(sock, args),
            Some(Op::Quit) => st.clear().map(|()| vec![]),
            Some(op) => st.handle(op, args),
            None => Err(BenchError::Peer(format!("unknown request {op:?}"))),
        };
        match r {
            Ok(values) if op != Some(Op::Grow) => reply(sock, &values)?,
            Ok(_) => {}
            Err(e) => send(sock, &wire::error(&e.to_string()))?,
        }
        if op == Some(Op::Quit) {
            return Ok(());
        }
    }
}

fn send(sock: &Channel, bytes: &[u8]) -> Result<()> {
    sock.send(bytes, &[]).map_err(|e| BenchError::io("send", e))
}

fn reply(sock: &Channel, values: &[u64]) -> Result<()> {
    let mut words = vec![wire::OK];
    words.extend_from_slice(values);
    send(sock, &wire::encode(&words))
}

/// What the peer keeps between requests.
struct State<'a> {
    vmm: &'a dyn Vmm,
    floor_dir: &'a Path,
    import: Option<(Mem, Va, Mapped)>,
    floor: Option<(OwnedFd, Range)>,
    held: Vec<Mem>,
}

fn arg(args: &[u64], i: usize) -> Result<u64> {
    args.get(i).copied().ok_or_else(|| BenchError::Peer(format!("argument {i} missing")))
}

fn usize_arg(args: &[u64], i: usize) -> Result<usize> {
    usize::try_from(arg(args, i)?).map_err(|_| BenchError::Peer(format!("argument {i} too large")))
}

impl State<'_> {
    fn handle(&mut self, op: Op, args: &[u64]) -> Result<Vec<u64>> {
        match op {
            Op::ImportMapRead => {
                self.release_import()?;
                let (key, size) = (arg(args, 0)?, usize_arg(args, 1)?);
                let b = self.import_map_read(Shareable(key), size)?;
                Ok(vec![u64::from(b)])
            }
            Op::ReleaseImport => self.release_import().map(|()| vec![]),
            Op::OpenMapRead => {
                self.floor = None;
                let size = usize_arg(args, 0)?;
                let (fd, map, b) = floor::open_map_read(&self.floor_dir.join(crate::cases::handoff::FLOOR_FILE), size)?;
                self.floor = Some((fd, map));
                Ok(vec![u64::from(b)])
            }
            Op::CloseFloor => {
                self.floor = None;
                Ok(vec![])
            }
            Op::Hello | Op::Grow | Op::Quit => Err(BenchError::Peer(format!("{op:?} is not a plain request"))),
        }
    }

    /// Import, reserve, map, first read: what a consumer of shared memory does.
    fn import_map_read(&mut self, key: Shareable, size: usize) -> Result<u8> {
        let v = self.vmm;
        let mem = v.import(key, 0, size)?;
        let va = match v.reserve(size) {
            Ok(va) => va,
            Err(e) => {
                let _ = v.free(mem);
                return Err(e);
            }
        };
        let m = match v.map(&va, &mem) {
            Ok(m) => m,
            Err(e) => {
                let _ = v.release(va);
                let _ = v.free(mem);
                return Err(e);
            }
        };
        let mut b = [0u8; 1];
        let r = v.read(&m, 0, &mut b);
        self.import = Some((mem, va, m));
        r.map(|()| b[0])
    }

    fn release_import(&mut self) -> Result<()> {
        if let Some((mem, va, m)) = self.import.take() {
            let v = self.vmm;
            v.unmap(m)?;
            v.release(va)?;
            v.free(mem)?;
        }
        Ok(())
    }

    /// Allocates and exports `count` more, replying with the keys in chunks.
    fn grow(&mut self, sock: &Channel, args: &[u64]) -> Result<Vec<u64>> {
        let (count, device, size) = (usize_arg(args, 0)?, arg(args, 1)?, usize_arg(args, 2)?);
        let device = u32::try_from(device).map_err(|_| BenchError::Peer(format!("device {device}")))?;
        raise_nofile(self.held.len() + count)?;
        let mut keys = Vec::with_capacity(count);
        for _ in 0..count {
            let mem = self.vmm.alloc(device, size)?;
            match self.vmm.export(&mem, Sharing::AnyProcess) {
                Ok(k) => keys.push(k.0),
                Err(e) => {
                    let _ = self.vmm.free(mem);
                    return Err(e);
                }
            }
            self.held.push(mem);
        }
        let mut chunks = keys.chunks(wire::KEYS_PER_REPLY).peekable();
        if chunks.peek().is_none() {
            reply(sock, &[0])?;
        }
        while let Some(c) = chunks.next() {
            let more = u64::from(chunks.peek().is_some());
            let mut words = vec![more];
            words.extend_from_slice(c);
            reply(sock, &words)?;
        }
        Ok(keys)
    }

    /// Gives back everything kept.
    fn clear(&mut self) -> Result<()> {
        self.floor = None;
        self.release_import()?;
        for mem in self.held.drain(..) {
            self.vmm.free(mem)?;
        }
        Ok(())
    }
}

/// Raises the soft limit of open files to hold `handles` exported
/// allocations (one open file each) plus some room, up to the hard limit.
fn raise_nofile(handles: usize) -> Result<()> {
    let want = handles as u64 + 256;
    let lim = rustix::process::getrlimit(Resource::Nofile);
    if lim.current.is_none_or(|c| c >= want) {
        return Ok(());
    }
    if lim.maximum.is_some_and(|m| m < want) {
        return Err(BenchError::Check(format!(
            "{handles} exported allocations need {want} open files; the hard limit is {:?}",
            lim.maximum
        )));
    }
    rustix::process::setrlimit(Resource::Nofile, Rlimit { current: Some(want), maximum: lim.maximum })
        .map_err(|e| BenchError::io("setrlimit(RLIMIT_NOFILE)", e))
}
