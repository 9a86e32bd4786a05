//! CUDA peers: the `vmmkit` binary run again (`vmmkit __cuda_peer`) as the
//! second process of a multi-process CUDA rule, the importer of an IPC
//! handle. The suite's ACL peers (`crate::peer`) speak ACL; this one speaks
//! CUDA over the same channel ([`Channel`]: one JSON packet per request and
//! per reply, a deadline on every wait). A peer that dies is a failure that
//! says how it ended; a live one is killed when its [`Peer`] is dropped, and
//! dies with its parent.
#![forbid(unsafe_code)]

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd};
use std::path::PathBuf;
use std::process::{Child, Command, ExitCode, Stdio};
use std::ptr;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use vmmkit_sys::cuda::*;

use super::Cuda;
use crate::backend::{self, BackendKind};
use crate::outcome::Failure;
use crate::pattern;
use crate::peer::channel::{Channel, RecvError, wait_readable};
use crate::peer::{EXIT_TIMEOUT, REPLY_TIMEOUT, describe_exit};

/// How long a peer waits for its next request before giving up.
const IDLE_TIMEOUT: Duration = Duration::from_secs(60);

/// What a check asks its CUDA peer to do; every request gets one [`Reply`]
/// whose `code` is the `CUresult` of the call named.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// `cuInit(0)`, then device `device`'s primary context retained and made current.
    Start {
        /// The device ordinal.
        device: i32,
    },
    /// `cuIpcOpenMemHandle_v2` of the 64 handle bytes: `value` is the pointer.
    Open {
        /// The handle, as the exporter's bytes.
        handle: Vec<u8>,
        /// `Flags`.
        flags: u32,
    },
    /// `cuIpcCloseMemHandle(ptr)`.
    Close {
        /// The pointer Open returned.
        ptr: u64,
    },
    /// Reads `len` bytes at `ptr`: `value` is 1 when they are the pattern
    /// `seed`; otherwise `text` names the first differing byte.
    Verify {
        /// Device address.
        ptr: u64,
        /// Bytes.
        len: u64,
        /// Pattern seed.
        seed: u8,
    },
    /// Writes the pattern `seed` over `len` bytes at `ptr`.
    Fill {
        /// Device address.
        ptr: u64,
        /// Bytes.
        len: u64,
        /// Pattern seed.
        seed: u8,
    },
    /// The fd that comes with the request (`SCM_RIGHTS`) imported by value
    /// (`cuMemImportFromShareableHandle`), then closed; the handle reserved,
    /// mapped, released (the mapping holds it), made read-write for the
    /// current device; then `size` bytes read: `value` is the address, and
    /// `text` names a differing byte when they are not the pattern `seed`.
    ImportMap {
        /// Bytes.
        size: u64,
        /// Pattern seed.
        seed: u8,
    },
    /// `cuMemUnmap` and `cuMemAddressFree` of `size` bytes at `ptr`.
    UnmapFree {
        /// Device address.
        ptr: u64,
        /// Bytes.
        size: u64,
    },
    /// Replies, then exits with status 0.
    Exit,
}

/// The peer's answer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reply {
    /// The `CUresult` of the call (0 on success).
    pub code: u32,
    /// A result value (a pointer, a flag).
    pub value: u64,
    /// The call that failed, or what differed.
    pub text: String,
}

impl Request {
    fn op(&self) -> &'static str {
        match self {
            Self::Start { .. } => "start",
            Self::Open { .. } => "open",
            Self::Close { .. } => "close",
            Self::Verify { .. } => "verify",
            Self::Fill { .. } => "fill",
            Self::ImportMap { .. } => "import_map",
            Self::UnmapFree { .. } => "unmap_free",
            Self::Exit => "exit",
        }
    }
}

/// What starts a peer: the suite's executable and the check's backend.
#[derive(Debug, Clone)]
pub struct Launcher {
    /// The `vmmkit` binary.
    pub exe: PathBuf,
    /// The backend the check runs on.
    pub backend: BackendKind,
    /// The vendor library, for a real backend.
    pub library: Option<PathBuf>,
}

/// A running CUDA peer.
#[derive(Debug)]
pub struct Peer {
    name: String,
    child: Child,
    chan: Channel,
}

