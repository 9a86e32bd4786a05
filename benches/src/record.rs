//! Run records: what each bench process writes beside criterion's results
//! (when it ran, with which plan and backend, the load average before and
//! after, the machine, set-up costs), so that the report states the
//! conditions of the figures it prints, not those of the moment it is run.
//!
//! Records live in `<criterion dir>/vmmkit-runs/<target>.json`.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

use crate::error::{BenchError, Result};

/// Criterion's output directory, as criterion finds it: `CRITERION_HOME`,
/// else `$CARGO_TARGET_DIR/criterion`, else `target/criterion` of this
/// workspace (the bench harness passes the same directory to criterion).
pub fn criterion_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("CRITERION_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("CARGO_TARGET_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d).join("criterion");
    }
    workspace_root().join("target").join("criterion")
}

/// The workspace's root directory (this package's parent).
pub fn workspace_root() -> PathBuf {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    here.parent().unwrap_or(here).to_path_buf()
}

/// The machine the figures come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Machine {
    /// Online CPUs (`nproc`).
    pub cpus: usize,
    /// `model name` of `/proc/cpuinfo`.
    pub cpu: String,
    /// `uname -sr`, from `/proc/sys/kernel/{ostype,osrelease}`.
    pub kernel: String,
    /// `MemTotal` of `/proc/meminfo`, in bytes.
    pub memory: u64,
}

impl Machine {
    /// This machine.
    pub fn current() -> Self {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let cpuinfo = read("/proc/cpuinfo");
        let cpu = cpuinfo
            .lines()
            .find_map(|l| l.strip_prefix("model name").and_then(|r| r.split_once(':')).map(|(_, v)| v.trim()))
            .unwrap_or("unknown")
            .to_owned();
        let kernel =
            format!("{} {}", read("/proc/sys/kernel/ostype").trim(), read("/proc/sys/kernel/osrelease").trim());
        let memory = read("/proc/meminfo")
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024);
        // The machine's CPUs, not the ones this process may run on (a run
        // pinned with `taskset` would otherwise say 1).
        let cpus = std::fs::read_to_string("/proc/cpuinfo")
            .map(|t| t.lines().filter(|l| l.starts_with("processor")).count())
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(0, |n| n.get()));
        Self { cpus, cpu, kernel, memory }
    }

    fn to_json(&self) -> Value {
        json!({ "cpus": self.cpus, "cpu": self.cpu, "kernel": self.kernel, "memory": self.memory })
    }

    fn from_json(v: &Value) -> Option<Self> {
        Some(Self {
            cpus: v.get("cpus")?.as_u64()? as usize,
            cpu: v.get("cpu")?.as_str()?.to_owned(),
            kernel: v.get("kernel")?.as_str()?.to_owned(),
            memory: v.get("memory")?.as_u64()?,
        })
    }
}

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`).
pub fn loadavg() -> Option<[f64; 3]> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_ascii_whitespace().map(|f| f.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

/// Seconds since the epoch, now.
pub fn now_unix() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// `YYYY-MM-DD HH:MM UTC` for seconds since the epoch.
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let (h, m) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    // Days to civil date (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let mo = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(mo <= 2);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{m:02} UTC")
}

/// What one bench process did.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The bench target (`alloc`, `copy`, …).
    pub target: String,
    /// The backend's name.
    pub backend: String,
    /// The plan's name (`full`, `quick`).
    pub plan: String,
    /// Start, seconds since the epoch.
    pub started: u64,
    /// End, seconds since the epoch.
    pub finished: u64,
    /// Load averages at the start.
    pub load_start: Option<[f64; 3]>,
    /// Load averages at the end.
    pub load_end: Option<[f64; 3]>,
    /// The machine.
    pub machine: Machine,
    /// Set-up costs and skipped cases.
    pub notes: Vec<String>,
}

impl Run {
    /// A record of `target` starting now.
    pub fn start(target: &str, backend: &str, plan: &str) -> Self {
        Self {
            target: target.into(),
            backend: backend.into(),
            plan: plan.into(),
            started: now_unix(),
            finished: 0,
            load_start: loadavg(),
            load_end: None,
            machine: Machine::current(),
            notes: Vec::new(),
        }
    }

    /// Marks it finished now, with `notes`.
    pub fn finish(&mut self, notes: Vec<String>) {
        self.finished = now_unix();
        self.load_end = loadavg();
        self.notes = notes;
    }

    fn to_json(&self) -> Value {
        json!({
            "target": self.target, "backend": self.backend, "plan": self.plan,
            "started": self.started, "finished": self.finished,
            "load_start": self.load_start, "load_end": self.load_end,
            "machine": self.machine.to_json(), "notes": self.notes,
        })
    }

    fn from_json(v: &Value) -> Option<Self> {
        let load = |k: &str| -> Option<[f64; 3]> {
            let a = v.get(k)?.as_array()?;
            Some([a.first()?.as_f64()?, a.get(1)?.as_f64()?, a.get(2)?.as_f64()?])
        };
        Some(Self {
            target: v.get("target")?.as_str()?.to_owned(),
            backend: v.get("backend")?.as_str()?.to_owned(),
            plan: v.get("plan")?.as_str()?.to_owned(),
            started: v.get("started")?.as_u64()?,
            finished: v.get("finished")?.as_u64()?,
            load_start: load("load_start"),
            load_end: load("load_end"),
            machine: Machine::from_json(v.get("machine")?)?,
            notes: v.get("notes")?.as_array()?.iter().filter_map(|n| n.as_str().map(str::to_owned)).collect(),
        })
    }

    /// The directory of records under a criterion directory.
    pub fn dir(criterion: &Path) -> PathBuf {
        criterion.join("vmmkit-runs")
    }

    /// Writes it to `<criterion>/vmmkit-runs/<target>.json`.
    ///
    /// # Errors
    /// The file could not be written.
    pub fn write(&self, criterion: &Path) -> Result<()> {
        let dir = Self::dir(criterion);
        std::fs::create_dir_all(&dir).map_err(|e| BenchError::io(format!("creating {}", dir.display()), e))?;
        let path = dir.join(format!("{}.json", self.target));
        let text = serde_json::to_string_pretty(&self.to_json()).expect("a JSON value serialises");
        std::fs::write(&path, text).map_err(|e| BenchError::io(format!("writing {}", path.display()), e))
    }

    /// Every record under a criterion directory, by target name.
    pub fn read_all(criterion: &Path) -> Vec<Self> {
        let Ok(rd) = std::fs::read_dir(Self::dir(criterion)) else { return Vec::new() };
        let mut runs: Vec<Self> = rd
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
            .filter_map(|e| std::fs::read_to_string(e.path()).ok())
            .filter_map(|t| serde_json::from_str::<Value>(&t).ok())
            .filter_map(|v| Self::from_json(&v))
            .collect();
        runs.sort_by(|a, b| a.started.cmp(&b.started).then_with(|| a.target.cmp(&b.target)));
        runs
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(utc(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc(1_700_000_000), "2023-11-14 22:13 UTC");
    }

    #[test]
    fn records_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Run::start("alloc", "emulator", "full");
        r.finish(vec!["a note".into()]);
        r.write(dir.path()).unwrap();
        assert_eq!(Run::read_all(dir.path()), vec![r]);
    }
}
