//! `vmmkit ls` and `vmmkit gc`: what an emulator root holds, and collecting
//! what dead processes left in it. Both read the real registry files.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;
use vmmkit_emulator::registry::{CellInfo, EntryInfo, OpenError, Registry};

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// For people.
    Table,
    /// For programs.
    Json,
}

/// Options of `vmmkit ls` and `vmmkit gc`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The emulator root (default: `VMMKIT_ROOT`, else `/dev/shm/vmmkit-<uid>`).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Table)]
    pub format: Format,
}

/// The registry of the root, `Ok(Err(root))` when no program has used the
/// root yet (missing, or no state file in it), or why it cannot be opened.
fn open(args: &Args) -> anyhow::Result<Result<Registry, PathBuf>> {
    let root = match &args.root {
        Some(r) => r.clone(),
        None => vmmkit_emulator::Config::from_env().map(|c| c.root).context("reading VMMKIT_ROOT")?,
    };
    match Registry::open_existing(&root) {
        Ok(reg) => Ok(Ok(reg)),
        Err(OpenError::NoState(_)) => Ok(Err(root)),
        Err(e) => Err(e).with_context(|| format!("{} is not an emulator root vmmkit can use", root.display())),
    }
}

/// The line for a root no program has used yet.
fn no_state(root: &Path) -> String {
    format!("root {}: no emulator state here yet (no program has used it)", root.display())
}

#[derive(Debug, Serialize)]
struct Device {
    device: usize,
    capacity: u64,
    used: u64,
}

#[derive(Debug, Serialize)]
struct Entry {
    shareable_handle: String,
    size: u64,
    location: String,
    exporter_pid: u32,
    exporter_alive: bool,
    trustlist: String,
    trusted_pids: Vec<i32>,
    holders: Vec<u32>,
}

/// A shared event or notify.
#[derive(Debug, Serialize)]
struct SharedCell {
    key: String,
    kind: String,
    creator_pid: u32,
    creator_alive: bool,
    withdrawn: bool,
    holders: Vec<u32>,
}

fn shared_cell(c: CellInfo) -> SharedCell {
    SharedCell {
        key: format!("{:#x}", c.key),
        kind: c.kind.to_string(),
        creator_pid: c.creator.pid,
        creator_alive: c.creator_alive,
        withdrawn: c.withdrawn,
        holders: c.holders,
    }
}

#[derive(Debug, Serialize)]
struct Process {
    pid: u32,
    alive: bool,
}

#[derive(Debug, Serialize)]
struct Listing {
    root: String,
    /// False when no program has used the root yet (the lists are empty).
    in_use: bool,
    devices: Vec<Device>,
    processes: Vec<Process>,
    exported: Vec<Entry>,
    /// Events and notifies shared across processes.
    shared_events: Vec<SharedCell>,
}

fn entry(e: EntryInfo) -> Entry {
    Entry {
        shareable_handle: format!("{:#x}", e.key),
        size: e.size,
        location: e.place.to_string(),
        exporter_pid: e.exporter.pid,
        exporter_alive: e.exporter_alive,
        trustlist: if e.trustlist_disabled { "off".into() } else { "on".into() },
        trusted_pids: e.trustlist,
        holders: e.holders,
    }
}

fn listing(reg: &Registry) -> Listing {
    let usage = reg.usage();
    // One look at the holders for both lists.
    let shared = reg.listing();
    Listing {
        root: reg.root().display().to_string(),
        in_use: true,
        devices: usage
            .used
            .iter()
            .enumerate()
            .map(|(device, &used)| Device { device, capacity: usage.capacity, used })
            .collect(),
        processes: reg.processes().into_iter().map(|p| Process { pid: p.process.pid, alive: p.alive }).collect(),
        exported: shared.entries.into_iter().map(entry).collect(),
        shared_events: shared.cells.into_iter().map(shared_cell).collect(),
    }
}

/// `64 GiB`, `2 MiB`, `4 KiB`, `0 B`: the largest binary unit that divides
/// `n`, else bytes (`ls`, `gc`, and `vmmkit run`'s report).
pub fn size(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} B"),
    }
}

