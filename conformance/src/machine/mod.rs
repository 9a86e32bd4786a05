//! `vmmkit run`: runs a program, and every process it starts, on a private
//! emulated machine, then reports what each process left unreleased and
//! what was shared between them.
//!
//! The machine ([`dir`]) is a fresh directory with its own emulator
//! root and the drop-in libraries under every name programs link against;
//! the program runs with it on `LD_LIBRARY_PATH` and in `VMMKIT_ROOT`. Each
//! process that uses the emulator writes a journal
//! ([`vmmkit_emulator::journal`]); when the last process of the tree has
//! ended (this process is their subreaper, so orphans come back to it),
//! the journals are read back one record at a time ([`journals`]) into the
//! report ([`report`]) and, with `--trace`, a trace-event file ([`trace`]).
//! Then gc collects what is left, and the directory is removed, on every
//! way out of [`run`] (the machine is removed when dropped).
//!
//! The program runs in a process group of its own; signals sent to
//! `vmmkit run` are passed on to it, and a tree that does not end is
//! killed ([`tree`]). The output files are opened before the program
//! starts, so a path that cannot be written stops the run before it begins.

/// `eprintln!` that ignores a failed write: stderr may be a terminal that
/// hung up (SIGHUP), and what `vmmkit run` does next must not depend on it.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// `eprint!` that ignores a failed write (see `say!`).
macro_rules! say_part {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($t)*);
    }};
}

pub mod dir;
pub mod journals;
pub mod report;
pub mod trace;
// Signals and process groups of the program's tree.
#[allow(unsafe_code)]
pub mod tree;

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, IsTerminal, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rustix::process::{Pid, WaitOptions};
use vmmkit_emulator::registry::Registry;

use dir::Machine;
use report::Collected;

/// The exit status of `vmmkit run --fail-on-leak` when the program
/// succeeded but left something unreleased.
pub const LEAK_EXIT: u8 = 3;

/// Options of `vmmkit run`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: the program's own (128 + N when a signal N ended it; 127 when it \
cannot be found, 126 when it cannot be run), also when writing --report or \
--trace failed afterwards (said on stderr); with --fail-on-leak, 3 when the \
program succeeded but something was left unreleased; 2 when vmmkit itself \
could not set the machine up or a --report/--trace file cannot be written \
(checked before the program starts: nothing is run).

Signals: the program runs in a process group of its own. SIGTERM, SIGHUP, \
SIGINT and SIGQUIT sent to vmmkit are passed to the program's tree; a second \
one, or --grace seconds after the first, SIGKILLs the whole tree; vmmkit then \
reports, collects and removes its machine as after any run.")]
pub struct Args {
    /// Emulated devices (`VMMKIT_DEVICES`).
    #[arg(long)]
    pub devices: Option<u32>,
    /// Memory per device, e.g. `512M`, `64G` (`VMMKIT_DEVICE_MEMORY`).
    #[arg(long)]
    pub memory: Option<String>,
    /// Faults to inject, in the syntax of `VMMKIT_FAULTS`.
    #[arg(long)]
    pub faults: Option<String>,
    /// The Ascend chip to play: a SoC name (`Ascend910B1`, `Ascend910_9391`,
    /// …) or a family (`910B`, `A3`) (`VMMKIT_SOC`; default `Ascend910_9391`).
    #[arg(long, value_name = "SOC")]
    pub soc: Option<String>,
    /// Write every call of every process to FILE, as Chrome trace-event JSON
    /// (open it in Perfetto or chrome://tracing).
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Also write the report to FILE, as JSON.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Keep the machine's directory (root, journals) and print where it is.
    #[arg(long)]
    pub keep_root: bool,
    /// Exit with status 3 when the program succeeded but left something unreleased.
    #[arg(long)]
    pub fail_on_leak: bool,
    /// Seconds the program's tree is given to end after vmmkit passed it a
    /// SIGTERM, SIGHUP, SIGINT or SIGQUIT, before the whole tree is SIGKILLed
    /// (a second signal does it at once).
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub grace: f64,
    /// Make the private machine in DIR (default: /dev/shm, else the temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Also give the program stand-ins for the vendors' companion libraries
    /// (`librocfft.so.0`, `libroctracer64.so.4`): each exports what the
    /// vendor's headers declare and returns the library's own failure
    /// status, saying once that it is a stand-in. For programs that load
    /// them at start but need them only with a device.
    #[arg(long)]
    pub stand_ins: bool,
    /// Where the drop-in libraries are (default: beside this `vmmkit`, else in its `deps/`).
    #[arg(long, value_name = "DIR")]
    pub drop_ins: Option<PathBuf>,
    /// The program and its arguments.
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true, value_name = "PROGRAM")]
    pub program: Vec<OsString>,
}

