//! Code is named by what it holds, not by the history that brought it:
//! no source file of the workspace cites an issue number ("issue 18",
//! "Issue 20 item 4"), which says nothing to a reader who was not there.

use std::path::{Path, PathBuf};

/// The workspace's source files: Rust, C, C++, Python and shell, outside
/// build output and hidden directories.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" || name == "build" {
            continue;
        }
        if p.is_dir() {
            sources(&p, out);
        } else if ["rs", "c", "h", "cpp", "py", "sh"].iter().any(|x| p.extension().is_some_and(|e| e == *x)) {
            out.push(p);
        }
    }
}

/// "issue" followed by a number, in any case.
fn cites_an_issue(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    lower.match_indices("issue").any(|(i, m)| {
        let rest = lower[i + m.len()..].trim_start_matches('s').trim_start();
        rest.starts_with(|c: char| c.is_ascii_digit())
    })
}

#[test]
fn no_source_file_cites_an_issue_number() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root");
    let mut files = Vec::new();
    sources(root, &mut files);
    assert!(files.len() > 100, "found only {} source files under {}", files.len(), root.display());
    let this = Path::new(file!()).file_name().expect("this file");
    let hits: Vec<String> = files
        .iter()
        .filter(|f| f.file_name() != Some(this))
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            let lines: Vec<String> = text
                .lines()
                .enumerate()
                .filter(|(_, l)| cites_an_issue(l))
                .map(|(n, l)| format!("{}:{}: {}", f.strip_prefix(root).unwrap_or(f).display(), n + 1, l.trim()))
                .collect();
            lines
        })
        .collect();
    assert!(hits.is_empty(), "issue numbers in code:\n{}", hits.join("\n"));
}

#[test]
fn the_check_finds_what_it_looks_for() {
    assert!(cites_an_issue("// Issue 18: memory"));
    assert!(cites_an_issue("(issues 17 and 19)"));
    assert!(!cites_an_issue("// an issue of ordering"));
    assert!(!cites_an_issue("https://github.com/x/y/issues/12"));
}