/// Runs `vmmkit ls`.
///
/// # Errors
/// When the root cannot be opened.
pub fn ls(args: &Args) -> anyhow::Result<ExitCode> {
    let l = match open(args)? {
        Ok(reg) => listing(&reg),
        Err(root) => {
            let empty = Listing {
                root: root.display().to_string(),
                in_use: false,
                devices: vec![],
                processes: vec![],
                exported: vec![],
                shared_events: vec![],
            };
            match args.format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&empty)?),
                Format::Table => println!("{}", no_state(&root)),
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&l)?),
        Format::Table => {
            println!("root {}", l.root);
            println!("{:<8} {:>12} {:>12}", "device", "used", "capacity");
            for d in &l.devices {
                println!("{:<8} {:>12} {:>12}", d.device, size(d.used), size(d.capacity));
            }
            let alive = |a: bool| if a { "alive" } else { "dead" };
            let procs: Vec<String> = l.processes.iter().map(|p| format!("{} ({})", p.pid, alive(p.alive))).collect();
            println!("processes: {}", if procs.is_empty() { "none".into() } else { procs.join(", ") });
            if l.exported.is_empty() {
                println!("no exported handles");
            } else {
                println!(
                    "{:<20} {:>10} {:<10} {:<18} {:<9} {:<16} holders",
                    "shareable handle", "size", "location", "exporter", "trustlist", "trusted pids"
                );
                for e in &l.exported {
                    let pids: Vec<String> = e.trusted_pids.iter().map(i32::to_string).collect();
                    let holders: Vec<String> = e.holders.iter().map(u32::to_string).collect();
                    println!(
                        "{:<20} {:>10} {:<10} {:<18} {:<9} {:<16} {}",
                        e.shareable_handle,
                        size(e.size),
                        e.location,
                        format!("{} ({})", e.exporter_pid, alive(e.exporter_alive)),
                        e.trustlist,
                        if pids.is_empty() { "-".into() } else { pids.join(",") },
                        if holders.is_empty() { "none".into() } else { holders.join(",") },
                    );
                }
            }
            if !l.shared_events.is_empty() {
                println!("{:<20} {:<7} {:<18} {:<9} holders", "shared event key", "kind", "creator", "state");
                for c in &l.shared_events {
                    let holders: Vec<String> = c.holders.iter().map(u32::to_string).collect();
                    println!(
                        "{:<20} {:<7} {:<18} {:<9} {}",
                        c.key,
                        c.kind,
                        format!("{} ({})", c.creator_pid, alive(c.creator_alive)),
                        if c.withdrawn { "withdrawn" } else { "live" },
                        if holders.is_empty() { "none".into() } else { holders.join(",") },
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Debug, Serialize)]
struct Collected {
    root: String,
    processes: usize,
    entries: usize,
    shared_events: usize,
    bytes: u64,
}

/// Runs `vmmkit gc`.
///
/// # Errors
/// When the root cannot be opened or collected.
pub fn gc(args: &Args) -> anyhow::Result<ExitCode> {
    let reg = match open(args)? {
        Ok(reg) => reg,
        Err(root) => {
            let none =
                Collected { root: root.display().to_string(), processes: 0, entries: 0, shared_events: 0, bytes: 0 };
            match args.format {
                Format::Json => println!("{}", serde_json::to_string_pretty(&none)?),
                Format::Table => println!("{}: nothing to collect", no_state(&root)),
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    let r = reg.gc().context("collecting")?;
    let c = Collected {
        root: reg.root().display().to_string(),
        processes: r.processes,
        entries: r.entries,
        shared_events: r.cells,
        bytes: r.bytes,
    };
    match args.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&c)?),
        Format::Table => println!(
            "gc {}: freed {} from {} dead process(es) and {} unheld exported handle(s){}",
            c.root,
            size(c.bytes),
            c.processes,
            c.entries,
            if c.shared_events > 0 { format!(", {} unheld shared event(s)", c.shared_events) } else { String::new() }
        ),
    }
    Ok(ExitCode::SUCCESS)
}
