//! Events and notifies shared across processes, with real processes: this
//! binary run again as workers (role `cells`) in one root. A records after a
//! copy into memory both map, B waits and reads; B's wait on a dead
//! creator's event ends (`Abandoned`), it does not hang; holds of killed
//! processes are let go, and the root is left empty (`gc` collects what
//! only dead processes held).

mod common;

use std::time::{Duration, Instant};

use common::worker::Worker;
use vmmkit_emulator::registry::Registry;
use vmmkit_testkit::TestRoot;

/// The worker role: this binary serving the commands of `common::cells`.
#[test]
fn worker() {
    if common::worker::role().as_deref() == Some(common::cells::ROLE) {
        common::cells::serve();
    }
}

fn start(name: &str, root: &TestRoot, schedule: &str) -> Worker {
    Worker::start(name, common::cells::ROLE, root.path(), &[("VMMKIT_STREAMS", schedule)])
}

/// `ok A B` → ("A", "B").
fn two(reply: String) -> (String, String) {
    let mut w = reply.split_whitespace().map(str::to_owned);
    (w.next().expect("first"), w.next().expect("second"))
}

fn shared_file(root: &TestRoot) -> String {
    root.scratch().join("memory").to_string_lossy().into_owned()
}

#[test]
fn a_record_after_a_copy_wakes_a_waiter_in_another_process_under_every_schedule() {
    for schedule in ["eager", "async", "adversarial:7"] {
        let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
        let mem = shared_file(&root);
        let mut a = start("creator", &root, schedule);
        let mut b = start("opener", &root, schedule);
        let (ev, key) = two(a.ok("event"));
        assert_eq!(a.ok(&format!("export {ev}")), key, "the same key each time");
        let opened = b.ok(&format!("open {key}"));
        a.ok(&format!("write {mem} 7 {ev}"));
        if schedule.starts_with("adversarial") {
            assert_eq!(b.ok(&format!("read {mem}")), "0", "adversarial holds the copy until someone waits");
        }
        b.ok(&format!("wait {opened} 10000"));
        assert_eq!(b.ok(&format!("read {mem}")), "7", "{schedule}");
        b.ok(&format!("destroy {opened}"));
        a.ok(&format!("destroy {ev}"));
        assert_eq!(root.leftovers(), Vec::<String>::new(), "{schedule}");
        a.finish();
        b.finish();
    }
}

#[test]
fn keys_that_name_no_shared_event_are_refused() {
    let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
    let mut a = start("creator", &root, "async");
    let local = a.ok("local-event");
    assert!(a.ask(&format!("export {local}")).starts_with("err NotInterprocess"));
    for key in ["0", "1", "9223372036854775808", "18446744073709551615"] {
        assert!(a.ask(&format!("open {key}")).starts_with("err UnknownSharedCell"), "{key}");
    }
    let (ev, key) = two(a.ok("event"));
    assert!(a.ask(&format!("nopen {key}")).starts_with("err UnknownSharedCell"), "an event is not a notify");
    // The core lets the creating process open its own event (dialects decide).
    let again = a.ok(&format!("open {key}"));
    a.ok(&format!("destroy {again}"));
    a.ok(&format!("destroy {ev}"));
    assert!(a.ask(&format!("open {key}")).starts_with("err UnknownSharedCell"), "destroyed");
    a.finish();
}

/// B waits on an event whose creator is killed with the record pending: the
/// wait ends with `Abandoned` soon after, it does not hang.
#[test]
fn a_wait_on_a_dead_creators_event_is_abandoned() {
    let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
    let mut a = start("creator", &root, "async");
    let mut b = start("opener", &root, "async");
    let (ev, key) = two(a.ok("event"));
    let opened = b.ok(&format!("open {key}"));
    a.ok(&format!("stuck-record {ev}"));
    b.send(&format!("wait {opened} 60000"));
    std::thread::sleep(Duration::from_millis(200));
    let killed = Instant::now();
    a.kill();
    let r = b.recv_or_hang(Duration::from_secs(10)).expect("the waiter answers");
    assert_eq!(r, "err Abandoned");
    assert!(killed.elapsed() < Duration::from_secs(5), "ended {:?} after the kill", killed.elapsed());
    assert_eq!(root.leftovers().len(), 1, "the opener still holds it");
    b.ok(&format!("destroy {opened}"));
    assert_eq!(root.leftovers(), Vec::<String>::new(), "the last holder removed it");
    b.finish();
}

