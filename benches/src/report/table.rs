//! From measurements to report lines: each operation beside its floor, the
//! ratio, and the target it is held to (control operations at
//! most 1.5× their floor, a repeated import 2×, copies 95 % from 64 MiB).

use std::collections::BTreeSet;

use super::results::Measurement;
use crate::plan::{MIB, parse_size_label};

/// What a line is held to.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Time at most this many times the reference's.
    AtMost(f64),
    /// Bandwidth at least this fraction of the reference's.
    BandwidthAtLeast(f64),
}

impl Target {
    /// `≤ 2×`, `≥ 90 %`.
    pub fn text(self) -> String {
        match self {
            Self::AtMost(x) => format!("≤ {x}×"),
            Self::BandwidthAtLeast(f) => format!("≥ {:.0} %", f * 100.0),
        }
    }
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// The operation, in words.
    pub operation: String,
    /// Size or count.
    pub param: String,
    /// The backend measured.
    pub backend: String,
    /// The measurement.
    pub op: Measurement,
    /// What it is compared with, in words (`floor`, `direct`, `at 10`).
    pub reference_name: String,
    /// The reference measurement.
    pub reference: Measurement,
    /// System calls per iteration of the operation and of the reference,
    /// when counted ([`Row::attach_calls`]).
    pub calls: Option<(f64, f64)>,
    /// The target, if the line has one.
    pub target: Option<Target>,
}

impl Row {
    /// Sets each row's system calls from counts of the same bench ids
    /// ([`crate::syscalls::count_benches`]); counts of another parameter of the
    /// same group and function stand in for a parameter not counted (the
    /// count runs on the smoke plan's sizes; calls do not depend on size).
    pub fn attach_calls(rows: &mut [Row], tallies: &[crate::syscalls::Tally]) {
        let find = |m: &Measurement| {
            let exact = format!("{}/{}/{}", m.group, m.function, m.param);
            let prefix = format!("{}/{}/", m.group, m.function);
            tallies
                .iter()
                .find(|t| t.label == exact)
                .or_else(|| tallies.iter().find(|t| t.label.starts_with(&prefix)))
                .map(crate::syscalls::Tally::per_window)
        };
        for r in rows {
            r.calls = find(&r.op).zip(find(&r.reference));
        }
    }

    /// `3 / 1`: the operation's system calls per iteration and its reference's.
    pub fn calls_text(&self) -> String {
        let n = |x: f64| if x.fract() == 0.0 { format!("{x:.0}") } else { format!("{x:.2}") };
        self.calls.map(|(a, b)| format!("{} / {}", n(a), n(b))).unwrap_or_default()
    }

    /// Operation time ÷ reference time.
    pub fn ratio(&self) -> f64 {
        self.op.median / self.reference.median
    }

    /// Operation bandwidth ÷ reference bandwidth (= reference time ÷ operation time).
    pub fn bandwidth_fraction(&self) -> f64 {
        self.reference.median / self.op.median
    }

    /// Whether the target is met (`None` without a target).
    pub fn met(&self) -> Option<bool> {
        self.target.map(|t| match t {
            Target::AtMost(x) => self.ratio() <= x,
            Target::BandwidthAtLeast(f) => self.bandwidth_fraction() >= f,
        })
    }

    /// The ratio as the target states it: `1.42×` or `97 %`.
    pub fn ratio_text(&self) -> String {
        match self.target {
            Some(Target::BandwidthAtLeast(_)) => format!("{:.0} %", self.bandwidth_fraction() * 100.0),
            _ if self.op.bytes.is_some() => format!("{:.0} %", self.bandwidth_fraction() * 100.0),
            _ => format!("{:.2}×", self.ratio()),
        }
    }
}

/// How a group is reported.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// Beside `floor`, time at most this many times.
    Control(f64),
    /// Beside `floor`, bandwidth at least 95 % from 64 MiB on.
    Copy,
    /// Beside the same operation at the smallest count.
    Lookup,
    /// `direct` and `_log_off` beside the table call.
    Calls,
}

