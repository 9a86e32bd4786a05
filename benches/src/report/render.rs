//! The report as a text table for a terminal, and as the BENCHMARKS.md document.

use std::fmt::Write as _;

use super::table::Row;
use crate::record::{Machine, Run, utc};

/// `850 ns`, `12.3 µs`, `4.56 ms`, `1.23 s`.
pub fn time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// A median, with its bandwidth for copies: `10.5 ms (6.39 GB/s)`.
fn cell(m: &super::results::Measurement) -> String {
    match m.bytes_per_second() {
        Some(bps) => format!("{} ({:.2} GB/s)", time(m.median), bps / 1e9),
        None => time(m.median),
    }
}

fn met(r: &Row) -> &'static str {
    match r.met() {
        Some(true) => "yes",
        Some(false) => "**no**",
        None => "",
    }
}

fn columns(r: &Row) -> [String; 10] {
    [
        r.operation.clone(),
        r.param.clone(),
        r.backend.clone(),
        cell(&r.op),
        r.reference_name.clone(),
        cell(&r.reference),
        r.ratio_text(),
        r.calls_text(),
        r.target.map(|t| t.text()).unwrap_or_default(),
        met(r).trim_matches('*').to_owned(),
    ]
}

const HEADER: [&str; 10] = [
    "operation",
    "parameter",
    "backend",
    "median",
    "compared with",
    "its median",
    "ratio",
    "system calls (op / ref)",
    "target",
    "met",
];

