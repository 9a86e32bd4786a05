//! `bench-report`: criterion's results of the vmmkit benches, one line per
//! operation: its median, its floor's, the ratio, the target and whether it
//! is met.
//!
//! ```text
//! bench-report [--dir DIR] [--markdown] [-o FILE] [--check]
//!   --dir DIR    criterion's output directory (default: $CRITERION_HOME,
//!                else $CARGO_TARGET_DIR/criterion, else target/criterion)
//!   --markdown   the BENCHMARKS.md document instead of the terminal table
//!                (with benches/analysis.md appended)
//!   -o FILE      write to FILE instead of standard output
//!   --check      exit with 1 when a target is missed
//! ```

use std::path::PathBuf;

use std::process::ExitCode;
use vmmkit_benches::syscalls;

use vmmkit_benches::record::{Run, criterion_dir};
use vmmkit_benches::report::{self, render};

const USAGE: &str = "usage: bench-report [--dir DIR] [--markdown] [-o FILE] [--check]";

fn main() -> ExitCode {
    let mut dir = None;
    let mut out = None;
    let (mut markdown, mut check) = (false, false);
    let mut args = std::env::args_os().skip(1);
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--dir") => dir = args.next().map(PathBuf::from),
            Some("-o" | "--output") => out = args.next().map(PathBuf::from),
            Some("--markdown") => markdown = true,
            Some("--check") => check = true,
            Some("-h" | "--help") => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            _ => {
                eprintln!("bench-report: unexpected argument {a:?}\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let dir = dir.unwrap_or_else(criterion_dir);
    let ms = report::read(&dir);
    if ms.is_empty() {
        eprintln!(
            "bench-report: no criterion results under {}; run `cargo bench -p vmmkit-benches` first \
             (with the same CARGO_TARGET_DIR), or name the directory with --dir",
            dir.display()
        );
        return ExitCode::FAILURE;
    }
    let mut rows = report::rows(&ms);
    let calls = count_calls();
    if let Ok(t) = &calls {
        report::Row::attach_calls(&mut rows, t);
    }
    let runs = Run::read_all(&dir);
    let text = if markdown {
        let analysis_path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("analysis.md");
        let analysis = std::fs::read_to_string(&analysis_path).ok();
        render::document(&rows, &runs, &calls, analysis.as_deref())
    } else {
        let mut t = render::text(&rows);
        t.push_str(&format!("\n{} (results in {})\n", render::summary(&rows), dir.display()));
        for r in &runs {
            let load = |l: Option<[f64; 3]>| l.map_or_else(|| "?".into(), |l| format!("{:.2}", l[0]));
            t.push_str(&format!(
                "{}: {} plan on {}, load {} -> {}\n",
                r.target,
                r.plan,
                r.backend,
                load(r.load_start),
                load(r.load_end)
            ));
        }
        t
    };
    match out {
        Some(path) => {
            if let Err(e) = std::fs::write(&path, &text) {
                eprintln!("bench-report: writing {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        None => print!("{text}"),
    }
    if check && rows.iter().any(|r| r.met() == Some(false)) {
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The system calls of the control operations, counted now in a traced
/// child (exact whatever the load), with the peer built beside this binary.
fn count_calls() -> render::Calls {
    if let Some(why) = syscalls::available() {
        return Err(format!("this process may not trace its child ({why})"));
    }
    let peer = std::env::current_exe().map_err(|e| e.to_string())?.with_file_name("vmmkit-bench-peer");
    if !peer.exists() {
        return Err(format!("{} is missing: `cargo build -p vmmkit-benches --bins`", peer.display()));
    }
    syscalls::count_benches(peer).map_err(|e| e.to_string())
}
