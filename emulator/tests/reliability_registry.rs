//! Damaged registry files (truncated, overwritten, of another format, unwritable under `umask 277`).
//!
//! - `registry_files_survive_any_damage`: a proptest fuzzer of `state` and of
//!   `shared/`. Each case makes a fresh root with real state (two emulators
//!   in this process: one that exports and then goes away as if it died, one
//!   that stays and holds what it exported and imported), then runs rounds of
//!   damage drawn by proptest, each followed by what `vmmkit ls`, `vmmkit gc`
//!   and a program do (open, list, gc, import every key, allocate). No round
//!   may panic (nothing catches a panic but proptest, which reports it as a
//!   failing case), and gc restores the truth: while the live emulator holds
//!   its entries the ledger counts exactly the well-formed linked entries
//!   someone holds; once it is gone, nothing is in use. The run prints its
//!   seed (`VMMKIT_FUZZ_SEED=<n>` replays it) and how many corruptions it
//!   made (`VMMKIT_FUZZ_CASES=<n>` cases of `ROUNDS` rounds; the default run
//!   makes at least 10,000).
//! - `umask_does_not_make_an_unusable_root`: under umask 277, 077, 022 and
//!   000 a program makes a private root that another program can use.

mod common;

use std::os::unix::fs::MetadataExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use common::dialect::Acl;
use common::worker::Worker;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunConfig, RngAlgorithm, TestRng, TestRunner};
use vmmkit_emulator::Config;
use vmmkit_emulator::core::Emulator;
use vmmkit_emulator::registry::{HEADER_XATTR, META_LEN, Place, Registry, Trust};
use vmmkit_testkit::TestRoot;

const G: u64 = 2 << 20;
const DEVICES: u32 = 2;
/// Rounds of damage per case.
const ROUNDS: usize = 100;
/// Cases of the default run (`VMMKIT_FUZZ_CASES` changes it).
const CASES: u32 = 40;
/// Corruptions the default run must make at least.
const AT_LEAST: usize = 10_000;

/// The peers: this binary run as a driver.
#[test]
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some("driver") => common::driver::serve::<Acl>(),
        Some(other) => panic!("unknown role {other}"),
    }
}

// ---------------------------------------------------------------- umask

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap_or_else(|e| panic!("stat {}: {e}", p.display())).mode() & 0o7777
}

/// A driver worker in `root` whose umask is `mask`.
fn with_umask(name: &str, root: &Path, mask: u32) -> Worker {
    Worker::start_with(name, "driver", root, &[("VMMKIT_DEVICES", "2")], |cmd| {
        // SAFETY: umask(2) is async-signal-safe and touches no memory.
        unsafe {
            cmd.pre_exec(move || {
                libc::umask(mask as libc::mode_t);
                Ok(())
            })
        };
    })
}

/// Under any umask, the first program makes a root (with its parents),
/// `shared/`, `state` and entries with exact private modes, and a second
/// program under the same umask imports, maps and reads what it exported.
/// (Before: under umask 277 the root was made 0500, and the first
/// allocation failed because `state` could not be created in it.)
#[test]
fn umask_does_not_make_an_unusable_root() {
    for mask in [0o277, 0o077, 0o022, 0o000] {
        let t = TestRoot::new("vmmkit-umask-").expect("tempdir");
        let root = t.scratch().join("made/root");
        let mut a = with_umask("exporter", &root, mask);
        a.ok("device 0");
        a.ok(&format!("alloc a 0 {G}"));
        a.ok("map a 0");
        let sum = a.ok("fill a 7");
        let key = a.ok("export a 0");
        let mut b = with_umask("importer", &root, mask);
        b.ok("device 1");
        b.ok(&format!("import b {key} 1 {G}"));
        b.ok("map b 1");
        assert_eq!(b.ok("sum b"), sum, "umask {mask:o}: the importer reads what the exporter wrote");
        let entry = root.join(format!("shared/{:016x}", key.parse::<u64>().expect("key")));
        for (p, want) in [
            (t.scratch().join("made"), 0o700),
            (root.clone(), 0o700),
            (root.join("shared"), 0o700),
            (root.join("state"), 0o600),
            (entry, 0o600),
        ] {
            assert_eq!(mode(&p), want, "umask {mask:o}: mode of {}", p.display());
        }
        for w in [&mut b, &mut a] {
            w.ok("teardown");
            w.ok("exit");
            w.finish();
        }
        common::audit::assert_clean(&root, &format!("umask {mask:o}"));
    }
}