/// A plain table, columns aligned, one line per row.
pub fn text(rows: &[Row]) -> String {
    let cells: Vec<[String; 10]> = rows.iter().map(columns).collect();
    let mut width = HEADER.map(|h| h.chars().count());
    for c in &cells {
        for (w, s) in width.iter_mut().zip(c) {
            *w = (*w).max(s.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, c: &[String]| {
        let parts: Vec<String> =
            c.iter().zip(width).map(|(s, w)| format!("{s}{}", " ".repeat(w - s.chars().count()))).collect();
        let _ = writeln!(out, "{}", parts.join("  ").trim_end());
    };
    line(&mut out, &HEADER.map(str::to_owned));
    for c in &cells {
        line(&mut out, c);
    }
    out
}

/// The markdown table.
pub fn markdown_table(rows: &[Row]) -> String {
    let mut out = format!("| {} |\n|{}|\n", HEADER.join(" | "), HEADER.map(|_| "---").join("|"));
    for r in rows {
        let mut c = columns(r);
        c[9] = met(r).to_owned();
        let _ = writeln!(out, "| {} |", c.join(" | "));
    }
    out
}

/// `met 14 of 16 targets`.
pub fn summary(rows: &[Row]) -> String {
    let with: Vec<bool> = rows.iter().filter_map(Row::met).collect();
    let met = with.iter().filter(|&&m| m).count();
    format!("{met} of {} targets met", with.len())
}

/// The system calls counted for the report, or why they were not.
pub type Calls = Result<Vec<crate::syscalls::Tally>, String>;

/// The section on system calls: each counted body's calls per iteration,
/// call by call, and the extra calls allowed beyond the floor's and why.
fn calls_section(d: &mut String, calls: &Calls) {
    let _ = writeln!(d, "## System calls per iteration\n");
    let tallies = match calls {
        Ok(t) => t,
        Err(why) => {
            let _ = writeln!(d, "Not counted: {why}\n");
            return;
        }
    };
    let _ = writeln!(
        d,
        "Counted exactly with `ptrace` (`vmmkit_benches::syscalls`, also the test \
         `cargo test -p vmmkit-benches --test syscalls`), {} iterations of each body's measured part on \
         the smoke plan's sizes, when this report was made. Only the calling thread is counted; \
         the handoff's peers count their own (`handoff_peer/...`: from the request to the reply, \
         beside the floor's peer). A build with debug assertions adds an \
         `fcntl(F_GETFD)` to every `close`, on both sides.\n",
        crate::syscalls::ITERS
    );
    let _ = writeln!(d, "| bench | calls | which |\n|---|---|---|");
    for t in tallies {
        let _ = writeln!(d, "| {} | {} | {} |", t.label, t.per_window(), t.breakdown());
    }
    let _ = writeln!(d, "\nCalls beyond the floor's, each unavoidable:\n");
    for (group, kind, name, n, why) in crate::syscalls::EXTRA {
        let who = match *kind {
            "key" => " (ACL)",
            "fd" => " (HIP, CUDA)",
            _ => "",
        };
        let _ = writeln!(d, "- {group}{who}: `{name}` ×{n}: {why}");
    }
    let _ = writeln!(d, "\nCalls made in place of one of the floor's:\n");
    for (group, name, floor, why) in crate::syscalls::INSTEAD {
        let _ = writeln!(d, "- {group}: `{name}` instead of `{floor}`: {why}");
    }
    d.push('\n');
}

fn load(l: Option<[f64; 3]>) -> String {
    l.map_or_else(|| "?".into(), |l| format!("{:.2}", l[0]))
}

/// The whole BENCHMARKS.md: how the figures were made, on what, under what
/// load, the table, the set-up notes, and the hand-written analysis.
pub fn document(rows: &[Row], runs: &[Run], calls: &Calls, analysis: Option<&str>) -> String {
    let mut d = String::new();
    let _ = writeln!(d, "# Benchmarks\n");
    let _ = writeln!(
        d,
        "<!-- Generated by `cargo run -p vmmkit-benches --bin bench-report -- --markdown -o BENCHMARKS.md`; \
         do not edit by hand: edit benches/analysis.md, or run the benches again. -->\n"
    );
    let quick_targets: Vec<&str> = runs.iter().filter(|r| r.plan != "full").map(|r| r.target.as_str()).collect();
    let quick = !runs.is_empty() && quick_targets.len() == runs.len();
    let bench_cmd = if quick {
        "`VMMKIT_BENCH_QUICK=1 cargo bench -p vmmkit-benches`".to_owned()
    } else if quick_targets.is_empty() {
        "`cargo bench -p vmmkit-benches`".to_owned()
    } else {
        format!(
            "`cargo bench -p vmmkit-benches` (the full plan), with `VMMKIT_BENCH_QUICK=1` (the quick plan) for {}",
            quick_targets.join(", ")
        )
    };
    let _ = writeln!(
        d,
        "Each operation of the selected backend beside its floor, the system calls it cannot avoid \
         (see `benches/src/cases/` for what each floor is and why), medians of criterion samples.\n"
    );
    let _ = writeln!(d, "- Measured with: {bench_cmd}");
    let _ = writeln!(d, "- Report: `cargo run -p vmmkit-benches --bin bench-report -- --markdown -o BENCHMARKS.md`");
    if let (Some(first), Some(last)) = (runs.iter().map(|r| r.started).min(), runs.iter().map(|r| r.finished).max()) {
        let _ = writeln!(d, "- Date: {} to {}", utc(first), utc(last));
    }
    let m = runs.first().map_or_else(Machine::current, |r| r.machine.clone());
    let _ = writeln!(
        d,
        "- Machine: {} CPUs, {}, {:.0} GiB of memory, {}",
        m.cpus,
        m.cpu,
        m.memory as f64 / f64::from(1u32 << 30),
        m.kernel
    );
    let max_load =
        runs.iter().flat_map(|r| [r.load_start, r.load_end]).flatten().map(|l| l[0]).fold(f64::NAN, f64::max);
    if max_load.is_finite() {
        let _ = writeln!(d, "- Load average (1 min) at the start and end of each bench process: at most {max_load:.2}");
    }
    if quick {
        let _ =
            writeln!(d, "- **Quick plan** (CI smoke run): short measurement times, fewer sizes; not figures to quote.");
    }
    let _ = writeln!(d, "- {}\n", summary(rows));
    let _ = writeln!(d, "## Results\n");
    d.push_str(&markdown_table(rows));
    let _ = writeln!(
        d,
        "\nRatios are the operation's median over the reference's (for copies: the operation's bandwidth as a \
         share of the reference's). GB/s are 10⁹ bytes per second.\n"
    );
    calls_section(&mut d, calls);
    if !runs.is_empty() {
        let _ = writeln!(d, "## Runs\n");
        let _ = writeln!(
            d,
            "| bench | backend | plan | started | seconds | load at start | load at end |\n|---|---|---|---|---|---|---|"
        );
        for r in runs {
            let _ = writeln!(
                d,
                "| {} | {} | {} | {} | {} | {} | {} |",
                r.target,
                r.backend,
                r.plan,
                utc(r.started),
                r.finished.saturating_sub(r.started),
                load(r.load_start),
                load(r.load_end)
            );
        }
        let notes: Vec<&String> = runs.iter().flat_map(|r| &r.notes).collect();
        if !notes.is_empty() {
            let _ = writeln!(d, "\nSet-up and notes recorded by the runs:\n");
            for n in notes {
                let _ = writeln!(d, "- {n}");
            }
        }
        d.push('\n');
    }
    if let Some(a) = analysis {
        d.push_str(a.trim_end());
        d.push('\n');
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times() {
        assert_eq!(time(850.0), "850 ns");
        assert_eq!(time(12_345.0), "12.3 µs");
        assert_eq!(time(4_560_000.0), "4.56 ms");
        assert_eq!(time(1.234e9), "1.23 s");
    }
}