/// The groups, in report order: (group, operation in words, kind).
const GROUPS: &[(&str, &str, Kind)] = &[
    ("alloc_free", "physical alloc + free", Kind::Control(1.5)),
    ("reserve_release", "reserve + release", Kind::Control(1.5)),
    ("map_access_unmap", "map + set access + unmap", Kind::Control(1.5)),
    ("export", "export", Kind::Control(1.5)),
    ("handoff", "handoff: peer imports, maps, reads", Kind::Control(1.5)),
    ("reimport", "repeated import + free", Kind::Control(2.0)),
    ("copy_h2d", "copy host → device", Kind::Copy),
    ("copy_d2h", "copy device → host", Kind::Copy),
    ("copy_d2d", "copy device → device", Kind::Copy),
    ("import_lookup", "import lookup + free", Kind::Lookup),
    ("call_overhead", "call", Kind::Calls),
    ("ipc_event", "cross-process event, signal to wake (round trip)", Kind::Control(2.0)),
    ("cuda_stream_sync", "CUDA host function + stream synchronize", Kind::Control(2.0)),
    ("cuda_event_query", "CUDA event record + query until done", Kind::Control(2.0)),
    ("all_to_all", "all-to-all start-up: N processes each export, import and map the N − 1 others", Kind::Control(1.5)),
    // The program alone is the floor; `--trace` has no target (it writes every call out).
    ("run_overhead", "a program of N control calls under `vmmkit run`", Kind::Control(1.2)),
];

/// Copies are held to the bandwidth target from this size on.
const COPY_TARGET_FROM: usize = 64 * MIB;

fn is_reference(function: &str) -> bool {
    function.starts_with("floor") || function.starts_with("hot") || function == "direct" || function.contains("_log_")
}

/// Sort key of a parameter: its size or count when it is one.
fn param_key(p: &str) -> (usize, String) {
    let n = parse_size_label(p).or_else(|| p.parse().ok()).unwrap_or(usize::MAX);
    (n, p.to_owned())
}