// ---------------------------------------------------------------- the fuzzer

/// One damage to the files of a root.
#[derive(Debug, Clone)]
enum Damage {
    /// `state` cut (or extended with zeros) to this many bytes.
    StateLen(u64),
    /// `state` removed.
    StateRemove,
    /// `len` bytes written into `state` at `at` (taken modulo its length).
    StateBytes { at: u64, bytes: Vec<u8> },
    /// An 8-byte word written into `state` at `at` (modulo its length).
    StateWord { at: u64, value: u64 },
    /// Entry `which` (modulo the number of files in `shared/`) cut or extended to `len`.
    EntryLen { which: usize, len: EntryLen },
    /// Word `word` of the header of entry `which` set to `value`.
    HeaderWord { which: usize, word: u64, value: u64 },
    /// Bytes written anywhere in the metadata tail of entry `which`.
    TailBytes { which: usize, at: u64, bytes: Vec<u8> },
    /// Entry `which` removed.
    EntryRemove { which: usize },
    /// A file in `shared/`, named like a key or not.
    Garbage { name: Name, len: u64, bytes: Vec<u8> },
    /// A copy of entry `which`'s metadata under another key, with header word `word` set to `value`.
    Forged { which: usize, key: u64, word: u64, value: u64 },
    /// A symlink in `shared/` named like a key.
    Symlink { key: u64, to: LinkTarget },
    /// A directory or a FIFO in `shared/` named like a key.
    Special { key: u64, fifo: bool },
    /// `shared/` or `state` replaced for one round by a symlink (or a
    /// directory): every open must be refused, nothing followed.
    Swap { state: bool, dir: bool },
}

#[derive(Debug, Clone, Copy)]
enum EntryLen {
    Zero,
    Minus(u64),
    Plus(u64),
    IntoHeader(u64),
}

#[derive(Debug, Clone)]
enum Name {
    Key(u64),
    Other(String),
}

#[derive(Debug, Clone, Copy)]
enum LinkTarget {
    OtherEntry(usize),
    State,
    DevZero,
    Nowhere,
    Root,
}

/// Offsets of `state` worth hitting (registry/state.rs's layout: magic,
/// device count, next share id, capacities, claims, entry generation, slots
/// used, the entries' counters of devices 0, 1 and host, the first two
/// slots' owner, pid, busy, start and charges), besides random ones.
const STATE_SPOTS: &[u64] =
    &[0, 8, 12, 16, 24, 32, 40, 48, 56, 64, 568, 576, 584, 588, 592, 600, 608, 1112, 1120, 1128, 1144];

fn any_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(2),
        Just(63),
        Just(64),
        Just(1000),
        Just(u64::from(u32::MAX)),
        Just(1 << 32),
        Just(1 << 63),
        Just(u64::MAX),
        Just(G),
        Just(G - 1),
        any::<u64>(),
    ]
}

fn any_key() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        (0u64..4, 1u64..64).prop_map(|(d, id)| (d << 32) | id),
        (64u64..256).prop_map(|d| d << 32 | 1)
    ]
}