impl Peer {
    /// Starts a peer named `name` and has it make device `device`'s primary context current.
    ///
    /// # Errors
    /// [`Failure::Peer`] when it cannot start; a setup failure when its context cannot be made.
    pub fn start(launcher: &Launcher, name: &str, device: i32) -> Result<Self, Failure> {
        let (mine, theirs) = Channel::pair().map_err(|e| Failure::Peer(format!("peer {name}: socketpair: {e}")))?;
        let mut cmd = Command::new(&launcher.exe);
        cmd.arg("__cuda_peer").arg("--backend").arg(launcher.backend.name());
        if let Some(lib) = &launcher.library {
            cmd.arg("--library").arg(lib);
        }
        let child = cmd
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| Failure::Peer(format!("peer {name}: cannot start {}: {e}", launcher.exe.display())))?;
        let mut p = Self { name: name.into(), child, chan: mine };
        p.setup(&Request::Start { device })?;
        Ok(p)
    }

    /// Sends `req` and waits for the reply.
    ///
    /// # Errors
    /// [`Failure::Peer`] when the peer dies, does not answer in
    /// [`REPLY_TIMEOUT`], or answers garbage.
    pub fn call(&mut self, req: &Request) -> Result<Reply, Failure> {
        self.call_fds(req, &[])
    }

    /// Sends `req` with `fds` attached (`SCM_RIGHTS`) and waits for the reply.
    ///
    /// # Errors
    /// As [`Peer::call`].
    pub fn call_fds(&mut self, req: &Request, fds: &[BorrowedFd<'_>]) -> Result<Reply, Failure> {
        let (name, pid) = (self.name.clone(), self.child.id());
        if let Err(e) = self.chan.send_json(req, fds) {
            return Err(Failure::Peer(format!(
                "peer {name} (pid {pid}): send of {} failed ({e}): {}",
                req.op(),
                self.ended()
            )));
        }
        match self.chan.recv_json::<Reply>(REPLY_TIMEOUT) {
            Ok((r, _)) => Ok(r),
            Err(RecvError::Closed) => Err(Failure::Peer(format!(
                "peer {name} (pid {pid}) closed its channel during {}: {}",
                req.op(),
                self.ended()
            ))),
            Err(RecvError::Timeout(d)) => Err(Failure::Peer(format!(
                "no reply from peer {name} (pid {pid}) in {} s to {}",
                d.as_secs(),
                req.op()
            ))),
            Err(e) => Err(Failure::Peer(format!("peer {name} (pid {pid}): {e}"))),
        }
    }

    /// Sends `req`, which only prepares the rule: a code other than success is a setup failure.
    pub fn setup(&mut self, req: &Request) -> Result<Reply, Failure> {
        let r = self.call(req)?;
        if r.code == 0 {
            Ok(r)
        } else {
            let call = if r.text.is_empty() { req.op().to_string() } else { r.text.clone() };
            Err(Failure::Setup(format!("setup: peer {}: {call} returned {}", self.name, CuResult(r.code))))
        }
    }

    /// Asks the peer to exit and waits for it, at most [`EXIT_TIMEOUT`].
    pub fn exit(mut self) -> Result<(), Failure> {
        self.setup(&Request::Exit)?;
        if let Some(Ok(pidfd)) = rustix::process::Pid::from_raw(self.child.id() as i32)
            .map(|p| rustix::process::pidfd_open(p, rustix::process::PidfdFlags::empty()))
        {
            let _ = wait_readable(pidfd.as_fd(), EXIT_TIMEOUT);
        }
        match self.child.try_wait() {
            Ok(Some(s)) if s.success() => Ok(()),
            Ok(Some(s)) => Err(Failure::Peer(format!("peer {} {} after exit", self.name, describe_exit(s)))),
            Ok(None) => Err(Failure::Peer(format!("peer {} did not exit in {} s", self.name, EXIT_TIMEOUT.as_secs()))),
            Err(e) => Err(Failure::Peer(format!("peer {}: wait: {e}", self.name))),
        }
    }

    /// How the peer ended, if it did ("exited with status 3", "killed by signal 11").
    fn ended(&mut self) -> String {
        match self.child.try_wait() {
            Ok(Some(s)) => describe_exit(s),
            Ok(None) => "still running".into(),
            Err(e) => format!("cannot be waited for ({e})"),
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Options of the hidden `vmmkit __cuda_peer` command.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The backend whose table the peer uses.
    #[arg(long, value_enum)]
    pub backend: BackendKind,
    /// The vendor library, for a real backend.
    #[arg(long)]
    pub library: Option<PathBuf>,
}

/// Runs the peer until its channel closes or it is told to exit.
pub fn run(args: &Args) -> ExitCode {
    let _ = rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL));
    let chan = match rustix::io::dup(std::io::stdin().as_fd()) {
        Ok(fd) => Channel::from_fd(fd),
        Err(e) => {
            eprintln!("vmmkit __cuda_peer: stdin: {e}");
            return ExitCode::from(3);
        }
    };
    let cuda = match backend::cuda_table(args.backend, args.library.as_deref()) {
        Ok(api) => Cuda::new(api),
        Err(reason) => {
            eprintln!("vmmkit __cuda_peer: {reason}");
            return ExitCode::from(3);
        }
    };
    // The device whose primary context `Start` made current.
    let mut device = 0;
    loop {
        let (req, fds): (Request, Vec<OwnedFd>) = match chan.recv_json(IDLE_TIMEOUT) {
            Ok(got) => got,
            Err(RecvError::Closed) => return ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("vmmkit __cuda_peer (pid {}): {e}", std::process::id());
                return ExitCode::from(4);
            }
        };
        let exit = req == Request::Exit;
        let reply = serve(&cuda, &mut device, &req, fds);
        if chan.send_json(&reply, &[]).is_err() || exit {
            return ExitCode::SUCCESS;
        }
    }
}

