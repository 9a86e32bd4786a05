//! Shared events and notifies (their cells: one file each in `shared/`) are
//! kept like memory: what dead processes left is collected when a creation
//! finds the root's file system out of inodes, and an open that races the
//! creator's destroy never leaves a file that nobody holds.
//!
//! `VMMKIT_LONG=1` runs the long variant of the race (30,000 cycles and two
//! openers instead of 1,000 cycles and one).

// The `call!` helper wraps deliberate bad arguments in its unsafe block.
#![allow(clippy::macro_metavars_in_unsafe)]

mod common;

use std::path::Path;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::worker::Worker;
use common::{acl, audit, prop};
use vmmkit_emulator::core::{EventFlags, emulator};
use vmmkit_sys::acl::*;
use vmmkit_testkit::TestRoot;

/// The peers: shared-cell workers, the racers, and the small-tmpfs scenario.
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some(common::cells::ROLE) => common::cells::serve(),
        Some("race") => race_serve(),
        Some("inodes") => inodes_scenario(),
        Some(other) => panic!("unknown role {other}"),
    }
}

fn long() -> bool {
    std::env::var("VMMKIT_LONG").is_ok_and(|v| v == "1")
}

/// Words of the file the racers share: the key the creator has out now
/// (0: none), how many opens succeeded, and whether the creator is done.
struct Board {
    words: *const AtomicU64,
}

const KEY: usize = 0;
const OPENS: usize = 1;
const DONE: usize = 2;

impl Board {
    /// Maps the board at `path` (made by the first caller).
    fn map(path: &str) -> Self {
        use std::os::fd::AsRawFd;
        let f = std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(path).unwrap();
        f.set_len(4096).unwrap();
        let m = memmap2::MmapOptions::new().len(4096).map_raw(f.as_raw_fd()).unwrap();
        let words = m.as_mut_ptr().cast::<AtomicU64>().cast_const();
        std::mem::forget(m); // mapped until the process exits
        Self { words }
    }

    fn word(&self, i: usize) -> &AtomicU64 {
        // SAFETY: the page stays mapped (forgotten map); words are aligned
        // and only ever accessed atomically, by every process.
        unsafe { &*self.words.add(i) }
    }
}

/// The racers' commands:
///
/// ```text
/// create N BOARD   N times: make an interprocess event, put its key on the
///                  board, wait until some open succeeds (at most 2 ms),
///                  destroy it; then mark the board done. Replies N.
/// open BOARD       until the board is done: open the key on it, and destroy
///                  what opened. Replies opens and refusals.
/// ```
fn race_serve() {
    let e = emulator().expect("emulator");
    let flags = EventFlags { interprocess: true, ..EventFlags::default() };
    while let Some(line) = common::next_command() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["create", n, board] => {
                let b = Board::map(board);
                let n: u64 = n.parse().unwrap();
                for _ in 0..n {
                    let id = e.event_create(flags).unwrap();
                    let key = e.event_export(id).unwrap();
                    let seen = b.word(OPENS).load(Ordering::Acquire);
                    b.word(KEY).store(key, Ordering::Release);
                    let until = Instant::now() + Duration::from_millis(2);
                    while b.word(OPENS).load(Ordering::Acquire) == seen && Instant::now() < until {
                        std::hint::spin_loop();
                    }
                    e.event_destroy(id).unwrap();
                }
                b.word(KEY).store(0, Ordering::Release);
                b.word(DONE).store(1, Ordering::Release);
                common::reply(format!("ok {n}"));
            }
            ["open", board] => {
                let b = Board::map(board);
                let (mut opened, mut refused) = (0u64, 0u64);
                while b.word(DONE).load(Ordering::Acquire) == 0 {
                    let key = b.word(KEY).load(Ordering::Acquire);
                    if key == 0 {
                        std::hint::spin_loop();
                        continue;
                    }
                    match e.event_open(key) {
                        Ok(id) => {
                            opened += 1;
                            b.word(OPENS).fetch_add(1, Ordering::AcqRel);
                            e.event_destroy(id).unwrap();
                        }
                        Err(_) => refused += 1,
                    }
                }
                common::reply(format!("ok {opened} {refused}"));
            }
            _ => panic!("unknown race command {line}"),
        }
    }
}

