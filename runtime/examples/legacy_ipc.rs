//! Two processes share linear device memory with a legacy IPC handle, as
//! HIP's and CUDA's IPC samples do (`hipIpcGetMemHandle` /
//! `hipIpcOpenMemHandle`, `cuIpcGetMemHandle` / `cuIpcOpenMemHandle`).
//!
//! ```text
//! VMMKIT_BACKEND=emulator-hip cargo run -p vmmkit-runtime --example legacy_ipc
//! VMMKIT_BACKEND=emulator-cuda cargo run -p vmmkit-runtime --example legacy_ipc
//! ```
//!
//! The exporter allocates (`Device::malloc`), fills the buffer, and shows
//! that a process cannot open its own handle. It starts this program again
//! as the importer and sends it the 64 handle bytes and the size as a line
//! of hex (a legacy handle is plain bytes, unlike an fd). The importer
//! opens the buffer, reads the pattern, writes a reply and closes it; the
//! exporter reads the reply. ACL has no legacy IPC in the safe API: there
//! the program says so (a typed not-supported error) and stops.

use std::io::{BufRead, Write};
use std::process::{Child, Command, ExitCode, Stdio};

use vmmkit_runtime::{DeviceBuffer, IpcHandle, Runtime};

mod common;

use common::{Result, lines_of, next_line, own_root, wait_bounded};

/// The argument that makes this program the importer.
const IMPORTER: &str = "--importer";
/// Bytes shared.
const SIZE: usize = 1 << 20;
/// Where the importer's reply goes.
const REPLY_AT: usize = 4096;

fn main() -> ExitCode {
    let importer = std::env::args().nth(1).as_deref() == Some(IMPORTER);
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

fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 241) as u8 ^ 0xa5).collect()
}

fn reply(pid: u32) -> Vec<u8> {
    format!("legacy IPC reply from pid {pid}").into_bytes()
}

fn exporter_main(root: Option<&std::path::Path>) -> Result<()> {
    let selection = Runtime::select()?;
    println!("[exporter] backend: {selection}");
    let rt = Runtime::new(selection.backend)?;
    let dev = rt.device(0)?;
    let buf = match dev.malloc(SIZE) {
        Ok(b) => b,
        Err(e) if e.is_unsupported() => {
            println!("[exporter] legacy IPC is not supported on {}: {e}", rt.vendor());
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let pat = pattern(SIZE);
    buf.write(0, &pat)?;
    let handle = buf.ipc_handle()?;
    println!("[exporter] allocated {SIZE:#x} bytes at {:p}, wrote the pattern, got its IPC handle", buf.addr());
    match dev.open_ipc(&handle, SIZE) {
        Err(e) => println!("[exporter] opening our own handle fails, as it should: {e}"),
        Ok(_) => return Err("a process opened its own IPC handle".into()),
    }

    let mut cmd = Command::new(std::env::current_exe()?);
    if let Some(root) = root {
        cmd.env("VMMKIT_ROOT", root);
    }
    let mut child = cmd.arg(IMPORTER).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::inherit()).spawn()?;
    let r = talk(&buf, &handle, &mut child);
    if r.is_err() {
        let _ = child.kill();
    }
    let status = wait_bounded(child)?;
    r?;
    if !status.success() {
        return Err(format!("the importer failed: {status}").into());
    }
    println!("[exporter] the importer exited: {status}");
    buf.free()?;
    if !rt.take_drop_errors().is_empty() {
        return Err("a release failed".into());
    }
    println!("[exporter] freed the buffer; done");
    Ok(())
}

/// The exporter's side of the conversation.
fn talk(buf: &DeviceBuffer, handle: &IpcHandle, child: &mut Child) -> Result<()> {
    let lines = lines_of(child.stdout.take().ok_or("no pipe from the importer")?);
    let mut stdin = child.stdin.take().ok_or("no pipe to the importer")?;
    let hex: String = handle.0.iter().map(|b| format!("{b:02x}")).collect();
    writeln!(stdin, "handle {hex} {SIZE:#x}")?;
    stdin.flush()?;
    println!("[exporter] sent the handle bytes and the size");
    let line = next_line(&lines, "the importer's report")?;
    let pid: u32 =
        line.strip_prefix("done ").and_then(|p| p.parse().ok()).ok_or(format!("the importer said {line:?}"))?;
    let expect = reply(pid);
    let mut seen = vec![0u8; expect.len()];
    buf.read(REPLY_AT, &mut seen)?;
    if seen != expect {
        return Err(format!("no reply in the buffer: {:?}", String::from_utf8_lossy(&seen)).into());
    }
    println!("[exporter] found the importer's reply in our buffer: {:?}", String::from_utf8_lossy(&seen));
    Ok(())
}

fn importer_main() -> Result<()> {
    let rt = Runtime::auto()?;
    let dev = rt.device(0)?;
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    let mut words = line.split_whitespace();
    let (Some("handle"), Some(hex), Some(size)) = (words.next(), words.next(), words.next()) else {
        return Err(format!("expected `handle HEX SIZE`, got {line:?}").into());
    };
    let mut bytes = [0u8; 64];
    if hex.len() != 128 {
        return Err(format!("a handle is 64 bytes, got {hex:?}").into());
    }
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16)?;
    }
    let size = usize::from_str_radix(size.trim_start_matches("0x"), 16)?;
    let mem = dev.open_ipc(&IpcHandle(bytes), size)?;
    eprintln!("[importer] opened the exporter's buffer at {:p}", mem.addr());
    let mut seen = vec![0u8; size];
    mem.read(0, &mut seen)?;
    if seen != pattern(size) {
        return Err("the pattern differs from the exporter's".into());
    }
    eprintln!("[importer] read {size:#x} bytes: the exporter's pattern");
    let pid = std::process::id();
    mem.write(REPLY_AT, &reply(pid))?;
    mem.close()?;
    eprintln!("[importer] wrote the reply and closed the handle");
    println!("done {pid}");
    std::io::stdout().flush()?;
    Ok(())
}