fn code(r: CUresult, text: &str) -> Reply {
    Reply { code: r, value: 0, text: if r == 0 { String::new() } else { text.into() } }
}

fn serve(cuda: &Cuda, current: &mut i32, req: &Request, fds: Vec<OwnedFd>) -> Reply {
    match req {
        Request::Start { device } => {
            *current = *device;
            let r = cuda.cuInit(0);
            if r != 0 {
                return code(r, "cuInit(0)");
            }
            let mut ctx = ptr::null_mut();
            let r = cuda.cuDevicePrimaryCtxRetain(&mut ctx, *device);
            if r != 0 {
                return code(r, "cuDevicePrimaryCtxRetain");
            }
            code(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
        }
        Request::Open { handle, flags } => {
            let mut h = CUipcMemHandle::default();
            for (d, s) in h.reserved.iter_mut().zip(handle) {
                *d = *s as std::ffi::c_char;
            }
            let mut p = 0;
            let r = cuda.cuIpcOpenMemHandle(&mut p, h, *flags);
            Reply { value: p, ..code(r, "cuIpcOpenMemHandle") }
        }
        Request::Close { ptr } => code(cuda.cuIpcCloseMemHandle(*ptr), "cuIpcCloseMemHandle"),
        Request::Verify { ptr, len, seed } => verify(cuda, *ptr, *len as usize, *seed),
        Request::Fill { ptr, len, seed } => {
            let data = pattern::fill(*seed, *len as usize);
            code(cuda.cuMemcpyHtoD(*ptr, data.as_ptr().cast(), data.len()), "cuMemcpyHtoD")
        }
        Request::ImportMap { size, seed } => import_map(cuda, *current, fds, *size as usize, *seed),
        Request::UnmapFree { ptr, size } => {
            let r = cuda.cuMemUnmap(*ptr, *size as usize);
            if r != 0 {
                return code(r, "cuMemUnmap");
            }
            code(cuda.cuMemAddressFree(*ptr, *size as usize), "cuMemAddressFree")
        }
        Request::Exit => Reply::default(),
    }
}

/// [`Request::ImportMap`]: the memMapIPCDrv child's steps, on `device`.
fn import_map(cuda: &Cuda, device: i32, fds: Vec<OwnedFd>, size: usize, seed: u8) -> Reply {
    let Some(fd) = fds.into_iter().next() else {
        return Reply { code: CuResult::INVALID_VALUE.0, text: "no fd came with the request".into(), value: 0 };
    };
    let mut h = 0;
    // cuda.md §2.1: the fd value cast to a pointer; the fd stays ours, and is closed once imported.
    let os_handle = fd.as_raw_fd() as usize as *mut std::ffi::c_void;
    let r = cuda.cuMemImportFromShareableHandle(&mut h, os_handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    drop(fd);
    if r != 0 {
        return code(r, "cuMemImportFromShareableHandle");
    }
    let mut va = 0;
    let r = cuda.cuMemAddressReserve(&mut va, size, 0, 0, 0);
    if r != 0 {
        return code(r, "cuMemAddressReserve");
    }
    let r = cuda.cuMemMap(va, size, 0, h, 0);
    if r != 0 {
        return code(r, "cuMemMap");
    }
    let r = cuda.cuMemRelease(h); // the mapping holds the memory from here on
    if r != 0 {
        return code(r, "cuMemRelease");
    }
    let r = cuda.cuMemSetAccess(va, size, &super::desc(device, CU_MEM_ACCESS_FLAGS_PROT_READWRITE), 1);
    if r != 0 {
        return code(r, "cuMemSetAccess");
    }
    Reply { value: va, ..verify(cuda, va, size, seed) }
}

/// Reads `len` bytes at `ptr`: `value` 1 when they are the pattern `seed`,
/// else `text` names the first differing byte.
fn verify(cuda: &Cuda, ptr: u64, len: usize, seed: u8) -> Reply {
    let mut data = vec![0u8; len];
    let r = cuda.cuMemcpyDtoH(data.as_mut_ptr().cast(), ptr, data.len());
    if r != 0 {
        return code(r, "cuMemcpyDtoH");
    }
    match pattern::first_mismatch(seed, &data) {
        None => Reply { value: 1, ..Reply::default() },
        Some((at, want, got)) => {
            Reply { text: format!("byte {at} is {got:#04x}, not {want:#04x}"), ..Reply::default() }
        }
    }
}