impl Args {
    /// The emulator's settings for the program, checked before it starts.
    fn settings(&self) -> anyhow::Result<Vec<(&'static str, String)>> {
        let mut env = Vec::new();
        if let Some(n) = self.devices {
            if !(1..=vmmkit_emulator::MAX_DEVICES).contains(&n) {
                bail!("--devices {n}: must be from 1 to {}", vmmkit_emulator::MAX_DEVICES);
            }
            env.push(("VMMKIT_DEVICES", n.to_string()));
        }
        if let Some(m) = &self.memory {
            match vmmkit_emulator::parse_bytes(m) {
                Some(b) if b > 0 => env.push(("VMMKIT_DEVICE_MEMORY", b.to_string())),
                _ => bail!("--memory {m:?}: not a byte count (e.g. 512M, 64G, 1073741824)"),
            }
        }
        if let Some(f) = &self.faults {
            vmmkit_emulator::faults::Spec::parse(f).map_err(|e| anyhow::anyhow!("--faults {f:?}: {e}"))?;
            env.push(("VMMKIT_FAULTS", f.clone()));
        }
        if let Some(soc) = &self.soc {
            if vmmkit_emulator::AscendSoc::parse(soc).is_none() {
                bail!("--soc {soc:?}: not an Ascend 910B or A3 chip (e.g. Ascend910B1, Ascend910_9391, 910B, A3)");
            }
            env.push((vmmkit_emulator::AscendSoc::VAR, soc.clone()));
        }
        Ok(env)
    }

    fn grace(&self) -> anyhow::Result<Duration> {
        Duration::try_from_secs_f64(self.grace)
            .map_err(|_| anyhow::anyhow!("--grace {}: must be a number of seconds, 0 or more", self.grace))
    }
}

/// An output file (`--report`, `--trace`), opened before the program starts.
#[derive(Debug)]
struct Output {
    flag: &'static str,
    path: PathBuf,
    file: File,
}

impl Output {
    /// Opens (creates, truncates) `path` for writing, or says why it cannot
    /// be written.
    fn open(flag: &'static str, path: &Path) -> anyhow::Result<Self> {
        let file = File::options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(path)
            .map_err(|e| anyhow::anyhow!("{flag} {}: cannot be written ({e}); nothing was run", path.display()))?;
        Ok(Self { flag, path: path.to_path_buf(), file })
    }

    fn is_same_file(&self, other: &Self) -> bool {
        match (self.file.metadata(), other.file.metadata()) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino() && a.file_type().is_file(),
            _ => false,
        }
    }

    /// Says on stderr that writing failed; the run's status stays the program's.
    fn failed(&self, e: &dyn std::fmt::Display) {
        let _ = writeln!(std::io::stderr(), "vmmkit run: {} {}: writing failed: {e}", self.flag, self.path.display());
    }
}

/// Opens `--report` and `--trace`; a path that cannot be written is an
/// error before anything runs (and a file made here for the other is removed).
fn open_outputs(args: &Args) -> anyhow::Result<(Option<Output>, Option<Output>)> {
    let made = |p: &Option<PathBuf>| p.as_ref().filter(|p| !p.exists()).cloned();
    let (new_report, new_trace) = (made(&args.report), made(&args.trace));
    let opened = (|| {
        let report = args.report.as_deref().map(|p| Output::open("--report", p)).transpose()?;
        let trace = args.trace.as_deref().map(|p| Output::open("--trace", p)).transpose()?;
        if let (Some(r), Some(t)) = (&report, &trace)
            && r.is_same_file(t)
        {
            bail!("--report and --trace name the same file ({}); nothing was run", t.path.display());
        }
        Ok((report, trace))
    })();
    if opened.is_err() {
        for p in [new_report, new_trace].into_iter().flatten() {
            let _ = std::fs::remove_file(p);
        }
    }
    opened
}