fn damage() -> impl Strategy<Value = Damage> {
    let which = any::<usize>();
    let bytes = prop::collection::vec(any::<u8>(), 1..24);
    prop_oneof![
        prop_oneof![Just(0u64), 0u64..64, 0u64..4096, 0u64..(4 << 20)].prop_map(Damage::StateLen),
        Just(Damage::StateRemove),
        (any::<u64>(), bytes.clone()).prop_map(|(at, bytes)| Damage::StateBytes { at, bytes }),
        (prop_oneof![prop::sample::select(STATE_SPOTS), any::<u64>()], any_value())
            .prop_map(|(at, value)| Damage::StateWord { at, value }),
        (
            which,
            prop_oneof![
                Just(EntryLen::Zero),
                (1u64..8192).prop_map(EntryLen::Minus),
                (1u64..8192).prop_map(EntryLen::Plus),
                (0u64..4096).prop_map(EntryLen::IntoHeader),
            ]
        )
            .prop_map(|(which, len)| Damage::EntryLen { which, len }),
        (which, 0u64..16, any_value()).prop_map(|(which, word, value)| Damage::HeaderWord { which, word, value }),
        (which, 0u64..8192, bytes.clone()).prop_map(|(which, at, bytes)| Damage::TailBytes { which, at, bytes }),
        which.prop_map(|which| Damage::EntryRemove { which }),
        (
            prop_oneof![any_key().prop_map(Name::Key), "[a-z.]{1,12}".prop_map(Name::Other)],
            prop_oneof![Just(0u64), 0u64..8192, Just(META_LEN), Just(G + META_LEN)],
            bytes,
        )
            .prop_map(|(name, len, bytes)| Damage::Garbage { name, len, bytes }),
        (which, any_key(), 0u64..16, any_value()).prop_map(|(which, key, word, value)| Damage::Forged {
            which,
            key,
            word,
            value
        }),
        (
            any_key(),
            prop_oneof![
                which.prop_map(LinkTarget::OtherEntry),
                Just(LinkTarget::State),
                Just(LinkTarget::DevZero),
                Just(LinkTarget::Nowhere),
                Just(LinkTarget::Root),
            ]
        )
            .prop_map(|(key, to)| Damage::Symlink { key, to }),
        (any_key(), any::<bool>()).prop_map(|(key, fifo)| Damage::Special { key, fifo }),
        (any::<bool>(), any::<bool>()).prop_map(|(state, dir)| Damage::Swap { state, dir }),
    ]
}

/// What one case does: real state, then rounds of 1 to 5 damages each.
#[derive(Debug, Clone)]
struct Case {
    /// Entries the emulator that dies exports (device of each).
    dead: Vec<u32>,
    /// Entries the live emulator exports (device of each).
    live: Vec<u32>,
    /// Whether the live emulator also imports the first dead entry (so it survives its exporter).
    adopt: bool,
    rounds: Vec<Vec<Damage>>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(0..DEVICES, 1..4),
        prop::collection::vec(0..DEVICES, 0..3),
        any::<bool>(),
        prop::collection::vec(prop::collection::vec(damage(), 1..6), ROUNDS),
    )
        .prop_map(|(dead, live, adopt, rounds)| Case { dead, live, adopt, rounds })
}

/// Files of `shared/`, sorted (so `which` picks the same one for the same tree).
fn shared_files(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(root.join("shared")).into_iter().flatten().flatten().map(|e| e.path()).collect();
    v.sort();
    v
}

fn pick(root: &Path, which: usize) -> Option<PathBuf> {
    let files = shared_files(root);
    let f = files.get(which % files.len().max(1))?.clone();
    // Only regular files are entries to damage (not what an earlier damage linked).
    std::fs::symlink_metadata(&f).ok().filter(|m| m.is_file()).map(|_| f)
}

/// The existing file `path` (never through a symlink), for writing.
fn open_rw(path: &Path) -> Option<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new().write(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path).ok()
}

fn write_at(path: &Path, at: u64, bytes: &[u8]) {
    use std::os::unix::fs::FileExt;
    if let Some(f) = open_rw(path) {
        let _ = f.write_all_at(bytes, at);
    }
}

fn set_len(path: &Path, len: u64) {
    if let Some(f) = open_rw(path) {
        let _ = f.set_len(len);
    }
}

fn file_len(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).map(|m| m.len()).unwrap_or(0)
}

