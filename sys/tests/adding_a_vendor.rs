//! `docs/adding-a-vendor.md` lists the existing files a new vendor touches
//! and the new files it adds, as the example vendor (feature
//! `example-vendor`) needed them. This test holds the list to the tree: every
//! file that mentions the marker `example-vendor` must be listed, and every
//! listed file must mention it. A listed file that stops being needed, or an
//! unlisted one that becomes necessary, fails here with the file named.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What every file of the example vendor mentions: its cargo feature, in the
/// `cfg` of each plug-in line, in the `[features]` of each crate, and in the
/// header of each of its own files.
const MARKER: &str = "example-vendor";

/// The walkthrough itself.
const DOC: &str = "docs/adding-a-vendor.md";

/// Files that mention the marker without being part of the vendor: the
/// walkthrough and this test.
const NOT_THE_VENDOR: &[&str] = &[DOC, "sys/tests/adding_a_vendor.rs"];

/// The tables of the walkthrough, by the start of their heading.
const EXISTING: &str = "## Existing files touched";
const NEW: &str = "## New files";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("sys/ is in the workspace").to_path_buf()
}

/// The files of the table under the heading that starts with `heading`
/// (`## New files: 21`): the backquoted paths of each row's second cell.
/// The count in the heading must be the number of files.
fn listed(doc: &str, heading: &str) -> Result<Vec<String>, String> {
    let mut lines = doc.lines().skip_while(|l| !l.starts_with(heading));
    let head = lines.next().ok_or_else(|| format!("{DOC} has no heading `{heading}: N`"))?;
    let count: usize = head
        .rsplit(':')
        .next()
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| format!("{DOC}: `{head}` does not end with `: N`, the number of files"))?;
    let mut files = Vec::new();
    for row in lines.skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')) {
        let Some(cell) = row.split('|').nth(2) else { continue };
        files.extend(cell.split('`').skip(1).step_by(2).filter(|t| t.contains('/')).map(str::to_string));
    }
    if files.len() != count {
        return Err(format!("{DOC}: `{head}` says {count}, its table lists {} files", files.len()));
    }
    Ok(files)
}

/// Every file of the workspace (outside build outputs and hidden
/// directories) that mentions [`MARKER`], relative to the workspace.
fn mentioning(root: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if name.starts_with('.') || name == "target" || name == "__pycache__" {
                continue;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else { continue };
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file()
                && entry.metadata().is_ok_and(|m| m.len() < 4 << 20)
                && std::fs::read(&path).is_ok_and(|b| b.windows(MARKER.len()).any(|w| w == MARKER.as_bytes()))
            {
                let rel = path.strip_prefix(root).expect("under the root");
                found.insert(rel.to_string_lossy().into_owned());
            }
        }
    }
    found
}

/// What is wrong between the walkthrough `doc` and the files that mention
/// the marker, one line per file.
fn differences(doc: &str, mentioning: &BTreeSet<String>) -> Vec<String> {
    let (existing, new) = match (listed(doc, EXISTING), listed(doc, NEW)) {
        (Ok(e), Ok(n)) => (e, n),
        (e, n) => return e.err().into_iter().chain(n.err()).collect(),
    };
    let mut wrong = Vec::new();
    for f in &new {
        if !f.contains("example") {
            wrong.push(format!("{f}: a new file of the vendor is named for it (`example`)"));
        }
    }
    for f in &existing {
        if f.split('/').any(|part| part == "example" || part.starts_with("example.")) {
            wrong.push(format!("{f}: listed as an existing file, but it is the vendor's own"));
        }
    }
    let listed: BTreeSet<&str> = existing.iter().chain(&new).map(String::as_str).collect();
    for f in &listed {
        if !mentioning.contains(*f) {
            wrong.push(format!("{f}: listed in {DOC}, but it does not mention `{MARKER}` (no longer needed?)"));
        }
    }
    for f in mentioning {
        if !listed.contains(f.as_str()) && !NOT_THE_VENDOR.contains(&f.as_str()) {
            wrong.push(format!("{f}: mentions `{MARKER}`, but {DOC} does not list it"));
        }
    }
    wrong
}

#[test]
fn the_walkthrough_lists_exactly_the_files_the_example_vendor_needed() {
    let root = workspace();
    let doc = std::fs::read_to_string(root.join(DOC)).expect("the walkthrough");
    let wrong = differences(&doc, &mentioning(&root));
    assert!(wrong.is_empty(), "{DOC} and the tree disagree:\n{}", wrong.join("\n"));
}

#[test]
fn a_difference_either_way_names_the_file() {
    let doc = "## Existing files touched: 1\n\n| # | file | what |\n|---|---|---|\n| 1 | `a/lib.rs` | x |\n\n\
               ## New files: 1\n\n| # | file | what |\n|---|---|---|\n| 1 | `a/example/mod.rs` | y |\n";
    let tree = |files: &[&str]| files.iter().map(|f| f.to_string()).collect::<BTreeSet<_>>();
    assert!(differences(doc, &tree(&["a/lib.rs", "a/example/mod.rs"])).is_empty());
    let stale = differences(doc, &tree(&["a/example/mod.rs"]));
    assert_eq!(stale.len(), 1);
    assert!(stale[0].starts_with("a/lib.rs: listed"), "{stale:?}");
    let unlisted = differences(doc, &tree(&["a/lib.rs", "a/example/mod.rs", "b/main.rs"]));
    assert_eq!(unlisted.len(), 1);
    assert!(unlisted[0].starts_with("b/main.rs: mentions"), "{unlisted:?}");
    let miscounted = differences(&doc.replace("touched: 1", "touched: 2"), &tree(&["a/lib.rs", "a/example/mod.rs"]));
    assert!(miscounted[0].contains("says 2, its table lists 1"), "{miscounted:?}");
}
