//! What the examples share: a bounded conversation with a child process,
//! and an emulator root of their own.
#![allow(dead_code)] // each example uses part of it

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// The examples' result.
pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// How long either side waits for the other.
pub const WAIT: Duration = Duration::from_secs(30);

/// The lines a child writes, read on a thread of their own.
pub fn lines_of(out: ChildStdout) -> Receiver<std::io::Result<String>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next line, waiting at most [`WAIT`].
pub fn next_line(lines: &Receiver<std::io::Result<String>>, what: &str) -> Result<String> {
    match lines.recv_timeout(WAIT) {
        Ok(line) => Ok(line?),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(format!("no {what} in {} s", WAIT.as_secs()).into()),
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            Err(format!("the importer closed its output before {what}").into())
        }
    }
}

/// Waits for `child` at most [`WAIT`], killing it then.
pub fn wait_bounded(mut child: Child) -> Result<std::process::ExitStatus> {
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    match rx.recv_timeout(WAIT) {
        Ok(status) => Ok(status?),
        Err(_) => {
            let _ = Command::new("kill").args(["-KILL", &pid.to_string()]).status();
            Err(format!("the importer (pid {pid}) did not exit in {} s; killed", WAIT.as_secs()).into())
        }
    }
}

/// A temporary emulator root when none is set, removed at exit: this
/// process's emulator is installed on it (the other settings come from the
/// environment, as they would without it).
pub fn own_root() -> Option<tempfile::TempDir> {
    if std::env::var_os("VMMKIT_ROOT").is_some() {
        return None;
    }
    let dir = tempfile::Builder::new().prefix("vmmkit-example-").tempdir().ok()?;
    let installed = vmmkit_emulator::Config::from_env()
        .map_err(|e| e.to_string())
        .and_then(|c| vmmkit_emulator::install(c.with_root(dir.path())).map_err(|e| e.to_string()));
    if let Err(e) = installed {
        eprintln!("the emulator on {}: {e}", dir.path().display());
    }
    Some(dir)
}
