//! `Process`: a started child with a name, optionally with its stdout and
//! stderr kept in an unnamed temporary file (shown when a test fails), waited
//! for with a deadline, killed and reaped on drop if still running.

use std::fs::File;
use std::io::{Read, Seek};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::exit::Exit;
use crate::wait::{self, WaitError};

/// A started child process.
#[derive(Debug)]
pub struct Process {
    name: String,
    child: Child,
    log: Option<File>,
    exit: Option<Exit>,
}

impl Process {
    /// Starts `cmd` with the stdio it was given.
    pub fn spawn(name: &str, cmd: &mut Command) -> std::io::Result<Self> {
        let child = cmd.spawn()?;
        Ok(Self { name: name.into(), child, log: None, exit: None })
    }

    /// Starts `cmd` with its stdout and stderr in one log ([`Process::output`]).
    pub fn spawn_logged(name: &str, cmd: &mut Command) -> std::io::Result<Self> {
        let log = tempfile::tempfile()?;
        cmd.stdout(log.try_clone()?).stderr(log.try_clone()?);
        let child = cmd.spawn()?;
        Ok(Self { name: name.into(), child, log: Some(log), exit: None })
    }

    /// Its name, for messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// How it ended, once it was reaped here.
    pub fn exit(&self) -> Option<Exit> {
        self.exit
    }

    /// What it wrote to its log so far (empty when it has none).
    pub fn output(&self) -> String {
        let mut text = String::new();
        if let Some(mut f) = self.log.as_ref() {
            let _ = f.rewind().and_then(|()| f.read_to_string(&mut text));
        }
        text
    }

    /// The last `n` lines of [`Process::output`].
    pub fn output_tail(&self, n: usize) -> String {
        let text = self.output();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(n)..].join("\n")
    }

    /// Waits at most `timeout` for it to exit; `None` if it is still running.
    pub fn exit_within(&mut self, timeout: Duration) -> std::io::Result<Option<Exit>> {
        if self.exit.is_none() {
            self.exit = wait::exit_within(&mut self.child, timeout)?;
        }
        Ok(self.exit)
    }

    /// Waits at most `timeout` for it to exit; past that it is killed and
    /// reaped, and the error says how long it was given.
    pub fn wait(&mut self, timeout: Duration) -> Result<Exit, WaitError> {
        if let Some(e) = self.exit {
            return Ok(e);
        }
        let r = wait::exit_or_kill(&mut self.child, timeout);
        self.exit = match &r {
            Ok(e) => Some(*e),
            Err(_) => self.child.try_wait().ok().flatten().map(Exit),
        };
        r
    }

    /// Kills it (`SIGKILL`) unless it ended, reaps it and says how it ended.
    pub fn kill(&mut self) -> Option<Exit> {
        if self.exit.is_none() {
            self.exit = wait::kill(&mut self.child);
        }
        self.exit
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts `cmd` with its output logged, waits at most `deadline` (a child
/// past it is killed) and returns how it ended and what it wrote (stdout and
/// stderr, interleaved as written).
pub fn run(cmd: &mut Command, deadline: Duration) -> Result<(Exit, String), WaitError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    let mut p = Process::spawn_logged(&program, cmd)?;
    let exit = p.wait(deadline)?;
    Ok((exit, p.output()))
}

/// `Command::output` with a deadline: runs `cmd` with stdin closed and its
/// stdout and stderr each in an unnamed temporary file (no pipe that a
/// grandchild keeps open, or that fills and blocks the child), waits at
/// most `deadline` (a child past it is killed and reaped) and returns what
/// `output` would have.
pub fn output(cmd: &mut Command, deadline: Duration) -> Result<Output, WaitError> {
    let (mut out, mut err) = (tempfile::tempfile()?, tempfile::tempfile()?);
    cmd.stdin(Stdio::null()).stdout(out.try_clone()?).stderr(err.try_clone()?);
    let program = cmd.get_program().to_string_lossy().into_owned();
    let exit = Process::spawn(&program, cmd)?.wait(deadline)?;
    Ok(Output { status: exit.0, stdout: read_all(&mut out)?, stderr: read_all(&mut err)? })
}

/// Everything in `f`, from its start.
fn read_all(f: &mut File) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    f.rewind()?;
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Waits for every process, all within one `deadline`; kills those still
/// running then. Returns their outputs in order when all exited with status
/// 0, else a report with every one's end and output.
pub fn finish_all(procs: &mut [Process], deadline: Duration) -> Result<Vec<String>, String> {
    let end = Instant::now() + deadline;
    let mut timed_out = Vec::new();
    for p in procs.iter_mut() {
        match p.exit_within(end.saturating_duration_since(Instant::now())) {
            Ok(Some(_)) => {}
            Ok(None) => timed_out.push(p.name.clone()),
            Err(e) => timed_out.push(format!("{} ({e})", p.name)),
        }
        p.kill();
    }
    let ok = timed_out.is_empty() && procs.iter().all(|p| p.exit.is_some_and(Exit::success));
    if ok {
        return Ok(procs.iter().map(Process::output).collect());
    }
    let mut report = if timed_out.is_empty() {
        String::new()
    } else {
        format!("killed after {} s: {}\n", deadline.as_secs_f64(), timed_out.join(", "))
    };
    for p in procs.iter() {
        let how = p.exit.map_or_else(|| "not reaped".to_string(), |e| e.to_string());
        report.push_str(&format!("--- {} ({how}):\n{}", p.name, p.output()));
    }
    Err(report)
}

/// [`finish_all`] for a test: fails it with the report unless every
/// process exited with status 0 within `deadline`.
pub fn finish(procs: &mut [Process], deadline: Duration) -> Vec<String> {
    finish_all(procs, deadline).unwrap_or_else(|report| panic!("{report}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_and_status_come_back() {
        let (exit, out) =
            run(Command::new("sh").args(["-c", "echo out; echo err >&2; exit 2"]), Duration::from_secs(10)).unwrap();
        assert_eq!((exit.code(), out.as_str()), (Some(2), "out\nerr\n"));
    }

    /// `output` keeps the two streams apart, and a child past its deadline
    /// is killed: a timeout, not a hang.
    #[test]
    fn output_keeps_the_streams_apart_and_ends_a_hang() {
        let sh = |script: &str| {
            let mut c = Command::new("sh");
            c.args(["-c", script]);
            c
        };
        let o = output(&mut sh("echo out; echo err >&2; exit 3"), Duration::from_secs(10)).unwrap();
        assert_eq!((o.status.code(), &o.stdout[..], &o.stderr[..]), (Some(3), &b"out\n"[..], &b"err\n"[..]));
        let started = Instant::now();
        let hang = output(&mut sh("sleep 30"), Duration::from_millis(200));
        assert!(matches!(hang, Err(WaitError::TimedOut(_))), "{hang:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn finish_all_reports_each_end() {
        let mut ok = Process::spawn_logged("ok", Command::new("true").stdin(std::process::Stdio::null())).unwrap();
        assert_eq!(finish_all(std::slice::from_mut(&mut ok), Duration::from_secs(10)).unwrap(), vec![String::new()]);
        let mut procs = vec![
            Process::spawn_logged("fine", &mut Command::new("true")).unwrap(),
            Process::spawn_logged("hang", Command::new("sleep").arg("30")).unwrap(),
        ];
        let report = finish_all(&mut procs, Duration::from_millis(200)).unwrap_err();
        assert!(report.starts_with("killed after 0.2 s: hang\n"), "{report}");
        assert!(report.contains("--- hang (killed by signal 9)"), "{report}");
    }
}