/// How the program ended, as a status and words.
fn ended(status: rustix::process::WaitStatus) -> (u8, String) {
    if let Some(code) = status.exit_status() {
        ((code & 0xff) as u8, format!("exit status {code}"))
    } else if let Some(sig) = status.terminating_signal() {
        ((128 + sig) as u8, format!("killed by signal {sig}"))
    } else {
        (1, "ended".into())
    }
}

/// Runs `vmmkit run`.
///
/// # Errors
/// Bad options, an output file that cannot be written, or a machine that
/// cannot be set up: all before the program starts.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let settings = args.settings()?;
    let grace = args.grace()?;
    let (report_out, trace_out) = open_outputs(args)?;
    let env = |k: &str| settings.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into()).or_else(|| std::env::var_os(k));
    eprintln!("vmmkit run: {}", vmmkit_emulator::profiles_in_force(env));
    let drop_ins = args.drop_ins.clone().map_or_else(dir::default_drop_ins, |d| vec![d]);
    let mut machine = Machine::new(args.dir.as_deref(), &drop_ins, args.stand_ins)?;
    if args.stand_ins {
        let all: Vec<&str> = vmmkit_standins::LIBRARIES.iter().map(|s| s.soname).collect();
        let absent: Vec<&&str> = all.iter().filter(|s| !machine.stand_ins.contains(s)).collect();
        eprintln!("vmmkit run: stand-ins for {}", machine.stand_ins.join(", "));
        if !absent.is_empty() {
            eprintln!(
                "vmmkit run: no stand-in {absent:?} in {}/{} (`cargo build --release` builds them)",
                drop_ins[0].display(),
                vmmkit_standins::DIR
            );
        }
    }
    for m in &machine.missing {
        eprintln!(
            "vmmkit run: no {m} in {} (`cargo build --release` builds it); programs that need it will not start",
            drop_ins[0].display()
        );
    }
    let journal_dir = journals::JournalDir::open(&machine.journal())?;
    let mut cmd = Command::new(&args.program[0]);
    cmd.args(&args.program[1..]).envs(settings);
    machine.apply(&mut cmd, args.trace.is_some());
    // Orphans of the program's tree come back to us, so we wait for them too.
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).context("becoming the subreaper")?;
    let mut guard = tree::Guard::install(grace)?;
    guard.prepare(&mut cmd);
    let started = Instant::now();
    let base = vmmkit_emulator::journal::now();
    let command: Vec<String> = args.program.iter().map(|a| quoted(&a.to_string_lossy())).collect();
    let (code, status) = match cmd.spawn() {
        Ok(child) => {
            let main = Pid::from_raw(child.id() as i32).context("the child's pid")?;
            guard.started(main);
            let progress = Progress::start(machine.journal(), started);
            let ended = wait_all(main, &mut guard);
            progress.stop();
            ended
        }
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
            say!("vmmkit run: {}: {e}", args.program[0].to_string_lossy());
            (code, format!("could not start ({e})"))
        }
    };
    let outcome = guard.finish();
    let status = status + &outcome.words();

    // The journals, one record at a time, into the report and the trace.
    let mut builder = report::Builder::default();
    let mut trace = match trace_out {
        Some(out) => {
            match out.file.try_clone().and_then(|f| trace::Writer::new(BufWriter::with_capacity(1 << 16, f), base)) {
                Ok(w) => Some((out, w)),
                Err(e) => {
                    out.failed(&e);
                    None
                }
            }
        }
        None => None,
    };
    let reading = journal_dir.read(|item| {
        let written = match item {
            journals::Item::Process(pid) => {
                builder.process(pid);
                trace.as_mut().map(|(_, w)| w.process(pid))
            }
            journals::Item::Record(r) => {
                builder.record(r);
                trace.as_mut().map(|(_, w)| w.record(r))
            }
        };
        if let Some(Err(e)) = written
            && let Some((out, w)) = trace.take()
        {
            out.failed(&format!("{e} (after {} events; the file is incomplete)", w.events()));
        }
    });
    let gc = collect(&machine.root());
    let report = builder.finish(command, status, gc);
    let mut text = report.render();
    for note in reading.notes(journal_dir.path()) {
        text.push_str(&format!("vmmkit run: {note}\n"));
    }
    // stderr may be gone (a hung-up terminal): the status stays the program's.
    let _ = std::io::stderr().write_all(text.as_bytes());
    if let Some(out) = report_out {
        let mut w = BufWriter::new(&out.file);
        let written = serde_json::to_writer_pretty(&mut w, &report).map_err(std::io::Error::from).and_then(|()| {
            w.write_all(b"\n")?;
            w.flush()
        });
        if let Err(e) = written {
            out.failed(&e);
        }
    }
    if let Some((out, w)) = trace {
        match w.finish() {
            Ok((_, events)) => {
                let _ = writeln!(
                    std::io::stderr(),
                    "vmmkit run: trace of {} process(es), {events} event(s), in {}",
                    reading.journals,
                    out.path.display()
                );
            }
            Err(e) => out.failed(&e),
        }
    }
    if args.keep_root {
        let path = machine.keep();
        say!("vmmkit run: kept {} (emulator root: {}/root)", path.display(), path.display());
    }
    Ok(ExitCode::from(if args.fail_on_leak && code == 0 && report.leaked { LEAK_EXIT } else { code }))
}

