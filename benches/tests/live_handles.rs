//! The cost of each live exported handle, held to a bound (counts, not
//! times): 10,000 ACL shareable handles of 2 MiB exported into one root by
//! peer processes (`VMMKIT_LONG=1`: 100,000, over several exporters of at
//! most 16,000 each: one open file per handle), then
//!
//! - bytes (allocated blocks and the header attribute) and inodes the root
//!   gained per handle;
//! - the exporters' resident memory (`VmRSS`) gained per handle;
//! - an importer's resident memory gained per handle it holds (one peer
//!   importing up to 10,000 of them, no mapping);
//! - the system calls of an import + free among them, counted with
//!   `ptrace`: exactly those of the same import when 10 handles were live,
//!   and at most [`IMPORT_CALLS`];
//! - the system calls of `vmmkit ls` (the registry's listing) and of
//!   `vmmkit gc` (a collection that finds every entry held) per handle:
//!   those among N handles less those among 10, over N − 10, at most
//!   [`LS_CALLS`] and [`GC_CALLS`] (linear: no work per pair of handles);
//!   their times are printed (see `docs/reliability.md`).
//!
//! The bounds are in `docs/reliability.md` ("Many live handles"), with the
//! figures measured; each is a few times the measured figure. A test
//! without libtest's harness: the process has one thread when it forks the
//! counted child.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use vmmkit_benches::BenchError;
use vmmkit_benches::backend::Bk;
use vmmkit_benches::peer::Peer;
use vmmkit_benches::peer::wire::Op;
use vmmkit_benches::root::BenchRoot;
use vmmkit_benches::syscalls::{self, Tally};
use vmmkit_runtime::Backend;

/// Bytes of each handle.
const SIZE: usize = 2 << 20;
/// Most handles one exporter holds.
const PER_EXPORTER: usize = 16_000;
/// Most handles the importer holds (one open file each).
const IMPORTS: usize = 10_000;
/// Root bytes per handle, at most: the header attribute (128 bytes) and
/// nothing of the memory, which was never written (measured: 0 blocks).
const ROOT_BYTES: f64 = 1024.0;
/// Root inodes per handle, at most: its file (measured: 1.0).
const ROOT_INODES: f64 = 1.01;
/// Exporter resident bytes per handle, at most (measured: see the docs).
const EXPORTER_RSS: f64 = 4096.0;
/// Importer resident bytes per held import, at most (measured: see the docs).
const IMPORTER_RSS: f64 = 4096.0;
/// System calls of one import + free, at most (measured: 8).
const IMPORT_CALLS: u64 = 12;
/// System calls of `vmmkit ls` per live handle, at most (measured: see the
/// docs): the entry's file (`open`, `fstat`, header, `close`) and its
/// holder's descriptor in `/proc` (`readlink`, the fdinfo's `open`, `read`
/// ×2, `close`).
const LS_CALLS: f64 = 12.0;
/// System calls of `vmmkit gc` per live handle, at most (measured: see the
/// docs): `open`, `flock` (held: refused), `fstat`, header, `close`.
const GC_CALLS: f64 = 8.0;

// One thread when the counted children are forked.
fn main() {
    vmmkit_testkit::harness::main_single_thread(&[(
        "each_live_handle_costs_at_most_its_bound",
        each_live_handle_costs_at_most_its_bound,
    )])
}

