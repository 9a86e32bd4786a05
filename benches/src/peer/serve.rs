//! The peer's side: answers requests until it is asked to quit or its
//! parent goes away (the socket reads end-of-file).

use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rustix::process::{Resource, Rlimit};
use vmmkit_testkit::{Channel, RecvError};

use crate::syscalls::Labels;

use super::wire::{self, Op};
use crate::backend::Bk;
use crate::error::{BenchError, Result};
use crate::floor::{self, Range};
use vmmkit_runtime::{Access, Exported, Imported, Location, Mapping, PhysicalMemory, Reservation, Sharing};

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
    // Started by a counted bench process: serve in a traced child of this
    // one, which counts the calls of each measured request.
    let served = match std::env::var_os(crate::syscalls::PEER_ENV) {
        Some(dir) => crate::syscalls::count_peer(Path::new(&dir), |labels| run(&sock, &floor_dir, Some(labels))),
        None => run(&sock, &floor_dir, None),
    };
    match served {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("vmmkit-bench-peer: {e}");
            let _ = sock.send(&wire::error(&e.to_string()), &[]);
            std::process::ExitCode::FAILURE
        }
    }
}

/// Serves until asked to quit; each measured request (the handoff's) is a
/// counting window, labelled in `labels` when the calls are counted.
fn run(sock: &Channel, floor_dir: &Path, mut labels: Option<&mut Labels>) -> Result<()> {
    let b = Bk::open(vmmkit_runtime::Backend::auto().map_err(|e| BenchError::Unsupported(e.to_string()))?)?;
    let pid = b.rt().host_pid()?;
    reply(sock, &[pid as u64])?;
    let mut st = State {
        b: &b,
        floor_dir,
        import: None,
        received: Vec::new(),
        floor: None,
        held: Vec::new(),
        mesh: Mesh::default(),
    };
    loop {
        let (bytes, fds) = match sock.recv(IDLE) {
            Ok(got) => got,
            Err(RecvError::Closed) => {
                st.clear()?; // the bench process went away
                return Ok(());
            }
            Err(e) => return Err(BenchError::Peer(e.to_string())),
        };
        let words = wire::decode(&bytes);
        let Some((&op, args)) = words.split_first() else { continue };
        let op = Op::from_word(op);
        // The measured part of a handoff (from the request to the reply), or
        // one side of an all-to-all of two peers: a counting window.
        let window = op.and_then(|op| measured(op, b.name(), args, fds.len()));
        if window.is_some() {
            crate::syscalls::begin();
        }
        let r = match op {
            Some(Op::Grow) => st.grow(sock, args),
            Some(Op::MeshExport) => st.mesh_export(sock, args),
            Some(Op::MeshFloorExport) => st.mesh_floor_export(sock, args),
            Some(Op::Quit) => st.clear().map(|()| vec![]),
            Some(op) => st.handle(op, args, fds),
            None => Err(BenchError::Peer(format!("unknown request {op:?}"))),
        };
        if let Some(label) = window {
            crate::syscalls::end();
            if let Some(l) = labels.as_deref_mut() {
                l.label(&label)?;
            }
        }
        match r {
            Ok(values) if !replies_itself(op) => reply(sock, &values)?,
            Ok(_) => {}
            Err(e) => send(sock, &wire::error(&e.to_string()))?,
        }
        if op == Some(Op::Quit) {
            return Ok(());
        }
    }
}

/// The requests whose handlers send their own replies (with descriptors, or in parts).
fn replies_itself(op: Option<Op>) -> bool {
    matches!(op, Some(Op::Grow | Op::MeshExport | Op::MeshFloorExport))
}

