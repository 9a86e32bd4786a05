//! Two processes share device memory, each vendor its own way: ACL with a
//! 64-bit key and a trustlist, as the CANN sample "physical memory sharing
//! with pid" does (acl.md §7.1); HIP and CUDA with a POSIX fd passed over a
//! Unix socket with `SCM_RIGHTS`, as their IPC samples do.
//!
//! ```text
//! cargo run -p vmmkit-runtime --example two_process
//! VMMKIT_BACKEND=emulator-hip cargo run -p vmmkit-runtime --example two_process
//! VMMKIT_BACKEND=emulator-cuda cargo run -p vmmkit-runtime --example two_process
//! ```
//!
//! The exporter allocates and fills memory, exports it, and starts this
//! program again as the importer, whose stdin is one end of a Unix socket.
//! The importer reports its host pid over its stdout. ACL: the exporter
//! puts the pid in the trustlist (only then: an entry set before the
//! importer started is not honoured, ACL-PID-010) and sends the key and the
//! size as a line; HIP and CUDA: the exporter sends the fd with the size
//! (`vmmkit_runtime::fd::send`). The importer imports, maps and reads the
//! pattern, writes a reply into the same memory, and says so; the exporter
//! reads the reply. Every wait is bounded.
//!
//! Both processes use the backend `VMMKIT_BACKEND` names, else a real
//! library with a device, else the emulator, which gets a temporary
//! `VMMKIT_ROOT` shared by both unless one is set.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::net::UnixStream;
use std::process::{Child, Command, ExitCode, Stdio};

use vmmkit_runtime::{Access, Granularity, Location, Runtime, Shareable};

/// The argument that makes this program the importer.
const IMPORTER: &str = "--importer";
/// Where the importer's reply goes in the shared memory.
const REPLY_AT: usize = 1024;

mod common;

use common::{Result, lines_of, next_line, own_root, wait_bounded};

