//! Concurrent stress, for each dialect (ACL, HIP, CUDA): N processes × M
//! threads share two small devices for a bounded time, mixing allocate /
//! map / export / set-pid (ACL) / import / close / free, with a data
//! checksum per allocation written by its owner before export and verified
//! by every importer. Midway one process is killed and a fresh one takes
//! its place (its exports must stay readable by those who hold them, and be
//! gone for the others: ACL 107017; an fd handle dies with its broker).
//! HIP and CUDA fds travel through each process's [`common::broker`].
//!
//! Every call's code must be in the set the situation allows (out of memory
//! for a full device, a refused import only with the rule that must refuse
//! it, unknown for a handle whose holders are gone). At the end: no deadlock (every wait has
//! a deadline), capacity accounting exact (usage = what the live processes
//! hold, entry by entry with holders from `/proc/locks`), no corruption, and
//! after everyone releases: no handle, mapping, fd or file left, usage 0.
//!
//! CI: 3 processes × 4 threads for about 3 s per dialect. `VMMKIT_LONG=1`:
//! 4 × 8 for 3 minutes per dialect with a kill every 30 s.
//! `VMMKIT_STRESS=8x4x60/5`: 8 × 4 for 60 s with 5 kills (any shape).
//! Figures print with `--nocapture`.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use common::audit;
use common::broker::Broker;
use common::dialect::{Acl, Cuda, Dialect, Handle, Hip, pattern, splitmix};
use common::worker::Worker;

const G: usize = 2 << 20;
const ENV: &[(&str, &str)] = &[("VMMKIT_DEVICES", "2"), ("VMMKIT_DEVICE_MEMORY", "32M")];

fn long() -> bool {
    std::env::var("VMMKIT_LONG").is_ok_and(|v| v == "1")
}

#[test]
fn worker() {
    match common::worker::role().as_deref() {
        None => {}
        Some("stress-acl") => stress_worker::<Acl>(),
        Some("stress-hip") => stress_worker::<Hip>(),
        Some("stress-cuda") => stress_worker::<Cuda>(),
        Some(other) => panic!("unknown role {other}"),
    }
}

/// Memory a thread allocated (and maybe exported), filled with the pattern of `seed`.
#[derive(Debug)]
struct Owned {
    h: Handle,
    size: usize,
    dev: u32,
    va: usize,
    seed: u64,
    key: Option<u64>,
}

/// Memory a thread imported and mapped (it lives on device `dev` of its
/// exporter); it holds the pattern of `seed`.
#[derive(Debug)]
struct Imported {
    h: Handle,
    va: usize,
    size: usize,
    dev: u32,
    key: u64,
    seed: u64,
}

/// What a published export says (a file in the mailbox, outside the root).
#[derive(Debug)]
struct Notice {
    key: u64,
    size: usize,
    seed: u64,
    trust: bool,
    exporter: i32,
    dev: u32,
    listed: Vec<i32>,
}

impl Notice {
    fn write(&self, mailbox: &Path) {
        let listed: Vec<String> = self.listed.iter().map(i32::to_string).collect();
        let text = format!(
            "{} {} {} {} {} {} {}",
            self.key,
            self.size,
            self.seed,
            u8::from(self.trust),
            self.exporter,
            self.dev,
            listed.join(",")
        );
        let tmp = mailbox.join(format!(".{:x}.tmp", self.key));
        std::fs::write(&tmp, text).expect("mailbox write");
        std::fs::rename(&tmp, mailbox.join(format!("{:x}", self.key))).expect("mailbox rename");
    }

    fn read(path: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(path).ok()?;
        let f: Vec<&str> = text.split(' ').collect();
        Some(Self {
            key: f.first()?.parse().ok()?,
            size: f.get(1)?.parse().ok()?,
            seed: f.get(2)?.parse().ok()?,
            trust: *f.get(3)? == "1",
            exporter: f.get(4)?.parse().ok()?,
            dev: f.get(5)?.parse().ok()?,
            listed: f.get(6)?.split(',').filter(|s| !s.is_empty()).filter_map(|s| s.parse().ok()).collect(),
        })
    }
}