/// The counting window a request is, labelled as its bench row
/// (`group/row/param`): the handoff's import or one of its floors, or one
/// side of an all-to-all of two peers (`all_to_all_export`,
/// `all_to_all_import`: one export, or one import + reserve + map + grant,
/// beside the floor's file, or its `mmap`); `None` for the rest. An
/// all-to-all of more peers is not counted: its windows hold several imports.
fn measured(op: Op, backend: &'static str, args: &[u64], fds: usize) -> Option<String> {
    let size = |i: usize| crate::plan::size_label(args.get(i).map_or(0, |&s| usize::try_from(s).unwrap_or(0)));
    let pair = |peers: usize| peers == 2;
    match op {
        // The size: ImportMapRead's second argument, the floors' first.
        Op::ImportMapRead => Some(format!("handoff_peer/{backend}/{}", size(1))),
        Op::OpenMapRead => Some(format!("handoff_peer/floor/{}", size(0))),
        Op::MapReadFd => Some(format!("handoff_peer/floor_fd/{}", size(0))),
        Op::MeshExport | Op::MeshFloorExport if pair(args.get(1).map_or(0, |&n| n as usize)) => {
            let row = if op == Op::MeshExport { backend } else { "floor" };
            Some(format!("all_to_all_export/{row}/2"))
        }
        Op::MeshImport if pair(args.len()) => Some(format!("all_to_all_import/{backend}/2")),
        Op::MeshFloorMap if pair(fds + 1) => Some("all_to_all_import/floor/2".to_owned()),
        _ => None,
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
    b: &'a Bk,
    floor_dir: &'a Path,
    /// The import: its mapping first (unmapped before the rest goes).
    import: Option<(Mapping, Reservation, Imported)>,
    /// The descriptors received with the import (HIP, CUDA): closed with
    /// it, after the reply, as the floor closes its file at
    /// [`Op::CloseFloor`], not in the measured round trip.
    received: Vec<OwnedFd>,
    floor: Option<(OwnedFd, Range)>,
    held: Vec<PhysicalMemory>,
    mesh: Mesh,
}

/// What the all-to-all requests keep: the own export, the others' imports
/// (mappings first: unmapped before the rest goes), the descriptors
/// received with them; or the floor's file and mappings.
#[derive(Default)]
struct Mesh {
    own: Option<(Exported, PhysicalMemory)>,
    imports: Vec<(Mapping, Reservation, Imported)>,
    received: Vec<OwnedFd>,
    floor_own: Option<OwnedFd>,
    floor_maps: Vec<(Range, OwnedFd)>,
    held: Vec<Imported>,
}

fn arg(args: &[u64], i: usize) -> Result<u64> {
    args.get(i).copied().ok_or_else(|| BenchError::Peer(format!("argument {i} missing")))
}

fn usize_arg(args: &[u64], i: usize) -> Result<usize> {
    usize::try_from(arg(args, i)?).map_err(|_| BenchError::Peer(format!("argument {i} too large")))
}

impl State<'_> {
    fn handle(&mut self, op: Op, args: &[u64], fds: Vec<OwnedFd>) -> Result<Vec<u64>> {
        match op {
            Op::ImportMapRead => {
                self.release_import()?;
                let (key, size) = (arg(args, 0)?, usize_arg(args, 1)?);
                let b = self.import_map_read(key, fds.first(), size);
                self.received = fds;
                Ok(vec![u64::from(b?)])
            }
            Op::ReleaseImport => self.release_import().map(|()| vec![]),
            Op::OpenMapRead => {
                self.floor = None;
                let size = usize_arg(args, 0)?;
                let (fd, map, b) = floor::open_map_read(&self.floor_dir.join(floor::HANDOFF_FILE), size)?;
                self.floor = Some((fd, map));
                Ok(vec![u64::from(b)])
            }
            Op::MapReadFd => {
                self.floor = None;
                let size = usize_arg(args, 0)?;
                let fd =
                    fds.into_iter().next().ok_or_else(|| BenchError::Peer("MapReadFd without a descriptor".into()))?;
                let map = Range::map_file(&fd, size)?;
                let b = map.first_byte();
                self.floor = Some((fd, map));
                Ok(vec![u64::from(b)])
            }
            Op::CloseFloor => {
                self.floor = None;
                Ok(vec![])
            }
            Op::MeshImport => {
                let size = usize_arg(args, 0)?;
                let d = self.b.dev(0);
                let keys = &args[1..];
                if !fds.is_empty() && fds.len() != keys.len() {
                    return Err(BenchError::Peer(format!("{} keys and {} descriptors", keys.len(), fds.len())));
                }
                for (i, &key) in keys.iter().enumerate() {
                    let mem = match fds.get(i) {
                        Some(fd) => d.import(fd, size)?,
                        None => d.import(key, size)?,
                    };
                    let va = d.reserve(size)?;
                    let m = va.map(0, &mem)?;
                    m.set_access(Location::Device(0), Access::ReadWrite)?;
                    self.mesh.imports.push((m, va, mem));
                }
                self.mesh.received.extend(fds);
                Ok(vec![keys.len() as u64])
            }
            Op::MeshFloorMap => {
                let size = usize_arg(args, 0)?;
                let n = fds.len();
                for fd in fds {
                    let map = Range::map_file(&fd, size)?;
                    self.mesh.floor_maps.push((map, fd));
                }
                Ok(vec![n as u64])
            }
            Op::ImportHold => {
                let size = usize_arg(args, 0)?;
                let keys = &args[1..];
                raise_nofile(self.mesh.held.len() + keys.len())?;
                let d = self.b.dev(0);
                for &key in keys {
                    self.mesh.held.push(d.import(key, size)?);
                }
                Ok(vec![keys.len() as u64])
            }
            Op::MeshRelease => self.release_mesh().map(|()| vec![]),
            Op::Hello | Op::Grow | Op::Quit | Op::MeshExport | Op::MeshFloorExport => {
                Err(BenchError::Peer(format!("{op:?} is not a plain request")))
            }
        }
    }

    /// Import (by `key`, or by `fd` when one came), reserve, map, grant
    /// access, first read: what a consumer of shared memory does.
    fn import_map_read(&mut self, key: u64, fd: Option<&OwnedFd>, size: usize) -> Result<u8> {
        let d = self.b.dev(0);
        let mem = match fd {
            Some(fd) => d.import(fd, size)?,
            None => d.import(key, size)?,
        };
        let va = d.reserve(size)?;
        let m = va.map(0, &mem)?;
        m.set_access(Location::Device(0), Access::ReadWrite)?;
        let mut b = [0u8; 1];
        let r = m.read(0, &mut b);
        self.import = Some((m, va, mem));
        r?;
        Ok(b[0])
    }

    fn release_import(&mut self) -> Result<()> {
        self.received.clear();
        if let Some((m, va, mem)) = self.import.take() {
            m.unmap()?;
            va.free()?;
            mem.free()?;
        }
        Ok(())
    }

    /// All-to-all, export side: allocates and exports, trusting the other
    /// peers (ACL); replies with the key, the fd beside it (HIP, CUDA).
    fn mesh_export(&mut self, sock: &Channel, args: &[u64]) -> Result<Vec<u64>> {
        self.release_mesh()?;
        let size = usize_arg(args, 0)?;
        let pids: Vec<i32> = args.get(2..).unwrap_or_default().iter().map(|&p| p as i32).collect();
        let mem = self.b.dev(0).alloc_physical(size)?;
        let ex = mem.export(self.b.sharing())?;
        if self.b.shares_by_key() && !pids.is_empty() {
            ex.set_pids(&pids)?;
        }
        let words = wire::encode(&[wire::OK, ex.key().unwrap_or(0)]);
        let fds: Vec<_> = ex.fd().into_iter().collect();
        sock.send(&words, &fds).map_err(|e| BenchError::io("send", e))?;
        self.mesh.own = Some((ex, mem));
        Ok(vec![])
    }

    /// The floor's export side: an unnamed file, its fd sent with the reply.
    fn mesh_floor_export(&mut self, sock: &Channel, args: &[u64]) -> Result<Vec<u64>> {
        self.release_mesh()?;
        let fd = floor::tmpfile(self.floor_dir, usize_arg(args, 0)?)?;
        sock.send(&wire::encode(&[wire::OK, 0]), &[fd.as_fd()]).map_err(|e| BenchError::io("send", e))?;
        self.mesh.floor_own = Some(fd);
        Ok(vec![])
    }

    fn release_mesh(&mut self) -> Result<()> {
        let m = std::mem::take(&mut self.mesh);
        for (map, va, mem) in m.imports {
            map.unmap()?;
            va.free()?;
            mem.free()?;
        }
        drop(m.received);
        for mem in m.held {
            mem.free()?;
        }
        if let Some((ex, mem)) = m.own {
            drop(ex);
            mem.free()?;
        }
        Ok(())
    }

    /// Allocates and exports `count` more, replying with the keys in chunks.
    fn grow(&mut self, sock: &Channel, args: &[u64]) -> Result<Vec<u64>> {
        let (count, device, size) = (usize_arg(args, 0)?, arg(args, 1)?, usize_arg(args, 2)?);
        let device = u32::try_from(device).map_err(|_| BenchError::Peer(format!("device {device}")))?;
        raise_nofile(self.held.len() + count)?;
        let mut keys = Vec::with_capacity(count);
        let dev = self.b.rt().device(device)?;
        for _ in 0..count {
            let mem = dev.alloc_physical(size)?;
            let key = mem.export(Sharing::AnyProcess)?.key();
            keys.push(key.ok_or_else(|| BenchError::Unsupported("grow: this vendor shares by fd".into()))?);
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
        self.release_mesh()?;
        self.release_import()?;
        for mem in self.held.drain(..) {
            mem.free()?;
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