/// The process that records an event is not its creator: A creates and
/// stays alive, B opens and records behind work that never ends, B is
/// killed. Every waiter ends with `Abandoned` soon after: C's host wait, C's
/// stream wait, A's own wait, and a query; none hangs (they watch the
/// process that took the number they wait for, not the creator).
#[test]
fn a_wait_on_a_record_whose_recorder_died_is_abandoned_though_the_creator_lives() {
    let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
    let mut a = start("creator", &root, "async");
    let mut b = start("recorder", &root, "async");
    let mut c = start("waiter", &root, "async");
    let mut d = start("stream-waiter", &root, "async");
    let (ev, key) = two(a.ok("event"));
    let in_b = b.ok(&format!("open {key}"));
    let in_c = c.ok(&format!("open {key}"));
    let in_d = d.ok(&format!("open {key}"));
    b.ok(&format!("stuck-record {in_b}"));
    assert_eq!(c.ok(&format!("query {in_c}")), "0", "pending while its recorder lives");
    c.send(&format!("wait {in_c} 60000"));
    d.send(&format!("swait {in_d} 60000"));
    a.send(&format!("wait {ev} 60000"));
    std::thread::sleep(Duration::from_millis(300));
    let killed = Instant::now();
    b.kill();
    for (who, w) in [("C's wait", &mut c), ("D's stream wait", &mut d), ("A's own wait", &mut a)] {
        let r = w.recv_or_hang(Duration::from_secs(10)).unwrap_or_else(|e| panic!("{who}: {e}"));
        assert_eq!(r, "err Abandoned", "{who}");
    }
    assert!(killed.elapsed() < Duration::from_secs(5), "ended {:?} after the kill", killed.elapsed());
    assert_eq!(c.ask(&format!("query {in_c}")), "err Abandoned", "a query loop ends too");
    // A later record by a live process completes and the event is usable again.
    a.ok(&format!("write {} 5 {ev}", shared_file(&root)));
    c.ok(&format!("wait {in_c} 10000"));
    for (w, id) in [(&mut c, &in_c), (&mut d, &in_d)] {
        w.ok(&format!("destroy {id}"));
    }
    a.ok(&format!("destroy {ev}"));
    assert_eq!(root.leftovers(), Vec::<String>::new());
    for mut w in [a, c, d] {
        w.finish();
    }
}

/// A recorder that is stopped (SIGSTOP: Ctrl-Z, a debugger) is not dead:
/// it may go on, so a wait on its record keeps waiting, bounded by the
/// caller's timeout (`Timeout`), and a query says "not yet"; once the stopped
/// recorder is killed, a wait without a limit ends with `Abandoned`.
#[test]
fn a_wait_on_a_stopped_recorder_is_bounded_by_its_timeout_and_ends_when_it_is_killed() {
    let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
    let mut a = start("creator", &root, "async");
    let mut b = start("recorder", &root, "async");
    let (ev, key) = two(a.ok("event"));
    let in_b = b.ok(&format!("open {key}"));
    b.ok(&format!("stuck-record {in_b}"));
    let pid = rustix::process::Pid::from_raw(b.pid() as i32).expect("pid");
    rustix::process::kill_process(pid, rustix::process::Signal::STOP).expect("SIGSTOP");
    let t = Instant::now();
    assert_eq!(a.ask(&format!("wait {ev} 500")), "err Timeout", "a stopped recorder may go on");
    assert!(t.elapsed() < Duration::from_secs(3), "bounded by its timeout: {:?}", t.elapsed());
    assert_eq!(a.ok(&format!("query {ev}")), "0");
    a.send(&format!("wait {ev} 60000"));
    std::thread::sleep(Duration::from_millis(300));
    let killed = Instant::now();
    b.kill();
    assert_eq!(a.recv_or_hang(Duration::from_secs(10)).expect("the waiter answers"), "err Abandoned");
    assert!(killed.elapsed() < Duration::from_secs(5), "ended {:?} after the kill", killed.elapsed());
    a.ok(&format!("destroy {ev}"));
    assert_eq!(root.leftovers(), Vec::<String>::new());
    a.finish();
}

/// Killed holders: an opener killed while it holds, then the creator's
/// destroy removes the file; both killed, `gc` collects it.
#[test]
fn holds_of_killed_processes_are_let_go_and_gc_collects_the_rest() {
    let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
    let mut a = start("creator", &root, "async");
    let mut b = start("opener", &root, "async");
    let (ev, key) = two(a.ok("event"));
    b.ok(&format!("open {key}"));
    b.kill();
    a.ok(&format!("destroy {ev}"));
    assert_eq!(root.leftovers(), Vec::<String>::new(), "the creator was the last live holder");
    let (_ev, key) = two(a.ok("event"));
    let mut b = start("opener", &root, "async");
    b.ok(&format!("open {key}"));
    a.kill();
    b.kill();
    assert_eq!(root.leftovers().len(), 1, "left by dead processes");
    let reg = Registry::open_existing(root.path()).expect("registry");
    assert_eq!(reg.cells().len(), 1, "listed");
    let report = reg.gc().expect("gc");
    assert_eq!((report.cells, report.entries), (1, 0), "{report:?}");
    assert_eq!(root.leftovers(), Vec::<String>::new());
}

/// A notify: only a listed pid may open it; a wait-and-reset enqueued before
/// the record waits for it, sees the data, and consumes it (the next one waits again).
#[test]
fn a_notify_orders_two_processes_and_resets() {
    for schedule in ["eager", "async", "adversarial:3"] {
        let root = TestRoot::new("vmmkit-cells-").expect("root").checked();
        let mem = shared_file(&root);
        let mut a = start("creator", &root, schedule);
        let mut b = start("opener", &root, schedule);
        let (n, key) = two(a.ok("notify"));
        assert!(b.ask(&format!("nopen {key}")).starts_with("err NotTrusted"), "{schedule}");
        let bpid = b.ok("pid");
        a.ok(&format!("trust {n} {bpid}"));
        let opened = b.ok(&format!("nopen {key}"));
        b.send(&format!("nwait {opened} 20000"));
        std::thread::sleep(Duration::from_millis(100));
        a.ok(&format!("write {mem} 9 {n}"));
        assert_eq!(b.recv().expect("nwait"), "ok", "{schedule}");
        assert_eq!(b.ok(&format!("read {mem}")), "9", "{schedule}");
        assert_eq!(b.ask(&format!("nwait {opened} 200")), "err Timeout", "reset: {schedule}");
        b.ok(&format!("destroy {opened}"));
        a.ok(&format!("destroy {n}"));
        assert_eq!(root.leftovers(), Vec::<String>::new());
        a.finish();
        b.finish();
    }
}