/// A creator makes and destroys events while another process (two in the
/// long variant) opens each one as it goes: every open either fails or holds a live event, and when
/// all have exited normally `shared/` is empty (the last one out removed
/// every file, even when an open took its hold after the creator's destroy
/// looked for holders).
fn an_open_racing_the_creators_destroy_leaves_no_file() {
    let cycles: u64 = if long() { 30_000 } else { 1_000 };
    let opener_count = if long() { 2 } else { 1 };
    let root = TestRoot::new("vmmkit-race-").expect("root").checked();
    let board = root.scratch().join("board").to_string_lossy().into_owned();
    let mut creator = Worker::start("creator", "race", root.path(), &[]);
    let mut openers: Vec<Worker> =
        (0..opener_count).map(|i| Worker::start(&format!("opener{i}"), "race", root.path(), &[])).collect();
    let started = Instant::now();
    for o in &mut openers {
        o.send(&format!("open {board}"));
    }
    creator.send(&format!("create {cycles} {board}"));
    let bound = Duration::from_secs(if long() { 600 } else { 120 });
    assert_eq!(creator.recv_within(bound).expect("creator"), format!("ok {cycles}"));
    let mut opens = Vec::new();
    for o in &mut openers {
        opens.push(o.recv_within(common::TIMEOUT).expect("opener"));
    }
    let took = started.elapsed();
    creator.finish();
    for o in &mut openers {
        o.finish();
    }
    println!(
        "{cycles} create/open/destroy cycles, {opener_count} opener(s) (opened, refused: {}), {:.2} s",
        opens.join("; "),
        took.as_secs_f64()
    );
    // Nobody ran gc, and every process exited normally: what is left, nobody removed.
    assert_eq!(root.leftovers(), Vec::<String>::new(), "event files no process holds");
}

/// An open of a notify's key in the process that made it (the core allows
/// it; ACL imports it where the list is off) is a holder like any other:
/// destroying it does not withdraw the notify, which a trusted process can
/// still open. The creator's own destroy does.
fn an_open_in_the_creating_process_does_not_withdraw_on_destroy() {
    let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
    let mut a = Worker::start("creator", common::cells::ROLE, root.path(), &[]);
    let mut b = Worker::start("opener", common::cells::ROLE, root.path(), &[]);
    let reply = a.ok("notify");
    let (notify, key) = reply.split_once(' ').expect("id and key");
    a.ok(&format!("trust {notify} {}", b.ok("pid")));
    let again = a.ok(&format!("nopen {key}"));
    a.ok(&format!("destroy {again}"));
    let opened = b.ok(&format!("nopen {key}"));
    b.ok(&format!("destroy {opened}"));
    a.ok(&format!("destroy {notify}"));
    assert!(b.ask(&format!("nopen {key}")).starts_with("err UnknownSharedCell"), "withdrawn by its creator");
    a.finish();
    b.finish();
    assert_eq!(root.leftovers(), Vec::<String>::new());
}

/// The tmpfs of the scenario: 64 inodes.
const SMALL_TMPFS: &str = "size=16m,nr_inodes=64,mode=0700";

/// Cells left by SIGKILLed processes fill a 64-inode tmpfs; then an event
/// creation, a notify creation and an `aclrtMallocPhysical` succeed, with no
/// `vmmkit gc` run: the creation collects what the dead left and tries once
/// more. Skipped, with the reason printed, where no mount namespace with a
/// tmpfs can be made.
fn cells_of_the_dead_are_collected_when_the_root_runs_out_of_inodes() {
    let dir = tempfile::tempdir().unwrap();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    match common::namespace::run_scenario("inodes", &mnt, SMALL_TMPFS, &[]) {
        Ok(report) => println!("64-inode tmpfs:\n  {}", report.join("\n  ")),
        Err(reason) => vmmkit_testkit::harness::skip(reason),
    }
    assert_eq!(audit::listing(&mnt), Vec::<String>::new(), "the tmpfs went with its namespace");
}