/// The report's lines, from every measurement.
pub fn rows(ms: &[Measurement]) -> Vec<Row> {
    let mut out = Vec::new();
    let find = |g: &str, f: &str, p: &str| ms.iter().find(|m| m.group == g && m.function == f && m.param == p);
    for &(group, words, kind) in GROUPS {
        let mine: Vec<&Measurement> = ms.iter().filter(|m| m.group == group).collect();
        let backends: BTreeSet<&str> = mine.iter().map(|m| m.function.as_str()).filter(|f| !is_reference(f)).collect();
        let mut params: Vec<&str> =
            mine.iter().map(|m| m.param.as_str()).collect::<BTreeSet<_>>().into_iter().collect();
        params.sort_by_key(|p| param_key(p));
        for b in backends {
            let row = |param: &str, operation: String, op: &Measurement, name: &str, r: &Measurement, t| Row {
                operation,
                param: param.to_owned(),
                backend: b.to_owned(),
                op: op.clone(),
                reference_name: name.to_owned(),
                reference: r.clone(),
                calls: None,
                target: t,
            };
            match kind {
                Kind::Control(x) => {
                    for p in &params {
                        let Some(op) = find(group, b, p) else { continue };
                        // A backend's own floor (`floor_<backend>`: the cost of its calls) or the shared one.
                        let own = format!("floor_{b}");
                        if let Some((name, f)) = find(group, &own, p)
                            .map(|f| (own.as_str(), f))
                            .or_else(|| find(group, "floor", p).map(|f| ("floor", f)))
                        {
                            let t = (!b.ends_with("_trace")).then_some(Target::AtMost(x));
                            out.push(row(p, words.into(), op, name, f, t));
                        }
                        // The fd backends' floor with the one system call a
                        // repeated import cannot avoid (`cases::reimport`).
                        let fstat = format!("floor_fstat_{b}");
                        if let Some((name, f)) = find(group, &fstat, p)
                            .map(|f| (fstat.as_str(), f))
                            .or_else(|| find(group, "floor_fstat", p).map(|f| ("floor_fstat", f)))
                        {
                            let w = format!("{words} (vs floor + fstat)");
                            out.push(row(p, w, op, name, f, Some(Target::AtMost(x))));
                        }
                        if let Some(f) = find(group, "floor_memfd", p) {
                            out.push(row(p, format!("{words} (vs memfd)"), op, "floor_memfd", f, None));
                        }
                        // The handoff's floor with the file passed as a descriptor, beside the fd vendors.
                        if let Some(f) = find(group, "floor_fd", p).filter(|_| !crate::syscalls::by_key(b)) {
                            out.push(row(p, format!("{words} (vs an fd passed)"), op, "floor_fd", f, None));
                        }
                    }
                }
                Kind::Copy => {
                    for p in &params {
                        let (Some(op), Some(f)) = (find(group, b, p), find(group, "floor", p)) else { continue };
                        let big = parse_size_label(p).is_some_and(|n| n >= COPY_TARGET_FROM);
                        let t = big.then_some(Target::BandwidthAtLeast(0.95));
                        out.push(row(p, words.into(), op, "copy_from_slice", f, t));
                    }
                }
                Kind::Lookup => {
                    let Some(base_p) = params.iter().find(|p| find(group, b, p).is_some()) else { continue };
                    let base = find(group, b, base_p).expect("found above");
                    for p in &params {
                        let Some(op) = find(group, b, p) else { continue };
                        let t = (p != base_p).then_some(Target::AtMost(1.2));
                        let words = format!("{words}, {p} live handles");
                        out.push(row(p, words.clone(), op, &format!("at {base_p}"), base, t));
                        if let (Some(f), Some(f0)) = (find(group, "floor", p), find(group, "floor", base_p))
                            && p != base_p
                        {
                            let w = format!("lookup floor: open + flock + fstat + pread + close, {p} files");
                            out.push(row(p, w, f, &format!("floor at {base_p}"), f0, None));
                        }
                        let hot = format!("hot{base_p}");
                        if let Some(h) = find(group, &hot, p) {
                            let w = format!("{words}, the first {base_p} in turn");
                            out.push(row(p, w, h, &format!("at {base_p}"), base, None));
                        }
                    }
                }
                Kind::Calls => {
                    for p in &params {
                        let Some(op) = find(group, b, p) else { continue };
                        if let Some(d) = find(group, "direct", p) {
                            out.push(row(p, format!("{words} {p}: instrumentation layer"), op, "direct", d, None));
                        }
                        if let Some(off) = find(group, &format!("{b}_log_off"), p) {
                            let w = format!("{words} {p}: VMMKIT_LOG=off");
                            let mut r = row(p, w, off, "VMMKIT_LOG unset", op, Some(Target::AtMost(1.2)));
                            r.backend = b.to_owned();
                            out.push(r);
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(group: &str, function: &str, param: &str, median: f64, bytes: Option<u64>) -> Measurement {
        Measurement {
            group: group.into(),
            function: function.into(),
            param: param.into(),
            median,
            median_ci: (median, median),
            bytes,
        }
    }

    #[test]
    fn lines_and_targets() {
        let ms = vec![
            m("alloc_free", "emulator", "2MiB", 3000.0, None),
            m("alloc_free", "floor", "2MiB", 2000.0, None),
            m("alloc_free", "floor_memfd", "2MiB", 1000.0, None),
            m("alloc_free", "emulator", "64MiB", 5000.0, None),
            m("alloc_free", "floor", "64MiB", 2000.0, None),
            m("copy_h2d", "emulator", "1MiB", 100.0, Some(1 << 20)),
            m("copy_h2d", "floor", "1MiB", 50.0, Some(1 << 20)),
            m("copy_h2d", "emulator", "64MiB", 10.0e6, Some(64 << 20)),
            m("copy_h2d", "floor", "64MiB", 9.5e6, Some(64 << 20)),
            m("import_lookup", "emulator", "10", 1000.0, None),
            m("import_lookup", "emulator", "100000", 1300.0, None),
            m("import_lookup", "hot10", "100000", 1050.0, None),
            m("call_overhead", "emulator", "aclrtGetDevice", 20.0, None),
            m("call_overhead", "direct", "aclrtGetDevice", 10.0, None),
            m("call_overhead", "emulator_log_off", "aclrtGetDevice", 21.0, None),
            m("reimport", "emulator", "2MiB", 60.0, None),
            m("reimport", "floor_emulator", "2MiB", 30.0, None),
            m("reimport", "emulator-cuda", "2MiB", 390.0, None),
            m("reimport", "floor_emulator-cuda", "2MiB", 30.0, None),
            m("reimport", "floor_fstat_emulator-cuda", "2MiB", 180.0, None),
        ];
        let r = rows(&ms);
        let line = |op: &str, p: &str| r.iter().find(|x| x.operation == op && x.param == p).unwrap();
        let a = line("physical alloc + free", "2MiB");
        assert_eq!((a.ratio_text(), a.met()), ("1.50×".into(), Some(true)));
        assert_eq!(line("physical alloc + free", "64MiB").met(), Some(false));
        assert_eq!(line("physical alloc + free (vs memfd)", "2MiB").met(), None);
        let c = line("copy host → device", "64MiB");
        assert_eq!((c.ratio_text(), c.met()), ("95 %".into(), Some(true)));
        assert_eq!(line("copy host → device", "1MiB").met(), None, "no target below 64 MiB");
        assert_eq!(line("import lookup + free, 10 live handles", "10").met(), None);
        assert_eq!(line("import lookup + free, 100000 live handles", "100000").met(), Some(false));
        let hot = line("import lookup + free, 100000 live handles, the first 10 in turn", "100000");
        assert_eq!((hot.met(), hot.ratio_text()), (None, "1.05×".into()));
        assert_eq!(line("call aclrtGetDevice: instrumentation layer", "aclrtGetDevice").ratio_text(), "2.00×");
        let off = line("call aclrtGetDevice: VMMKIT_LOG=off", "aclrtGetDevice");
        assert_eq!((off.met(), off.backend.as_str()), (Some(true), "emulator"));
        // An fd backend's repeated import: beside its two calls, and beside them with the `fstat`.
        let re = |b: &str, op: &str| r.iter().find(|x| x.backend == b && x.operation == op).unwrap();
        let two = re("emulator-cuda", "repeated import + free");
        assert_eq!((two.reference_name.as_str(), two.met()), ("floor_emulator-cuda", Some(false)));
        let with = re("emulator-cuda", "repeated import + free (vs floor + fstat)");
        assert_eq!(
            (with.reference_name.as_str(), with.ratio_text(), with.met()),
            ("floor_fstat_emulator-cuda", "2.17×".into(), Some(false))
        );
        assert!(r.iter().all(|x| x.backend != "emulator" || !x.operation.contains("fstat")), "ACL has no fstat floor");
        // Rows come in the order of the groups, sizes ascending.
        assert_eq!(r[0].param, "2MiB");
        assert_eq!(r.len(), 13);
    }

    /// The handoff's `floor_fd` is a row beside the fd vendors' only, with no target.
    #[test]
    fn fd_floor_beside_the_fd_vendors() {
        let ms = vec![
            m("handoff", "emulator", "2MiB", 14.0, None),
            m("handoff", "emulator-cuda", "2MiB", 15.0, None),
            m("handoff", "floor", "2MiB", 10.0, None),
            m("handoff", "floor_fd", "2MiB", 10.0, None),
        ];
        let r = rows(&ms);
        let fd: Vec<_> = r.iter().filter(|x| x.reference_name == "floor_fd").collect();
        assert_eq!(fd.len(), 1, "beside CUDA only");
        assert_eq!((fd[0].backend.as_str(), fd[0].met()), ("emulator-cuda", None));
        assert_eq!(r.iter().filter(|x| x.met().is_some()).count(), 2, "the targets stay against the floor");
    }
}