/// Per-kind counts of one thread.
#[derive(Debug, Default, Clone)]
struct Counts(BTreeMap<&'static str, u64>);

impl Counts {
    fn add(&mut self, k: &'static str) {
        *self.0.entry(k).or_default() += 1;
    }
    fn merge(&mut self, o: &Counts) {
        for (k, v) in &o.0 {
            *self.0.entry(k).or_default() += v;
        }
    }
    fn total(&self) -> u64 {
        self.0.iter().filter(|(k, _)| !k.contains(':')).map(|(_, v)| v).sum()
    }
}

/// A thread's state for one run.
struct Thread<D: Dialect> {
    d: D,
    rng: u64,
    me: i32,
    peers: Vec<i32>,
    mailbox: PathBuf,
    root: PathBuf,
    broker: Broker,
    owned: Vec<Owned>,
    imported: Vec<Imported>,
    counts: Counts,
}

/// Everything the threads of this worker hold after a run. A static because
/// the run's threads hand their memory to the commands that follow (report,
/// verify, teardown) in this worker process; only those use it.
static HELD: Mutex<(Vec<Owned>, Vec<Imported>)> = Mutex::new((Vec::new(), Vec::new()));

type Fail = String;

impl<D: Dialect> Thread<D> {
    fn next(&mut self) -> u64 {
        self.rng = splitmix(self.rng);
        self.rng
    }

    fn check(&self, what: &str, r: Result<(), i64>) -> Result<(), Fail> {
        r.map_err(|c| format!("{what}: {} ({})", D::describe(c), self.d.last_message()))
    }

    fn alloc(&mut self) -> Result<(), Fail> {
        let r = self.next();
        let size = G * (1 + (r % 4) as usize);
        let dev = (r >> 8) as u32 % 2;
        match self.d.alloc(dev, size) {
            Ok(h) => {
                let va = self.d.reserve(size).map_err(|c| format!("reserve: {}", D::describe(c)))?;
                self.check("map", self.d.map(va, size, h, dev))?;
                self.check("write", self.d.write(va, &pattern(size, r)))?;
                self.owned.push(Owned { h, size, dev, va, seed: r, key: None });
                self.counts.add("alloc");
                Ok(())
            }
            Err(c) if c == D::OUT_OF_MEMORY => {
                self.counts.add("alloc");
                self.counts.add("alloc:out-of-memory");
                Ok(())
            }
            Err(c) => Err(format!("alloc {size:#x} on {dev}: {} ({})", D::describe(c), self.d.last_message())),
        }
    }

    fn export(&mut self) -> Result<(), Fail> {
        let r = self.next();
        let Some(i) = self.owned.iter().position(|o| o.key.is_none()) else { return Ok(()) };
        let trust = r % 2 == 0;
        let trust = trust && D::trustlist();
        let s = self.d.export(self.owned[i].h, trust).map_err(|c| format!("export: {}", D::describe(c)))?;
        self.counts.add("export");
        // ACL: the key is the handle; an fd is offered by this process's
        // broker under the key of the entry it opens.
        let (text, fd) = D::to_wire(s);
        let key = match fd {
            Some(fd) => {
                let key = audit::key_of_fd(&self.root, fd.as_fd()).ok_or("an exported fd opens no entry")?;
                self.broker.offer(key, fd);
                key
            }
            None => u64::from_str_radix(&text, 16).map_err(|e| format!("key {text}: {e}"))?,
        };
        let mut listed = Vec::new();
        if trust {
            let mut bits = self.next();
            for &p in &self.peers {
                if bits & 3 != 0 {
                    listed.push(p);
                }
                bits >>= 2;
            }
            if !listed.is_empty() {
                let s = D::from_wire(&text, None).ok_or("a key that is text")?;
                self.check("set-pid", self.d.set_pids(s, &listed))?;
                self.counts.add("set-pid");
            }
        }
        let o = &mut self.owned[i];
        o.key = Some(key);
        Notice { key, size: o.size, seed: o.seed, trust, exporter: self.me, dev: o.dev, listed }.write(&self.mailbox);
        Ok(())
    }

    fn import(&mut self) -> Result<(), Fail> {
        let names: Vec<PathBuf> = std::fs::read_dir(&self.mailbox)
            .map(|d| {
                d.flatten()
                    .filter(|e| e.file_name().to_str().is_some_and(|n| u64::from_str_radix(n, 16).is_ok()))
                    .map(|e| e.path())
                    .collect()
            })
            .unwrap_or_default();
        if names.is_empty() {
            return Ok(());
        }
        let r = self.next();
        let Some(n) = Notice::read(&names[r as usize % names.len()]) else { return Ok(()) };
        let dev = (r >> 16) as u32 % 2;
        self.counts.add("import");
        // What this import may return, and which rule a refusal must name.
        let own_device = n.exporter == self.me && n.dev == dev;
        let unlisted = n.trust && n.exporter != self.me && !n.listed.contains(&self.me);
        let refusal = D::refusal(own_device, unlisted);
        let (may_succeed, refusal_rule) = (refusal.is_none(), refusal.or(D::TEARDOWN_RULE).unwrap_or("-"));
        let s = if D::SHAREABLE_HOLDS_MEMORY {
            Broker::fetch(&self.mailbox.join("brokers"), n.exporter, n.key).and_then(|fd| D::from_wire("fd", Some(fd)))
        } else {
            D::from_wire(&format!("{:x}", n.key), None)
        };
        let Some(s) = s else {
            // The owner withdrew it (freed), or died with its broker.
            self.counts.add("import:gone");
            return Ok(());
        };
        match self.d.import(s, dev) {
            Ok(h) if may_succeed => {
                let va = self.d.reserve(n.size).map_err(|c| format!("reserve: {}", D::describe(c)))?;
                self.check("map import", self.d.map(va, n.size, h, dev))?;
                verify(&self.d, va, n.size, n.seed)
                    .map_err(|e| format!("import of {:#x} (exporter {}): {e}", n.key, n.exporter))?;
                self.counts.add("verify");
                self.imported.push(Imported { h, va, size: n.size, dev: n.dev, key: n.key, seed: n.seed });
                Ok(())
            }
            Ok(_) => Err(format!("import of {:#x} onto {dev} succeeded; {refusal_rule} should refuse it", n.key)),
            Err(c) if c == D::UNKNOWN_SHAREABLE => {
                self.counts.add("import:gone");
                Ok(())
            }
            // An entry being torn down meanwhile is refused first (ACL-IMP-018, the same code).
            Err(c)
                if c == D::REFUSED && self.d.last_message().starts_with(refusal_rule)
                    || D::TEARDOWN_RULE.is_some_and(|r| self.d.last_message().starts_with(r)) =>
            {
                self.counts.add("import:refused");
                Ok(())
            }
            Err(c) => Err(format!(
                "import of {:#x} onto {dev}: {} ({}); allowed: 0, {}, {} naming {refusal_rule} or {:?}",
                n.key,
                D::describe(c),
                self.d.last_message(),
                D::UNKNOWN_SHAREABLE,
                D::REFUSED,
                D::TEARDOWN_RULE
            )),
        }
    }

    fn close(&mut self) -> Result<(), Fail> {
        if self.imported.is_empty() {
            return Ok(());
        }
        let i = self.next() as usize % self.imported.len();
        let m = self.imported.swap_remove(i);
        self.check("unmap import", self.d.unmap(m.va))?;
        self.check("release import", self.d.release(m.va))?;
        self.check("free import", self.d.free(m.h))?;
        self.counts.add("close");
        Ok(())
    }

    fn free(&mut self) -> Result<(), Fail> {
        if self.owned.is_empty() {
            return Ok(());
        }
        let i = self.next() as usize % self.owned.len();
        let o = self.owned.swap_remove(i);
        if let Some(k) = o.key {
            let _ = std::fs::remove_file(self.mailbox.join(format!("{k:x}")));
            self.broker.withdraw(k);
        }
        verify(&self.d, o.va, o.size, o.seed)?;
        self.counts.add("verify");
        self.check("unmap", self.d.unmap(o.va))?;
        self.check("release", self.d.release(o.va))?;
        self.check("free", self.d.free(o.h))?;
        self.counts.add("free");
        Ok(())
    }

    fn run(&mut self, deadline: Instant) -> Result<(), Fail> {
        self.check("set device", self.d.set_device(0))?;
        while Instant::now() < deadline {
            let r = self.next() % 100;
            match r {
                0..25 if self.owned.len() < 3 => self.alloc()?,
                25..45 => self.export()?,
                45..75 if self.imported.len() < 4 => self.import()?,
                75..88 => self.close()?,
                88..100 => self.free()?,
                _ => self.free()?,
            }
        }
        Ok(())
    }
}

/// Reads `size` bytes at `va` and compares them, byte for byte, with the
/// owner's pattern of `seed`.
fn verify<D: Dialect>(d: &D, va: usize, size: usize, seed: u64) -> Result<(), Fail> {
    let mut data = vec![0u8; size];
    d.read(va, &mut data).map_err(|c| format!("read: {}", D::describe(c)))?;
    if data != pattern(size, seed) {
        let at = data.iter().zip(pattern(size, seed)).position(|(a, b)| *a != b).unwrap_or(0);
        return Err(format!("data corruption at {va:#x}+{at:#x}: differs from the owner's pattern"));
    }
    Ok(())
}

/// The stress worker's commands:
/// `run SEED MILLIS THREADS MAILBOX PIDS` → `ok OPS k=v...` or `fail WHY`;
/// `report` → `ok PRIVATE0 PRIVATE1 EXPORTED IMPORTED` (`KEY:SIZE:DEVICE`, comma-separated);
/// `verify` → `ok N`; `teardown`; `census`; `exit`.
fn stress_worker<D: Dialect>() {
    let d = D::open();
    d.set_device(0).expect("set device");
    let root = PathBuf::from(std::env::var("VMMKIT_ROOT").expect("root"));
    let mut broker: Option<Broker> = None;
    while let Some(cmd) = common::next_command() {
        let w: Vec<&str> = cmd.split_whitespace().collect();
        let out = match w.as_slice() {
            ["run", seed, millis, threads, mailbox, pids @ ..] => {
                let seed: u64 = seed.parse().unwrap();
                let deadline = Instant::now() + Duration::from_millis(millis.parse().unwrap());
                let threads: usize = threads.parse().unwrap();
                let me = d.pid();
                let peers: Vec<i32> = pids.iter().filter_map(|p| p.parse().ok()).filter(|&p| p != me).collect();
                let broker = broker.get_or_insert_with(|| Broker::serve(&Path::new(mailbox).join("brokers"))).clone();
                let (tx, rx) = std::sync::mpsc::channel();
                for t in 0..threads {
                    let tx = tx.clone();
                    let mut th = Thread {
                        d: d.clone(),
                        root: root.clone(),
                        broker: broker.clone(),
                        rng: splitmix(seed ^ (t as u64) << 32 ^ u64::from(me.unsigned_abs())),
                        me,
                        peers: peers.clone(),
                        mailbox: PathBuf::from(mailbox),
                        owned: Vec::new(),
                        imported: Vec::new(),
                        counts: Counts::default(),
                    };
                    std::thread::spawn(move || {
                        let r = th.run(deadline);
                        let mut held = HELD.lock().expect("held");
                        held.0.append(&mut th.owned);
                        held.1.append(&mut th.imported);
                        let _ = tx.send((t, r, th.counts));
                    });
                }
                drop(tx);
                // Every thread must finish within its deadline plus a margin: a
                // thread stuck in a call is a deadlock.
                let margin = deadline + Duration::from_secs(30);
                let mut counts = Counts::default();
                let mut fails = Vec::new();
                for _ in 0..threads {
                    match rx.recv_timeout(margin.saturating_duration_since(Instant::now())) {
                        Ok((_, Ok(()), c)) => counts.merge(&c),
                        Ok((t, Err(e), c)) => {
                            counts.merge(&c);
                            fails.push(format!("thread {t}: {e}"));
                        }
                        Err(_) => fails.push("deadlock: a thread is still in a call 30 s after the deadline".into()),
                    }
                }
                if fails.is_empty() {
                    let kv: Vec<String> = counts.0.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!("ok {} {}", counts.total(), kv.join(" "))
                } else {
                    format!("fail {}", fails.join("; "))
                }
            }
            ["report"] => {
                let held = HELD.lock().expect("held");
                let mut private = [0u64; 2];
                let mut exported = Vec::new();
                for o in &held.0 {
                    match o.key {
                        Some(k) => exported.push(format!("{k:x}:{}:{}", o.size, o.dev)),
                        None => private[o.dev as usize] += o.size as u64,
                    }
                }
                let imported: BTreeSet<String> =
                    held.1.iter().map(|m| format!("{:x}:{}:{}", m.key, m.size, m.dev)).collect();
                let list = |v: Vec<String>| if v.is_empty() { "-".to_string() } else { v.join(",") };
                format!("ok {} {} {} {}", private[0], private[1], list(exported), list(imported.into_iter().collect()))
            }
            ["verify"] => {
                let held = HELD.lock().expect("held");
                let all =
                    held.0.iter().map(|o| (o.va, o.size, o.seed)).chain(held.1.iter().map(|m| (m.va, m.size, m.seed)));
                let mut n = 0;
                let mut bad = None;
                for (va, size, seed) in all {
                    if let Err(e) = verify(&d, va, size, seed) {
                        bad = Some(e);
                        break;
                    }
                    n += 1;
                }
                bad.map(|e| format!("fail {e}")).unwrap_or_else(|| format!("ok {n}"))
            }
            ["teardown"] => {
                let mut held = HELD.lock().expect("held");
                if let Some(b) = &broker {
                    for k in held.0.iter().filter_map(|o| o.key) {
                        b.withdraw(k);
                    }
                }
                let mut first = None;
                for m in held.1.drain(..) {
                    first = first.or(d.unmap(m.va).and_then(|()| d.release(m.va)).and_then(|()| d.free(m.h)).err());
                }
                for o in held.0.drain(..) {
                    first = first.or(d.unmap(o.va).and_then(|()| d.release(o.va)).and_then(|()| d.free(o.h)).err());
                }
                first.map(|c| format!("fail {}", D::describe(c))).unwrap_or_else(|| "ok".into())
            }
            ["census"] => {
                let c = audit::process_census(&root);
                format!("ok {} {} {} {} {}", c.census.0, c.census.1, c.census.2, c.window_maps, c.root_fds)
            }
            ["exit"] => {
                common::reply("ok");
                return;
            }
            other => panic!("unknown stress command {other:?}"),
        };
        common::reply(out);
    }
}

/// One stress process as the orchestrator sees it.
struct Proc {
    w: Worker,
    running: bool,
}

fn start<D: Dialect>(root: &Path, n: usize) -> Proc {
    Proc { w: Worker::start(&format!("stress{n}"), &format!("stress-{}", D::NAME), root, ENV), running: false }
}

fn parse_counts(reply: &str) -> Result<(u64, Counts), String> {
    let rest = reply.strip_prefix("ok ").ok_or_else(|| reply.to_string())?;
    let mut it = rest.split_whitespace();
    let total = it.next().and_then(|t| t.parse().ok()).unwrap_or(0);
    let mut c = Counts::default();
    for kv in it {
        if let Some((k, v)) = kv.split_once('=') {
            let k: &'static str = Box::leak(k.to_string().into_boxed_str());
            c.0.insert(k, v.parse().unwrap_or(0));
        }
    }
    Ok((total, c))
}

/// `VMMKIT_STRESS=PROCSxTHREADSxSECONDS/KILLS` (e.g. `8x4x60/5`): a run of
/// that shape, with the kills spread evenly over it, for figures by hand.
fn shape() -> Option<(usize, usize, Duration, Duration)> {
    let v = std::env::var("VMMKIT_STRESS").ok()?;
    let (dims, kills) = v.split_once('/').unwrap_or((&v, "1"));
    let d: Vec<u64> = dims.split('x').map(|n| n.parse().expect("VMMKIT_STRESS: PROCSxTHREADSxSECONDS/KILLS")).collect();
    let [procs, threads, secs] = d[..] else { panic!("VMMKIT_STRESS: PROCSxTHREADSxSECONDS/KILLS, got {v:?}") };
    let kills: u64 = kills.parse().expect("VMMKIT_STRESS: the kill count");
    let duration = Duration::from_secs(secs);
    Some((procs as usize, threads as usize, duration, duration / (kills as u32 + 1)))
}

fn concurrent_stress<D: Dialect>() {
    if common::worker::role().is_some() {
        return;
    }
    let (procs, threads, duration, kill_every) = if let Some(shape) = shape() {
        shape
    } else if long() {
        (4usize, 4usize * 2, Duration::from_secs(180), Duration::from_secs(30))
    } else {
        (3, 4, Duration::from_millis(3000), Duration::from_millis(1500))
    };
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let mailbox = dir.path().join("mailbox");
    std::fs::create_dir(&mailbox).unwrap();
    std::fs::create_dir(mailbox.join("brokers")).unwrap();
    let mut started = 0;
    let mut ps: Vec<Proc> = (0..procs)
        .map(|_| {
            started += 1;
            start::<D>(&root, started)
        })
        .collect();
    let t0 = Instant::now();
    let end = t0 + duration;
    let mut seed = 0x5eed_u64;
    let mut killed = 0;
    let mut totals = Counts::default();
    let mut ops = 0u64;
    let run = |p: &mut Proc, pids: &str, until: Instant, seed: u64| {
        let ms = until.saturating_duration_since(Instant::now()).as_millis();
        p.w.send(&format!("run {seed} {ms} {threads} {} {pids}", mailbox.display()));
        p.running = true;
    };
    let pids = |ps: &[Proc]| ps.iter().map(|p| p.w.pid().to_string()).collect::<Vec<_>>().join(" ");
    let all = pids(&ps);
    for p in &mut ps {
        seed = splitmix(seed);
        run(p, &all, end, seed);
    }
    // Chaos: every `kill_every`, SIGKILL one running process and start a
    // fresh one for the rest of the time.
    let mut next_kill = t0 + kill_every;
    while next_kill + Duration::from_millis(200) < end {
        // A scheduled fault, not a synchronisation: the kill lands wherever
        // the victim happens to be.
        std::thread::sleep(next_kill.saturating_duration_since(Instant::now()));
        let victim = killed % ps.len();
        assert_eq!(ps[victim].w.kill(), "killed by signal 9");
        killed += 1;
        started += 1;
        ps[victim] = start::<D>(&root, started);
        let all = pids(&ps);
        seed = splitmix(seed);
        run(&mut ps[victim], &all, end, seed);
        next_kill += kill_every;
    }
    let mut failures = Vec::new();
    for p in &mut ps {
        let reply = p.w.recv_within(duration + Duration::from_secs(60)).expect("stress worker ended");
        p.running = false;
        match parse_counts(&reply) {
            Ok((n, c)) => {
                ops += n;
                totals.merge(&c);
            }
            Err(e) => failures.push(format!("{}: {e}", p.w.name)),
        }
    }
    let elapsed = t0.elapsed();
    assert!(failures.is_empty(), "stress failures:\n{}", failures.join("\n"));

    // Exact accounting while everyone is alive: usage = private memory of
    // the processes + exported entries; each entry held exactly by the
    // processes that say they hold it.
    let check = |ps: &mut [Proc], what: &str| {
        let mut private = [0u64; 2];
        let mut holders: BTreeMap<u64, BTreeSet<u32>> = BTreeMap::new();
        let mut sizes: BTreeMap<u64, (u64, usize)> = BTreeMap::new();
        for p in ps.iter_mut() {
            let r = p.w.ok("report");
            let f: Vec<&str> = r.split(' ').collect();
            private[0] += f[0].parse::<u64>().unwrap();
            private[1] += f[1].parse::<u64>().unwrap();
            for k in f[2].split(',').chain(f[3].split(',')).filter(|k| *k != "-") {
                let v: Vec<&str> = k.split(':').collect();
                let key = u64::from_str_radix(v[0], 16).unwrap();
                holders.entry(key).or_default().insert(p.w.pid());
                sizes.insert(key, (v[1].parse().unwrap(), v[2].parse().unwrap()));
            }
        }
        // Every entry's capacity counts once, on the device of its memory.
        let mut used = private;
        for (size, dev) in sizes.values() {
            used[*dev] += size;
        }
        let entries = audit::entry_keys(&root);
        let pids: Vec<u32> = ps.iter().map(|p| p.w.pid()).collect();
        let got: BTreeMap<u64, BTreeSet<u32>> =
            audit::holders_among(&root, &pids).into_iter().map(|(k, h)| (k, h.into_iter().collect())).collect();
        assert_eq!(got, holders, "{what}: entries and their holders");
        assert_eq!(audit::used(&root), used.to_vec(), "{what}: usage = private memory + entries");
        (entries.len(), used)
    };
    // What the processes killed during the run left is collected first (an
    // entry nobody holds until `gc` or a lookup finds it).
    let chaos_gc = audit::gc(&root);
    let (entries_live, used_live) = check(&mut ps, "all alive");
    // One more crash, then gc: usage is what the survivors hold, and they
    // still read every byte they hold.
    let mut victim = ps.pop().unwrap();
    victim.w.kill();
    killed += 1;
    let report = audit::gc(&root);
    let (entries_after, used_after) = check(&mut ps, "after a kill and gc");
    let mut verified = 0;
    for p in &mut ps {
        verified += p.w.ok("verify").parse::<u64>().unwrap();
    }
    for p in &mut ps {
        p.w.ok("teardown");
        assert_eq!(p.w.ok("census"), "0 0 0 0 0", "{}: handles reservations mappings window-maps root-fds", p.w.name);
        p.w.ok("exit");
        p.w.finish();
    }
    let final_gc = audit::gc(&root);
    audit::assert_clean(&root, "after every process released and exited");
    let mb = |b: [u64; 2]| format!("{} + {} MiB", b[0] >> 20, b[1] >> 20);
    println!(
        "\nconcurrent stress, {}: {procs} processes × {threads} threads, {:.1} s, {killed} SIGKILLs ({started} processes in all)\n\
         operations: {ops} ({:.0}/s); by kind: {:?}\n\
         invariants held: every code in its allowed set; no deadlock; no byte differs from its owner's pattern ({} verified reads + {verified} at the end);\n\
         accounting exact with everyone alive (after gc of the run's victims: {chaos_gc:?}; {entries_live} entries, usage {}) and after a kill + gc \
         ({} slot(s) / {} entr(y/ies) / {} MiB collected; {entries_after} entries, usage {});\n\
         after release: census 0, no mapping in the device window, no fd, root empty (final gc: {final_gc:?})",
        D::NAME,
        elapsed.as_secs_f64(),
        ops as f64 / elapsed.as_secs_f64(),
        totals.0,
        totals.0.get("verify").copied().unwrap_or(0),
        mb(used_live),
        report.processes,
        report.entries,
        report.bytes >> 20,
        mb(used_after),
    );
}

// One test per dialect, each running the same body.
per_dialect!(concurrent_stress; concurrent_stress_acl: Acl, concurrent_stress_hip: Hip, concurrent_stress_cuda: Cuda);