fn main() -> ExitCode {
    let importer = std::env::args().nth(1).as_deref() == Some(IMPORTER);
    // Before the emulator's first use; the importer is given the root.
    let root = if importer { None } else { own_root() };
    let (who, r) = if importer {
        ("importer", importer_main())
    } else {
        ("exporter", exporter_main(root.as_ref().map(tempfile::TempDir::path)))
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("[{who}] failed: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The bytes the exporter writes.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 253) as u8 ^ 0x5a).collect()
}

/// The exporter; `root`, the emulator root it made, if it made one.
fn exporter_main(root: Option<&std::path::Path>) -> Result<()> {
    let pid = std::process::id();
    let selection = Runtime::select()?;
    println!("[exporter] pid {pid}, backend: {selection}");
    let rt = Runtime::new(selection.backend)?;
    let dev = rt.device(0)?;
    let g = dev.granularity(Granularity::Minimum)?;
    let mem = dev.alloc_physical(g)?;
    let rsv = dev.reserve(g)?;
    let map = rsv.map(0, &mem)?;
    map.set_access(Location::Device(0), Access::ReadWrite)?;
    let pat = pattern(g);
    map.write(0, &pat)?;
    println!("[exporter] allocated {g:#x} bytes on device 0, mapped at {:p}, wrote the pattern", map.addr());

    // The vendor's own sharing: ACL's trustlist key, HIP's and CUDA's POSIX fd.
    let sharing = rt.vendor().vmm_sharing()[0];
    let exported = mem.export(sharing)?;
    match exported.shareable() {
        Shareable::Key(key) => println!("[exporter] exported with the trustlist on: shareable handle {key:#x}"),
        Shareable::Fd(fd) => println!("[exporter] exported as a POSIX fd ({fd:?})"),
    }

    let (ours, theirs) = UnixStream::pair()?;
    let mut importer = Command::new(std::env::current_exe()?);
    if let Some(root) = root {
        importer.env("VMMKIT_ROOT", root);
    }
    let mut child = importer
        .arg(IMPORTER)
        .stdin(Stdio::from(OwnedFd::from(theirs)))
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    println!("[exporter] started the importer, pid {}", child.id());
    let r = talk(&exported, &map, &pat, &mut child, ours);
    if r.is_err() {
        // A peer that hangs must not outlive us.
        let _ = child.kill();
    }
    let status = wait_bounded(child)?;
    r?;
    if !status.success() {
        return Err(format!("the importer failed: {status}").into());
    }
    println!("[exporter] the importer exited: {status}");

    drop(exported);
    map.unmap()?;
    mem.free()?;
    rsv.free()?;
    let errors = rt.take_drop_errors();
    if !errors.is_empty() {
        return Err(format!("releases failed: {errors:?}").into());
    }
    println!("[exporter] unmapped, freed and released; done");
    Ok(())
}

/// The exporter's side of the conversation.
fn talk(
    exported: &vmmkit_runtime::Exported,
    map: &vmmkit_runtime::Mapping,
    pat: &[u8],
    child: &mut Child,
    mut sock: UnixStream,
) -> Result<()> {
    let lines = lines_of(child.stdout.take().ok_or("no pipe from the importer")?);

    let line = next_line(&lines, "the importer's pid")?;
    let peer: i32 = line.strip_prefix("pid ").and_then(|p| p.parse().ok()).ok_or(format!("not a pid: {line:?}"))?;
    match exported.shareable() {
        Shareable::Key(key) => {
            exported.set_pids(&[peer])?;
            println!("[exporter] the importer's host pid is {peer}; added it to the trustlist");
            writeln!(sock, "handle {key:#x} {:#x}", exported.size())?;
            sock.flush()?;
            println!("[exporter] sent the shareable handle and the size");
        }
        Shareable::Fd(fd) => {
            println!("[exporter] the importer's pid is {peer}; an fd needs no trustlist");
            vmmkit_runtime::fd::send(&sock, fd, format!("size {:#x}", exported.size()).as_bytes())?;
            println!("[exporter] sent the fd with SCM_RIGHTS, and the size");
        }
    }

    let line = next_line(&lines, "the importer's report")?;
    if line != "done" {
        return Err(format!("the importer said {line:?}").into());
    }
    let expect = reply(peer);
    let mut seen = vec![0u8; expect.len()];
    map.read(REPLY_AT, &mut seen)?;
    if seen != expect {
        return Err(format!("no reply in the shared memory: {:?}", String::from_utf8_lossy(&seen)).into());
    }
    println!("[exporter] found the importer's reply in our memory: {:?}", String::from_utf8_lossy(&seen));
    let mut head = vec![0u8; REPLY_AT];
    map.read(0, &mut head)?;
    if head != pat[..REPLY_AT] {
        return Err("the bytes before the reply changed".into());
    }
    println!("[exporter] the rest of the pattern is untouched");
    drop(sock); // EOF: the importer may exit
    Ok(())
}

/// What the importer writes back.
fn reply(pid: i32) -> Vec<u8> {
    format!("hello from the importer, pid {pid}").into_bytes()
}

fn importer_main() -> Result<()> {
    let rt = Runtime::auto()?;
    let dev = rt.device(0)?;
    let pid = rt.host_pid()?;
    eprintln!("[importer] started on {}, host pid {pid}", rt.backend());
    println!("pid {pid}");
    std::io::stdout().flush()?;

    // Our stdin is the exporter's socket. Bounded: the exporter kills us if
    // it stops waiting, and its exit closes the socket.
    let sock = UnixStream::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let hex = |w: &str| usize::from_str_radix(w.trim_start_matches("0x"), 16);
    let (mem, size) = if rt.vendor().vmm_sharing()[0].is_fd() {
        let mut buf = [0u8; 64];
        let (fd, n) = vmmkit_runtime::fd::recv(&sock, &mut buf)?;
        let text = String::from_utf8_lossy(&buf[..n]).into_owned();
        let size = hex(text.strip_prefix("size ").ok_or(format!("expected `size SIZE`, got {text:?}"))?)?;
        eprintln!("[importer] received an fd with SCM_RIGHTS ({size:#x} bytes)");
        // The fd is only borrowed by the import; ours closes when it goes.
        (dev.import(&fd, size)?, size)
    } else {
        let mut line = String::new();
        BufReader::new(&sock).read_line(&mut line)?;
        let mut words = line.split_whitespace();
        let (Some("handle"), Some(key), Some(size)) = (words.next(), words.next(), words.next()) else {
            return Err(format!("expected `handle KEY SIZE`, got {line:?}").into());
        };
        let key = u64::from_str_radix(key.trim_start_matches("0x"), 16)?;
        let size = hex(size)?;
        eprintln!("[importer] received shareable handle {key:#x} ({size:#x} bytes)");
        (dev.import(key, size)?, size)
    };

    let rsv = dev.reserve(size)?;
    let map = rsv.map(0, &mem)?;
    map.set_access(Location::Device(0), Access::ReadWrite)?;
    eprintln!("[importer] imported it onto device 0 and mapped it at {:p}", map.addr());

    let mut seen = vec![0u8; size];
    map.read(0, &mut seen)?;
    if seen != pattern(size) {
        return Err("the pattern differs from the exporter's".into());
    }
    eprintln!("[importer] read {size:#x} bytes: the exporter's pattern");
    let msg = reply(pid);
    map.write(REPLY_AT, &msg)?;
    eprintln!("[importer] wrote {:?} at offset {REPLY_AT:#x}", String::from_utf8_lossy(&msg));

    map.unmap()?;
    mem.free()?;
    rsv.free()?;
    eprintln!("[importer] unmapped, freed and released");
    println!("done");
    std::io::stdout().flush()?;
    Ok(())
}