/// A process that makes events and notifies until the file system has no
/// inode left, and is then SIGKILLed. Returns how many it made.
fn fill_and_die(root: &Path, name: &str) -> usize {
    let mut w = Worker::start(name, common::cells::ROLE, root, &[]);
    let mut made = 0;
    loop {
        let reply = w.ask(if made % 2 == 0 { "event" } else { "notify" });
        if reply.starts_with("err") {
            assert!(reply.contains("No space left") || reply.contains("28"), "{name}: {reply}");
            break;
        }
        made += 1;
        assert!(made < 1000, "{name}: a 64-inode tmpfs took {made} cells");
    }
    assert!(made > 0, "{name} made nothing");
    w.kill();
    made
}

fn shared_files(root: &Path) -> usize {
    std::fs::read_dir(root.join("shared")).map_or(0, |d| d.count())
}

/// Inside the namespace: three rounds, each after a process filled the
/// tmpfs with cells and was killed.
fn inodes_scenario() {
    let root = std::path::PathBuf::from(std::env::var("VMMKIT_ROOT").unwrap());
    let api = acl();
    ok!(api, aclrtSetDevice(0));
    let e = emulator().expect("emulator");
    let flags = EventFlags { interprocess: true, ..EventFlags::default() };

    // Each round on a root filled by the cells of a killed process; a round
    // that fails is reported, and gc run by hand so that the next starts
    // from an empty root.
    let mut failed = Vec::new();
    let mut round = |name: &str, what: &str, make: &mut dyn FnMut() -> Result<(), String>| {
        let made = fill_and_die(&root, name);
        let left = shared_files(&root);
        match make() {
            Ok(()) => common::reply(format!(
                "{made} cells of a killed process ({left} files) fill the inodes: {what} succeeds; {} files left",
                shared_files(&root)
            )),
            Err(why) => {
                failed.push(format!("{what} on a root full of the dead's cells: {why}"));
                e.registry().gc().unwrap();
            }
        }
    };
    let mut event = None;
    round("dead1", "an interprocess event's creation", &mut || {
        event = Some(e.event_create(flags).map_err(|er| er.to_string())?);
        Ok(())
    });
    let mut notify = None;
    round("dead2", "a notify's creation", &mut || {
        notify = Some(e.notify_create().map_err(|er| er.to_string())?);
        Ok(())
    });
    let mut h = null_mut();
    round(
        "dead3",
        "aclrtMallocPhysical",
        &mut || match call!(api, aclrtMallocPhysical(&mut h, 2 << 20, &prop(0), 0)) {
            AclError::SUCCESS => Ok(()),
            rc => Err(format!("{rc} ({})", common::last_message(&api))),
        },
    );
    assert_eq!(failed, Vec::<String>::new());

    // A shortfall that no collection can help stays a failure: the live
    // process's own cells fill the inodes, and a creation fails.
    let mut mine = Vec::new();
    while let Ok(id) = e.event_create(flags) {
        mine.push(id);
        assert!(mine.len() < 1000, "a 64-inode tmpfs took {} events", mine.len());
    }
    // Memory not shared needs no inode of its own (the process's arena,
    // docs/emulator.md); its export does, and fails.
    let mut h2 = null_mut();
    ok!(api, aclrtMallocPhysical(&mut h2, 2 << 20, &prop(0), 0));
    let mut key = 0u64;
    let rc = call!(api, aclrtMemExportToShareableHandle(h2, 0, 0, &mut key));
    assert_eq!(rc, AclError::RT_MEMORY_ALLOCATION, "out of inodes held by a live process");
    ok!(api, aclrtFreePhysical(h2));
    common::reply(format!(
        "{} events of this live process fill the inodes: aclrtMallocPhysical succeeds, its export → 207001",
        mine.len()
    ));

    for id in mine.into_iter().chain(event).chain(notify) {
        e.event_destroy(id).unwrap();
    }
    ok!(api, aclrtFreePhysical(h));
    e.registry().gc().unwrap();
    audit::assert_clean(&root, "after the scenario");
    common::reply("end");
}

vmmkit_testkit::harness!(
    worker,
    an_open_racing_the_creators_destroy_leaves_no_file,
    an_open_in_the_creating_process_does_not_withdraw_on_destroy,
    cells_of_the_dead_are_collected_when_the_root_runs_out_of_inodes,
);