/// `arg` as a shell would need it: in single quotes when it has anything
/// but letters, digits and `-_./=:,+@%`.
fn quoted(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Waits until the program (`main`) and every process left of its tree
/// have ended; returns how `main` ended. Between reaps it waits in
/// [`tree::Guard::pause`] (for `SIGCHLD` or a signal to pass on), in this
/// thread: no other thread is woken on the way. A stop of `main` by job
/// control goes to [`tree::Guard::stopped`].
fn wait_all(main: Pid, guard: &mut tree::Guard) -> (u8, String) {
    let mut main_ended = None;
    loop {
        match rustix::process::wait(WaitOptions::UNTRACED | WaitOptions::NOHANG) {
            Ok(Some((pid, status))) if pid == main && status.stopped() => guard.stopped(),
            Ok(Some((pid, status))) if pid == main => main_ended = Some(ended(status)),
            Ok(Some(_)) | Err(rustix::io::Errno::INTR) => {}
            // Children left, none changed state yet.
            Ok(None) => guard.pause(),
            Err(rustix::io::Errno::CHILD) => break,
            Err(e) => {
                // Not expected (wait fails only without children); the tree
                // is then not waited for further.
                say!("vmmkit run: waiting for the program: {e}");
                break;
            }
        }
    }
    main_ended.unwrap_or_else(|| (1, "ended unseen (its exit status was not seen)".into()))
}

/// Collects what is left in `root` after the run (nothing to do when no
/// process used it).
fn collect(root: &std::path::Path) -> Collected {
    let Ok(reg) = Registry::open_existing(root) else { return Collected::default() };
    match reg.gc() {
        Ok(r) => Collected { processes: r.processes, entries: r.entries, bytes: r.bytes },
        Err(e) => {
            say!("vmmkit run: gc of {}: {e}", root.display());
            Collected::default()
        }
    }
}

/// A progress line on a terminal, for runs longer than two seconds.
struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Progress {
    fn start(journal: PathBuf, started: Instant) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let thread = std::io::stderr().is_terminal().then(|| {
            let stop = Arc::clone(&stop);
            std::thread::spawn(move || {
                let mut shown = false;
                while !stop.load(Ordering::Relaxed) {
                    // Unparked by `stop`, so the run's end does not wait out the interval.
                    std::thread::park_timeout(Duration::from_millis(250));
                    let secs = started.elapsed().as_secs();
                    if secs < 2 || stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let n = std::fs::read_dir(&journal).map(Iterator::count).unwrap_or(0);
                    say_part!("\rvmmkit run: {secs} s, {n} process(es) used the emulator so far\x1b[K");
                    shown = true;
                }
                if shown {
                    say_part!("\r\x1b[K");
                    let _ = std::io::stderr().flush();
                }
            })
        });
        Self { stop, thread }
    }

    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}