fn each_live_handle_costs_at_most_its_bound() {
    run().unwrap_or_else(|e| panic!("live_handles: {e}"));
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn run() -> Res<()> {
    let long = std::env::var("VMMKIT_LONG").is_ok_and(|v| v == "1");
    let total: usize = if long { 100_000 } else { 10_000 };
    // Not installed here: the counted children (forks) install it, and the
    // emulator refuses a fork of a process that used it (ACL-FORK-001).
    let root = BenchRoot::new()?;
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_vmmkit-bench-peer"));
    let spawn = || Peer::spawn(&exe, "emulator", root.path(), root.floor_dir());
    let hard = rustix::process::getrlimit(rustix::process::Resource::Nofile).maximum.unwrap_or(u64::MAX);
    let per = PER_EXPORTER.min(usize::try_from(hard.saturating_sub(512)).unwrap_or(usize::MAX));
    if per < 1000 {
        vmmkit_testkit::harness::skip(format!("the hard limit of open files ({hard}) is too low"));
    }
    let devices = 16u32;

    // Ten live handles: the import's system calls then.
    let first = spawn()?;
    let empty = usage(root.path())?; // the root as the first peer made it
    let rss0 = vm_rss(first.host_pid())?;
    let mut keys = first.grow(10, 0, SIZE, Duration::from_secs(60))?;
    let small = count_import(root.path(), &keys, "import + free among 10")?;
    let tools_small = count_tools(root.path())?;

    // The rest, spread over exporters and devices (capacity: 64 GiB each).
    let t = Instant::now();
    let mut exporters = vec![(first, rss0, 10usize)];
    while keys.len() < total {
        let last = exporters.len() - 1;
        let room = per - exporters[last].2;
        if room == 0 {
            let p = spawn()?;
            let rss = vm_rss(p.host_pid())?;
            exporters.push((p, rss, 0));
            continue;
        }
        let k = room.min(total - keys.len());
        let device = last as u32 % devices;
        keys.extend(exporters[last].0.grow(k, device, SIZE, Duration::from_secs(900))?);
        exporters[last].2 += k;
    }
    let export_time = t.elapsed();
    let full = usage(root.path())?;
    let mut exporter_gain = 0u64;
    for (p, before, _) in &exporters {
        exporter_gain += vm_rss(p.host_pid())?.saturating_sub(*before);
    }
    let large = count_import(root.path(), &keys, &format!("import + free among {total}"))?;
    let tools_large = count_tools(root.path())?;

    // One importer holding up to IMPORTS of them, a stride through all.
    let importer = spawn()?;
    let held = IMPORTS.min(total);
    let stride = total / held;
    let picked: Vec<u64> = keys.iter().step_by(stride).take(held).copied().collect();
    let before = vm_rss(importer.host_pid())?;
    for chunk in picked.chunks(4000) {
        let mut args = vec![SIZE as u64];
        args.extend_from_slice(chunk);
        let got = importer.call(Op::ImportHold, &args)?;
        if got != [chunk.len() as u64] {
            return Err(format!("the importer held {got:?} of {}", chunk.len()).into());
        }
    }
    let importer_gain = vm_rss(importer.host_pid())?.saturating_sub(before);
    // Timed here, untraced, after the last counted fork.
    let (ls_time, gc_time, listed) = time_tools(root.path())?;

    let n = total as f64;
    let bytes = (full.0 - empty.0) as f64 / n;
    let inodes = (full.1 - empty.1) as f64 / n;
    let exporter = exporter_gain as f64 / n;
    let importer_per = importer_gain as f64 / held as f64;
    println!(
        "live_handles: {total} handles of 2 MiB in one root ({} exporter(s), export {:.1} s): root {bytes:.1} \
         bytes and {inodes:.3} inodes per handle; exporter RSS {exporter:.0} bytes per handle; importer RSS \
         {importer_per:.0} bytes per held import ({held} held); import + free: {} calls among 10 ({}), {} among \
         {total} ({})",
        exporters.len(),
        export_time.as_secs_f64(),
        small.per_window(),
        small.breakdown(),
        large.per_window(),
        large.breakdown(),
    );
    let extra = (total - 10) as f64;
    let ls_per = (tools_large[0].total() as f64 - tools_small[0].total() as f64) / extra;
    let gc_per = (tools_large[1].total() as f64 - tools_small[1].total() as f64) / extra;
    println!(
        "live_handles: vmmkit ls among {total}: {:.0} calls ({}), {ls_per:.2} per handle beyond those among 10 \
         ({:.0}: {}), {:.3} s untraced ({listed} entries listed); vmmkit gc among {total}: {:.0} calls ({}), \
         {gc_per:.2} per handle beyond those among 10 ({:.0}), {:.3} s untraced",
        tools_large[0].per_window(),
        tools_large[0].breakdown(),
        tools_small[0].per_window(),
        tools_small[0].breakdown(),
        ls_time.as_secs_f64(),
        tools_large[1].per_window(),
        tools_large[1].breakdown(),
        tools_small[1].per_window(),
        gc_time.as_secs_f64(),
    );
    let mut failures = Vec::new();
    if listed != total {
        failures.push(format!("vmmkit ls listed {listed} of {total} entries"));
    }
    let mut bound = |what: &str, got: f64, max: f64| {
        if got > max {
            failures.push(format!("{what}: {got:.2} per handle, over the bound {max}"));
        }
    };
    bound("root bytes", bytes, ROOT_BYTES);
    bound("root inodes", inodes, ROOT_INODES);
    bound("exporter RSS bytes", exporter, EXPORTER_RSS);
    bound("importer RSS bytes", importer_per, IMPORTER_RSS);
    bound("import + free system calls", large.per_window(), IMPORT_CALLS as f64);
    bound("vmmkit ls system calls", ls_per, LS_CALLS);
    bound("vmmkit gc system calls", gc_per, GC_CALLS);
    if large.calls != small.calls || large.min != large.max {
        failures.push(format!(
            "an import among {total} makes other calls than among 10: {} / {}",
            large.breakdown(),
            small.breakdown()
        ));
    }
    if full.1 - empty.1 < total as u64 {
        failures.push(format!("{} inodes for {total} handles: the count is wrong", full.1 - empty.1));
    }
    drop(importer);
    drop(exporters);
    root.remove()?;
    if failures.is_empty() { Ok(()) } else { Err(failures.join("; ").into()) }
}

/// Import + free of three of `keys` (the first, the middle, the last), each
/// a counted window, in a traced child over the emulator's ACL dialect.
fn count_import(root: &Path, keys: &[u64], label: &str) -> Res<Tally> {
    let picks = [keys[0], keys[keys.len() / 2], keys[keys.len() - 1]];
    let tallies = syscalls::count(|labels| {
        let config = vmmkit_emulator::Config::from_env()
            .map_err(|e| BenchError::Check(format!("emulator settings: {e}")))?
            .with_root(root);
        vmmkit_emulator::install(config).map_err(|e| BenchError::Check(format!("installing the emulator: {e}")))?;
        let b = Bk::open(Backend::Emulator)?;
        let d = b.dev(0);
        // One import first, uncounted: the process's first use of the root.
        d.import(picks[0], SIZE)?.free()?;
        for k in picks {
            syscalls::begin();
            let r = d.import(k, SIZE).and_then(|m| m.free());
            syscalls::end();
            r?;
        }
        labels.label(label)
    })?;
    tallies.into_iter().next().ok_or_else(|| "nothing counted".into())
}

/// The system calls of `vmmkit ls` (opening the root as it does, and the
/// listing of its entries and cells) and of `vmmkit gc` on `root`, one
/// counted window each, in a traced child.
fn count_tools(root: &Path) -> Res<Vec<Tally>> {
    let tallies = syscalls::count(|labels| {
        let check = |e: String| BenchError::Check(e);
        syscalls::begin();
        let reg = vmmkit_emulator::registry::Registry::open_existing(root).map_err(|e| check(e.to_string()))?;
        let listing = reg.listing();
        syscalls::end();
        labels.label("ls")?;
        syscalls::begin();
        let r = reg.gc();
        syscalls::end();
        labels.label("gc")?;
        r.map_err(|e| check(e.to_string()))?;
        drop(listing);
        Ok(())
    })?;
    if tallies.len() != 2 {
        return Err(format!("{} tallies of ls and gc", tallies.len()).into());
    }
    Ok(tallies)
}

/// The times of `vmmkit ls` (open and list) and `vmmkit gc` on `root`, in
/// this process, and how many entries the listing found.
fn time_tools(root: &Path) -> Res<(Duration, Duration, usize)> {
    let t = Instant::now();
    let reg = vmmkit_emulator::registry::Registry::open_existing(root)?;
    let listed = reg.listing().entries.len();
    let ls = t.elapsed();
    let t = Instant::now();
    let r = reg.gc()?;
    let gc = t.elapsed();
    if r.entries != 0 {
        return Err(format!("gc removed {} held entries", r.entries).into());
    }
    Ok((ls, gc, listed))
}

/// Bytes (allocated blocks, and each file's header attribute) and inodes
/// under `dir`.
fn usage(dir: &Path) -> Res<(u64, u64)> {
    let mut bytes = 0;
    let mut inodes = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)? {
            let e = e?;
            let m = e.metadata()?;
            inodes += 1;
            bytes += m.blocks() * 512;
            if m.is_dir() {
                stack.push(e.path());
            } else if m.is_file() {
                let mut buf = [0u8; 4096];
                if let Ok(n) = rustix::fs::getxattr(e.path(), vmmkit_emulator::registry::HEADER_XATTR, &mut buf) {
                    bytes += n as u64;
                }
            }
        }
    }
    Ok((bytes, inodes))
}

/// `VmRSS` of `pid`, in bytes.
fn vm_rss(pid: i32) -> Res<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .ok_or("no VmRSS")?;
    Ok(kib * 1024)
}