fn key_path(root: &Path, key: u64) -> PathBuf {
    root.join(format!("shared/{key:016x}"))
}

/// Applies `d` to `root`. Returns what must be put back after the round (a swap).
fn apply(root: &Path, d: &Damage) -> Option<(PathBuf, PathBuf)> {
    let state = root.join("state");
    match d {
        Damage::StateLen(n) => set_len(&state, *n),
        Damage::StateRemove => drop(std::fs::remove_file(&state)),
        Damage::StateBytes { at, bytes } => write_at(&state, at % file_len(&state).max(1), bytes),
        Damage::StateWord { at, value } => write_at(&state, at % file_len(&state).max(1), &value.to_le_bytes()),
        Damage::EntryLen { which, len } => {
            if let Some(f) = pick(root, *which) {
                let n = file_len(&f);
                let to = match len {
                    EntryLen::Zero => 0,
                    EntryLen::Minus(k) => n.saturating_sub(*k),
                    EntryLen::Plus(k) => n + k,
                    EntryLen::IntoHeader(k) => n.saturating_sub(META_LEN) + k,
                };
                set_len(&f, to);
            }
        }
        Damage::HeaderWord { which, word, value } => {
            if let Some(f) = pick(root, *which) {
                set_header_word(&f, *word, *value);
            }
        }
        Damage::TailBytes { which, at, bytes } => {
            if let Some(f) = pick(root, *which) {
                write_at(&f, file_len(&f).saturating_sub(META_LEN) + at, bytes);
            }
        }
        Damage::EntryRemove { which } => {
            if let Some(f) = pick(root, *which) {
                let _ = std::fs::remove_file(f);
            }
        }
        Damage::Garbage { name, len, bytes } => {
            let path = match name {
                Name::Key(k) => key_path(root, *k),
                Name::Other(s) => root.join("shared").join(s),
            };
            if !path.exists() {
                set_len_new(&path, *len);
                write_at(&path, len.saturating_sub(bytes.len() as u64) / 2, bytes);
            }
        }
        Damage::Forged { which, key, word, value } => {
            let path = key_path(root, *key);
            if let Some(f) = pick(root, *which)
                && !path.exists()
            {
                let n = file_len(&f);
                let meta = n.saturating_sub(META_LEN);
                let mut head = vec![0u8; 4096];
                if let Ok(src) = std::fs::File::open(&f) {
                    use std::os::unix::fs::FileExt;
                    let _ = src.read_at(&mut head, meta);
                }
                set_len_new(&path, n);
                write_at(&path, meta, &head);
                if let Some(attr) = header_attr(&f) {
                    let _ = rustix::fs::setxattr(&path, HEADER_XATTR, &attr, rustix::fs::XattrFlags::empty());
                }
                set_header_word(&path, *word, *value);
            }
        }
        Damage::Symlink { key, to } => {
            let target = match to {
                LinkTarget::OtherEntry(w) => pick(root, *w).unwrap_or_else(|| root.join("nowhere")),
                LinkTarget::State => state,
                LinkTarget::DevZero => PathBuf::from("/dev/zero"),
                LinkTarget::Nowhere => root.join("nowhere"),
                LinkTarget::Root => root.to_path_buf(),
            };
            let _ = std::os::unix::fs::symlink(target, key_path(root, *key));
        }
        Damage::Special { key, fifo } => {
            let path = key_path(root, *key);
            if *fifo {
                let _ = rustix::fs::mknodat(
                    rustix::fs::CWD,
                    &path,
                    rustix::fs::FileType::Fifo,
                    rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
                    0,
                );
            } else {
                let _ = std::fs::create_dir(&path);
            }
        }
        Damage::Swap { state: s, dir } => {
            let name = if *s { "state" } else { "shared" };
            let real = root.join(name);
            let aside = root.join(format!("{name}.aside"));
            if !aside.exists() && std::fs::rename(&real, &aside).is_ok() {
                // A directory open to others (a private one would be a fine, empty, shared/).
                let _ = if *dir {
                    std::fs::create_dir(&real).and_then(|()| {
                        std::fs::set_permissions(&real, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                    })
                } else {
                    std::os::unix::fs::symlink(&aside, &real)
                };
                return Some((real, aside));
            }
        }
    }
    None
}

/// The header held as the entry's extended attribute, if it is one.
fn header_attr(path: &Path) -> Option<Vec<u8>> {
    let mut b = vec![0u8; 4096];
    let n = rustix::fs::lgetxattr(path, HEADER_XATTR, &mut b).ok()?;
    b.truncate(n);
    Some(b)
}

/// Overwrites word `word` of the header at `path`: in its attribute where
/// it has one (words are 0..16: a word past a damaged attribute's end
/// lengthens it), else in the tail.
fn set_header_word(path: &Path, word: u64, value: u64) {
    match header_attr(path) {
        Some(mut b) => {
            let at = word as usize * 8;
            b.resize(b.len().max(at + 8), 0);
            b[at..at + 8].copy_from_slice(&value.to_le_bytes());
            let _ = rustix::fs::lsetxattr(path, HEADER_XATTR, &b, rustix::fs::XattrFlags::empty());
        }
        None => write_at(path, file_len(path).saturating_sub(META_LEN) + word * 8, &value.to_le_bytes()),
    }
}

fn set_len_new(path: &Path, len: u64) {
    use std::os::unix::fs::OpenOptionsExt;
    if let Ok(f) = std::fs::OpenOptions::new().write(true).create_new(true).mode(0o600).open(path) {
        let _ = f.set_len(len);
    }
}

/// Puts back what a swap moved aside.
fn restore(real: &Path, aside: &Path) {
    match std::fs::symlink_metadata(real) {
        Ok(m) if m.is_dir() => drop(std::fs::remove_dir_all(real)),
        Ok(_) => drop(std::fs::remove_file(real)),
        Err(_) => {}
    }
    std::fs::rename(aside, real).expect("put back what a swap moved");
}

/// An entry's inode, length, tail and header attribute ([`fingerprint`]).
type Fingerprint = (u64, u64, Vec<u8>, Option<Vec<u8>>);

/// What identifies an entry's file and its metadata: inode, length, the
/// first 8 KiB of its tail (the header where attributes are not supported,
/// and the trustlist's start) and its header attribute.
fn fingerprint(path: &Path) -> Option<Fingerprint> {
    use std::os::unix::fs::FileExt;
    let m = std::fs::symlink_metadata(path).ok().filter(|m| m.is_file())?;
    let f = std::fs::File::open(path).ok()?;
    let mut tail = vec![0u8; 8192];
    let n = f.read_at(&mut tail, m.len().saturating_sub(META_LEN)).ok()?;
    tail.truncate(n);
    Some((m.ino(), m.len(), tail, header_attr(path)))
}

/// Keys named in `shared/` (and a few that are not).
fn keys_in(root: &Path) -> Vec<u64> {
    let mut keys: Vec<u64> =
        shared_files(root).iter().filter_map(|p| u64::from_str_radix(p.file_name()?.to_str()?, 16).ok()).collect();
    keys.extend([0, 1, u64::MAX, 64 << 32 | 1]);
    keys
}

/// What `vmmkit ls`, `vmmkit gc` and a program do with the root. Any result
/// is fine but a panic.
fn exercise(cfg: &Config, round: usize) {
    if let Ok(reg) = Registry::open_existing(&cfg.root) {
        let _ = reg.usage();
        let _ = reg.processes();
        if round % 8 == 0 {
            let _ = reg.entries();
        }
        let _ = reg.gc();
    }
    let Ok(emu) = Emulator::new(cfg.clone()) else { return };
    let _ = emu.registry().usage();
    for key in keys_in(&cfg.root) {
        for d in 0..DEVICES {
            if let Ok(id) = emu.import(key, Place::Device(d)) {
                let _ = emu.free(id);
            }
        }
    }
    let d = round as u32 % DEVICES;
    if let Ok(id) = emu.create(Place::Device(d), G, G, [0, G, 1, u64::from(d)]) {
        if let Ok(key) = emu.export(id, Trust::Trustlist) {
            let _ = emu.set_trusted(key, &[1, i32::MAX]);
        }
        let _ = emu.free(id);
    }
}

/// The truth while `live` holds its entries: after gc, the ledger counts
/// exactly the well-formed linked entries that someone holds.
fn check_held(cfg: &Config, what: &str) -> Result<(), TestCaseError> {
    let Ok(reg) = Registry::open(cfg) else { return Ok(()) }; // settings refused while live: no ledger to check
    reg.gc().map_err(|e| TestCaseError::fail(format!("{what}: gc: {e}")))?;
    let mut want = vec![0u64; DEVICES as usize];
    for e in reg.entries() {
        if let (Place::Device(d), false) = (e.place, e.holders.is_empty()) {
            let Some(w) = want.get_mut(d as usize) else {
                return Err(TestCaseError::fail(format!("{what}: entry {:#x} on device {d}", e.key)));
            };
            *w += e.size;
        }
    }
    let used = reg.usage().used;
    prop_assert_eq!(&used, &want, "{}: used per device, against held well-formed entries", what);
    Ok(())
}

/// The truth once every holder is gone: after gc nothing is in use and no
/// entry is left.
fn check_empty(cfg: &Config, what: &str) -> Result<(), TestCaseError> {
    let reg = Registry::open(cfg).map_err(|e| TestCaseError::fail(format!("{what}: open: {e}")))?;
    reg.gc().map_err(|e| TestCaseError::fail(format!("{what}: gc: {e}")))?;
    let used = reg.usage().used;
    prop_assert!(used.iter().all(|&u| u == 0), "{}: used {:?} with nothing held", what, used);
    let left: Vec<u64> = reg.entries().iter().map(|e| e.key).collect();
    prop_assert!(left.is_empty(), "{}: entries left after gc: {:x?}", what, left);
    Ok(())
}

static CORRUPTIONS: AtomicUsize = AtomicUsize::new(0);

fn run_case(c: &Case) -> Result<(), TestCaseError> {
    let t = TestRoot::on_shm("vmmkit-fuzz-").expect("tempdir");
    let cfg = Config {
        root: t.path().to_path_buf(),
        devices: DEVICES,
        device_memory: 64 << 20,
        host_memory: 64 << 20,
        host_access: true,
    };
    let props = |d: u32| [0, G, 1, u64::from(d)];
    // The emulator that goes away: exports, lists a pid, and is dropped
    // with its holds (as a killed process's are dropped by the kernel).
    let dead = Emulator::new(cfg.clone()).expect("first emulator");
    let mut dead_keys = Vec::new();
    for &d in &c.dead {
        let id = dead.create(Place::Device(d), G, G, props(d)).expect("create");
        let key = dead.export(id, Trust::Trustlist).expect("export");
        dead.set_trusted(key, &[std::process::id() as i32, 12345]).expect("set pid");
        dead_keys.push(key);
    }
    // The emulator that stays: holds what it exports and, maybe, one import.
    let live = Emulator::new(cfg.clone()).expect("second emulator");
    let mut held = Vec::new();
    for &d in &c.live {
        let id = live.create(Place::Device(d), G, G, props(d)).expect("create");
        held.push(live.export(id, Trust::AnyProcess).expect("export"));
    }
    if c.adopt {
        live.import(dead_keys[0], Place::Device((c.dead[0] + 1) % DEVICES)).expect("import");
        held.push(dead_keys[0]);
    }
    drop(dead);
    let prints: Vec<_> = held.iter().map(|&k| fingerprint(&key_path(&cfg.root, k))).collect();
    check_held(&cfg, "before any damage")?;
    // Once `state` has been written into, the live emulator's slot may hold
    // any charge, which no recount can tell from a real one; once an entry
    // the live emulator holds was removed or damaged, whether its memory
    // (still in use) counts is the ledger's choice. From then on the
    // held-truth check waits for the end, when the live emulator is gone.
    let mut ambiguous = false;
    for (r, damages) in c.rounds.iter().enumerate() {
        let mut swaps = Vec::new();
        // Swaps last (one per target), so that nothing in the round undoes them.
        let (swap, other): (Vec<&Damage>, Vec<&Damage>) =
            damages.iter().partition(|d| matches!(d, Damage::Swap { .. }));
        for d in other.into_iter().chain(swap) {
            ambiguous |= matches!(d, Damage::StateBytes { .. } | Damage::StateWord { .. });
            swaps.extend(apply(&cfg.root, d));
            CORRUPTIONS.fetch_add(1, Relaxed);
        }
        ambiguous |= held.iter().zip(&prints).any(|(&k, p)| fingerprint(&key_path(&cfg.root, k)) != *p);
        let before: Vec<_> = swaps.iter().map(|(_, aside)| common::audit::listing(aside)).collect();
        exercise(&cfg, r);
        if !swaps.is_empty() {
            // `shared/` or `state` was not what it must be: every open was refused.
            prop_assert!(
                Registry::open(&cfg).is_err(),
                "round {}: an unfit shared/ or state was used: {:?}",
                r,
                damages
            );
            prop_assert!(Registry::open_existing(&cfg.root).is_err(), "round {}: open_existing used it", r);
            let after: Vec<_> = swaps.iter().map(|(_, aside)| common::audit::listing(aside)).collect();
            prop_assert_eq!(before, after, "round {}: something was made through the swapped-in link", r);
            for (real, aside) in swaps.iter().rev() {
                restore(real, aside);
            }
        }
        if !ambiguous {
            check_held(&cfg, &format!("round {r} ({damages:?})"))?;
        }
    }
    drop(live);
    check_empty(&cfg, "after every holder is gone")?;
    Ok(())
}

/// The seed of this run: `VMMKIT_FUZZ_SEED`; else fixed (CI), or the time
/// in the long variant (`VMMKIT_LONG=1`), as the C-ABI fuzzer does.
fn seed() -> u64 {
    if let Some(s) = std::env::var("VMMKIT_FUZZ_SEED").ok().and_then(|s| s.parse().ok()) {
        return s;
    }
    if std::env::var("VMMKIT_LONG").is_ok_and(|v| v == "1") {
        return std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    }
    20
}

/// No byte pattern of `state` or of `shared/` makes the registry panic, and
/// gc restores the truth (see the module's documentation).
///
/// What makes this hold (registry/state.rs, gc.rs, entry.rs): a settings
/// word out of range makes `state` invalid, and the next open sets it up
/// afresh from the linked entries; every sum and subtraction saturates;
/// gc recounts the entries' charges from the entries that are well formed
/// under their own name; a live process rewrites its own slot at gc; a
/// slot whose lock nobody holds is dead.
#[test]
fn registry_files_survive_any_damage() {
    let cases = std::env::var("VMMKIT_FUZZ_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(CASES);
    let seed = seed();
    println!("registry fuzz: seed {seed} (VMMKIT_FUZZ_SEED={seed} replays it), {cases} cases of {ROUNDS} rounds");
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let config = RunConfig { cases, max_shrink_iters: 200, failure_persistence: None, ..RunConfig::default() };
    let mut runner = TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &bytes));
    let started = std::time::Instant::now();
    let result = runner.run(&case(), |c| run_case(&c));
    let n = CORRUPTIONS.load(Relaxed);
    println!("registry fuzz: {n} corruptions in {:.1} s (seed {seed})", started.elapsed().as_secs_f64());
    if let Err(e) = result {
        panic!("registry fuzz, seed {seed} (VMMKIT_FUZZ_SEED={seed}): {e}");
    }
    if cases >= CASES {
        assert!(n >= AT_LEAST, "{n} corruptions, fewer than {AT_LEAST}");
    }
}
