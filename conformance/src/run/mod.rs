//! `vmmkit run`: runs a program, and every process it starts, on a private
//! emulated machine, then reports what each process left unreleased and
//! what was shared between them.
//!
//! The machine ([`machine`]) is a fresh directory with its own emulator
//! root and the drop-in libraries under every name programs link against;
//! the program runs with it on `LD_LIBRARY_PATH` and in `VMMKIT_ROOT`. Each
//! process that uses the emulator writes a journal
//! ([`vmmkit_emulator::journal`]); when the last process of the tree has
//! ended (this process is their subreaper, so orphans come back to it),
//! the journals become the report ([`report`]) and, with `--trace`, a
//! trace-event file ([`trace`]). Then gc collects what is left, and the
//! directory is removed.

pub mod machine;
pub mod report;
pub mod trace;

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use rustix::process::{Pid, WaitOptions};
use vmmkit_emulator::registry::Registry;

use machine::Machine;
use report::Collected;

/// The exit status of `vmmkit run --fail-on-leak` when the program
/// succeeded but left something unreleased.
pub const LEAK_EXIT: u8 = 3;

/// Options of `vmmkit run`.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Exit status: the program's own (128 + N when a signal N ended it; 127 when it \
cannot be found, 126 when it cannot be run); with --fail-on-leak, 3 when the \
program succeeded but something was left unreleased; 2 when vmmkit itself \
could not set the machine up.")]
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
    /// Make the private machine in DIR (default: /dev/shm, else the temporary directory).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
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
/// Bad options, or a machine that cannot be set up.
pub fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let settings = args.settings()?;
    let env = |k: &str| settings.iter().find(|(n, _)| *n == k).map(|(_, v)| v.into()).or_else(|| std::env::var_os(k));
    eprintln!("vmmkit run: {}", vmmkit_emulator::profiles_in_force(env));
    let drop_ins = args.drop_ins.clone().map_or_else(machine::default_drop_ins, |d| vec![d]);
    let mut machine = Machine::new(args.dir.as_deref(), &drop_ins)?;
    for m in &machine.missing {
        eprintln!(
            "vmmkit run: no {m} in {} (`cargo build --release` builds it); programs that need it will not start",
            drop_ins[0].display()
        );
    }
    let mut cmd = Command::new(&args.program[0]);
    cmd.args(&args.program[1..]).envs(settings);
    machine.apply(&mut cmd, args.trace.is_some());
    // Orphans of the program's tree come back to us, so we wait for them too.
    rustix::process::set_child_subreaper(Some(rustix::process::getpid())).context("becoming the subreaper")?;
    let started = Instant::now();
    let command: Vec<String> = args.program.iter().map(|a| quoted(&a.to_string_lossy())).collect();
    let (code, status) = match cmd.spawn() {
        Ok(child) => {
            let main = Pid::from_raw(child.id() as i32).context("the child's pid")?;
            ignore_interrupts();
            let progress = Progress::start(machine.journal(), started);
            let ended = wait_all(main);
            progress.stop();
            ended?
        }
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::NotFound { 127 } else { 126 };
            eprintln!("vmmkit run: {}: {e}", args.program[0].to_string_lossy());
            (code, format!("could not start ({e})"))
        }
    };
    let journals = report::read_journals(&machine.journal()).context("reading the journals")?;
    let gc = collect(&machine.root());
    let report = report::build(command, status, &journals, gc);
    eprint!("{}", report.render());
    if let Some(path) = &args.report {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(path, text).with_context(|| format!("--report {}", path.display()))?;
    }
    if let Some(path) = &args.trace {
        let text = serde_json::to_string(&trace::trace(&journals))?;
        std::fs::write(path, text).with_context(|| format!("--trace {}", path.display()))?;
        eprintln!("vmmkit run: trace of {} process(es) in {}", journals.len(), path.display());
    }
    if args.keep_root {
        let path = machine.keep();
        eprintln!("vmmkit run: kept {} (emulator root: {}/root)", path.display(), path.display());
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
/// have ended; returns how `main` ended.
fn wait_all(main: Pid) -> anyhow::Result<(u8, String)> {
    let mut main_ended = None;
    loop {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid == main => main_ended = Some(ended(status)),
            Ok(_) => {}
            Err(rustix::io::Errno::INTR) => {}
            Err(rustix::io::Errno::CHILD) => break,
            Err(e) => return Err(e).context("waiting for the program"),
        }
    }
    main_ended.context("the program's exit was not seen")
}

/// While the program runs, an interrupt from the terminal (Ctrl-C) goes to
/// the program, which is in the same process group; `vmmkit run` stays to
/// report what it left.
fn ignore_interrupts() {
    for sig in [libc::SIGINT, libc::SIGQUIT] {
        // SAFETY: setting a signal's disposition to SIG_IGN installs no
        // handler; the program was already started with the defaults.
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
}

/// Collects what is left in `root` after the run (nothing to do when no
/// process used it).
fn collect(root: &std::path::Path) -> Collected {
    let Ok(reg) = Registry::open_existing(root) else { return Collected::default() };
    match reg.gc() {
        Ok(r) => Collected { processes: r.processes, entries: r.entries, bytes: r.bytes },
        Err(e) => {
            eprintln!("vmmkit run: gc of {}: {e}", root.display());
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
                    std::thread::sleep(Duration::from_millis(250));
                    let secs = started.elapsed().as_secs();
                    if secs < 2 || stop.load(Ordering::Relaxed) {
                        continue;
                    }
                    let n = std::fs::read_dir(&journal).map(Iterator::count).unwrap_or(0);
                    eprint!("\rvmmkit run: {secs} s, {n} process(es) used the emulator so far\x1b[K");
                    shown = true;
                }
                if shown {
                    eprint!("\r\x1b[K");
                    let _ = std::io::stderr().flush();
                }
            })
        });
        Self { stop, thread }
    }

    fn stop(self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread {
            let _ = t.join();
        }
    }
}
