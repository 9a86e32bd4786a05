//! The audit tables of `docs/audit/*.md` against the rule tables.
//!
//! Every ACL and HIP rule is checked against its vendor's source, one row
//! per rule across all the files (`| rule | source | verdict | note |`).
//! This test keeps the tables complete: each ACL and HIP id has exactly one
//! row, no row names an unknown id, verdicts are `agree`, `undetermined` or
//! `differ`, no ACL or HIP row is left at `differ`, and an `agree` row cites
//! at least one `path:line`. CUDA rows are optional but must name real ids.
//! Every `repo@commit` in these files is one of the commits that the
//! README's "Vendor sources" table names (each vendor release once).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use vmmkit_sys::rule::Rule;
use vmmkit_sys::{acl, cuda, hip};

/// The header row that marks an audit table.
const HEADER: &str = "| rule | source | verdict | note |";

const VERDICTS: &[&str] = &["agree", "undetermined", "differ"];

/// One table row, with where it was read.
#[derive(Debug)]
struct Row {
    at: String,
    rule: String,
    source: String,
    verdict: String,
}

/// The rows of every audit table in `text` (`name` locates them in messages).
fn rows(name: &str, text: &str) -> Vec<Row> {
    let mut out = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((_, line)) = lines.next() {
        if line.trim() != HEADER {
            continue;
        }
        // The separator row, then rows until the table ends.
        lines.next();
        for (n, line) in lines.by_ref() {
            let line = line.trim();
            if !line.starts_with('|') {
                break;
            }
            let cells: Vec<&str> = line.trim_matches('|').splitn(4, '|').map(str::trim).collect();
            let cell = |i: usize| cells.get(i).copied().unwrap_or("").to_owned();
            out.push(Row { at: format!("{name}:{}", n + 1), rule: cell(0), source: cell(1), verdict: cell(2) });
        }
    }
    out
}

/// Whether `source` cites at least one `path:line` (a path with a `.` or
/// `/`, a colon, then a line or a range of lines), such as
/// `src/acl/aclrt_impl/memory.cpp:1169` or `…/devmm_svm.c:2119-2125`.
fn cites_line(source: &str) -> bool {
    source.split(|c: char| c.is_whitespace() || c == ';' || c == ',').any(|token| {
        token.rsplit_once(':').is_some_and(|(path, line)| {
            let (first, last) = line.split_once('-').unwrap_or((line, line));
            let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit());
            number(first) && number(last) && path.contains(['.', '/']) && !path.contains("://")
        })
    })
}

/// Everything wrong with `rows` given the `required` ids (each needs exactly
/// one row, and may not stay at `differ`) and the `optional` ids (at most one
/// row, any verdict). An empty list means the tables are complete.
fn problems(rows: &[Row], required: &BTreeSet<String>, optional: &BTreeSet<String>) -> Vec<String> {
    let mut found = Vec::new();
    let mut seen: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for row in rows {
        seen.entry(row.rule.as_str()).or_default().push(row.at.as_str());
        let known = required.contains(&row.rule) || optional.contains(&row.rule);
        if !known {
            found.push(format!("{}: {} is not an id of the rule tables", row.at, row.rule));
        }
        if !VERDICTS.contains(&row.verdict.as_str()) {
            found.push(format!("{}: {} has verdict {:?}, not one of {VERDICTS:?}", row.at, row.rule, row.verdict));
        }
        if row.verdict == "differ" && required.contains(&row.rule) {
            found.push(format!(
                "{}: {} differs from the vendor's source: fix its expectation and the emulator",
                row.at, row.rule
            ));
        }
        if row.verdict == "agree" && !cites_line(&row.source) {
            found.push(format!("{}: {} agrees but its source cites no path:line", row.at, row.rule));
        }
    }
    for (id, at) in &seen {
        if at.len() > 1 {
            found.push(format!("{id} has {} rows: {}", at.len(), at.join(", ")));
        }
    }
    let missing: Vec<&str> = required.iter().map(String::as_str).filter(|id| !seen.contains_key(id)).collect();
    if !missing.is_empty() {
        found.push(format!("{} rules have no audit row: {}", missing.len(), missing.join(", ")));
    }
    found
}

fn ids(tables: &[&[&Rule]]) -> BTreeSet<String> {
    tables.iter().flat_map(|t| t.iter()).map(|r| r.id.to_string()).collect()
}

fn audit_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/audit")
}

/// Every `docs/audit/*.md` as (`docs/audit/NAME`, text), in file-name order.
fn audit_files() -> Vec<(String, String)> {
    let dir = audit_dir();
    let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|path| {
            let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
            (format!("docs/audit/{name}"), text)
        })
        .collect()
}

/// The rows of every `docs/audit/*.md`, in file-name order.
fn audit_rows() -> Vec<Row> {
    audit_files().iter().flat_map(|(name, text)| rows(name, text)).collect()
}

// ---- the vendor commits the citations may name ---------------------------------

/// The section of the README that names the vendor sources.
const SOURCES: &str = "## Vendor sources";

/// The (`repository`, `commit`) pairs of the first table under [`SOURCES`] in
/// `readme`, in its `Repository` and `Commit` columns, with the README line
/// of each; an empty list when the section or its columns are missing.
fn source_commits(readme: &str) -> Vec<(String, String, usize)> {
    let mut lines = readme.lines().enumerate().skip_while(|(_, l)| l.trim() != SOURCES).skip(1);
    let cells =
        |l: &str| -> Vec<String> { l.trim().trim_matches('|').split('|').map(|c| c.trim().to_owned()).collect() };
    let Some((_, header)) = lines.by_ref().find(|(_, l)| l.trim_start().starts_with('|')) else { return Vec::new() };
    let header = cells(header);
    let column = |name: &str| header.iter().position(|c| c == name);
    let (Some(repo), Some(commit)) = (column("Repository"), column("Commit")) else { return Vec::new() };
    lines
        .skip(1)
        .take_while(|(_, l)| l.trim_start().starts_with('|'))
        .map(|(n, l)| {
            let row = cells(l);
            let cell = |i: usize| row.get(i).cloned().unwrap_or_default();
            (cell(repo), cell(commit), n + 1)
        })
        .collect()
}

/// Every `owner/name@commit` in `text` (a commit of at least 6 hex digits),
/// with its line.
fn citations(text: &str) -> Vec<(String, String, usize)> {
    let repo_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/');
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for (at, _) in line.match_indices('@') {
            let repo: String = line[..at].chars().rev().take_while(|c| repo_char(*c)).collect();
            let repo: String = repo.chars().rev().collect::<String>().trim_start_matches(['.', '/']).to_owned();
            let commit: String = line[at + 1..].chars().take_while(char::is_ascii_hexdigit).collect();
            if repo.matches('/').count() == 1 && !repo.starts_with('/') && !repo.ends_with('/') && commit.len() >= 6 {
                out.push((repo, commit, n + 1));
            }
        }
    }
    out
}

/// Everything wrong with the commits `files` cite against the README's
/// sources table: a citation of a commit the table does not name for its
/// repository, a table that names no commit, or a commit named twice.
fn commit_problems(readme: &str, files: &[(String, String)]) -> Vec<String> {
    let table = source_commits(readme);
    let mut found = Vec::new();
    if table.is_empty() {
        found.push(format!("README.md: no table with Repository and Commit columns under {SOURCES:?}"));
    }
    let mut named: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (repo, commit, line) in &table {
        if let Some(first) = named.insert((repo.as_str(), commit.as_str()), *line) {
            found.push(format!("README.md:{line}: {repo}@{commit} is named again (first at :{first})"));
        }
    }
    for (name, text) in files {
        for (repo, commit, line) in citations(text) {
            if !named.contains_key(&(repo.as_str(), commit.as_str())) {
                found.push(format!("{name}:{line}: {repo}@{commit} is not a commit of the vendor sources table"));
            }
        }
    }
    found
}

#[test]
fn every_cited_commit_is_one_the_sources_table_names() {
    let files = audit_files();
    let readme = files
        .iter()
        .find(|(name, _)| name.ends_with("/README.md"))
        .map(|(_, text)| text.as_str())
        .unwrap_or_else(|| panic!("no README.md under {}", audit_dir().display()));
    assert!(files.iter().any(|(_, text)| !citations(text).is_empty()), "no repo@commit in the audit files");
    let found = commit_problems(readme, &files);
    assert!(found.is_empty(), "the audit cites commits the sources table does not name:\n{}", found.join("\n"));
}

#[test]
fn every_acl_and_hip_rule_has_one_audit_row_that_does_not_differ() {
    let rows = audit_rows();
    assert!(!rows.is_empty(), "no audit table (header {HEADER:?}) under {}", audit_dir().display());
    let required = ids(&[acl::rules::ALL, hip::rules::ALL]);
    let optional = ids(&[cuda::rules::ALL]);
    let found = problems(&rows, &required, &optional);
    assert!(found.is_empty(), "the audit tables are incomplete:\n{}", found.join("\n"));
}

// ---- the checker itself, on made-up tables -----------------------------------

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| (*s).to_owned()).collect()
}

fn table(body: &str) -> Vec<Row> {
    rows("t.md", &format!("# t\n\n{HEADER}\n| --- | --- | --- | --- |\n{body}\nafter the table\n"))
}

const GOOD: &str = "| ACL-MAP-003 | hicann/runtime@681ef76 src/acl/aclrt_impl/memory.cpp:1169 | agree | flags | x |";

#[test]
fn a_complete_table_passes_and_notes_may_hold_bars() {
    let rows = table(GOOD);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].verdict, "agree");
    assert!(problems(&rows, &set(&["ACL-MAP-003"]), &set(&[])).is_empty());
}

#[test]
fn a_missing_rule_is_named() {
    let found = problems(&table(GOOD), &set(&["ACL-MAP-003", "HIP-VMM-012"]), &set(&[]));
    assert_eq!(found, ["1 rules have no audit row: HIP-VMM-012"]);
}

#[test]
fn a_rule_in_two_rows_is_named() {
    let mut rows = table(GOOD);
    rows.extend(self::rows("u.md", &format!("{HEADER}\n|-|-|-|-|\n{GOOD}")));
    let found = problems(&rows, &set(&["ACL-MAP-003"]), &set(&[]));
    assert_eq!(found, ["ACL-MAP-003 has 2 rows: t.md:5, u.md:3"]);
}

#[test]
fn an_unknown_id_is_named() {
    let found = problems(&table(GOOD), &set(&[]), &set(&[]));
    assert_eq!(found, ["t.md:5: ACL-MAP-003 is not an id of the rule tables"]);
}

#[test]
fn a_verdict_outside_the_three_is_refused() {
    let found = problems(&table("| ACL-MAP-003 | a.c:1 | agrees | x |"), &set(&["ACL-MAP-003"]), &set(&[]));
    assert_eq!(found.len(), 1);
    assert!(found[0].contains("\"agrees\""), "{found:?}");
}

#[test]
fn differ_fails_for_acl_and_hip_but_not_for_optional_cuda() {
    let body = "| HIP-VMM-013 | hip_vm.cpp:10 | differ | x |\n| CUDA-VMM-001 | x.c:2 | differ | y |";
    let found = problems(&table(body), &set(&["HIP-VMM-013"]), &set(&["CUDA-VMM-001"]));
    assert_eq!(found.len(), 1);
    assert!(found[0].starts_with("t.md:5: HIP-VMM-013 differs"), "{found:?}");
}

#[test]
fn agree_needs_a_path_and_line() {
    let body = "| ACL-MAP-003 | memory.cpp | agree | x |\n| ACL-MAP-004 | driver devmm_svm.c | undetermined | y |";
    let found = problems(&table(body), &set(&["ACL-MAP-003", "ACL-MAP-004"]), &set(&[]));
    assert_eq!(found, ["t.md:5: ACL-MAP-003 agrees but its source cites no path:line"]);
    assert!(cites_line("hicann/driver@ef377e9 src/a/b.c:45; x"));
    assert!(cites_line("hip_vm.cpp:12,"));
    assert!(cites_line("src/devmm/devmm_svm.c:2119-2125;"));
    assert!(!cites_line("devmm_svm.c:2119-"));
    assert!(!cites_line("https://example.com:443"));
    assert!(!cites_line("memory.cpp:"));
    assert!(!cites_line("ACL-MAP-003:12"));
}

const README: &str = "# r\n\n## Vendor sources\n\n| Vendor | Repository | Tag | Commit |\n| --- | --- | --- | --- |\n\
                      | ACL | hicann/runtime | `v9.1.0` | 0b4af8a |\n| HIP | ROCm/clr | `rocm-6.3.0` | fa1d09c |\n\nafter\n";

#[test]
fn the_sources_table_is_read_by_its_columns() {
    let table = source_commits(README);
    let pairs: Vec<(&str, &str)> = table.iter().map(|(r, c, _)| (r.as_str(), c.as_str())).collect();
    assert_eq!(pairs, [("hicann/runtime", "0b4af8a"), ("ROCm/clr", "fa1d09c")]);
    assert!(source_commits("# no table\n").is_empty());
}

#[test]
fn a_stray_commit_is_named_and_a_listed_one_passes() {
    let good =
        ("t.md".to_owned(), "| X | hicann/runtime@0b4af8a a.cc:1; ROCm/clr@fa1d09c b.cpp:2 | agree | y |".to_owned());
    assert!(commit_problems(README, std::slice::from_ref(&good)).is_empty());
    let stray = ("u.md".to_owned(), "read at `ROCm/rocm-systems@804ae76` and hicann/runtime@681ef76\n".to_owned());
    let found = commit_problems(README, &[good, stray]);
    assert_eq!(
        found,
        [
            "u.md:1: ROCm/rocm-systems@804ae76 is not a commit of the vendor sources table",
            "u.md:1: hicann/runtime@681ef76 is not a commit of the vendor sources table",
        ]
    );
    // A listed commit under another repository is stray too.
    let moved = ("v.md".to_owned(), "hicann/driver@0b4af8a".to_owned());
    assert_eq!(commit_problems(README, &[moved]).len(), 1);
}

#[test]
fn a_commit_named_twice_or_a_missing_table_is_named() {
    let twice = README.replace("| HIP | ROCm/clr |", "| ACL | hicann/runtime | x | 0b4af8a |\n| HIP | ROCm/clr |");
    let found = commit_problems(&twice, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("hicann/runtime@0b4af8a is named again"), "{found:?}");
    assert_eq!(commit_problems("# r\n", &[]).len(), 1);
    assert_eq!(citations("mail a@b.c, x/y@zz, `o/n@abcdef1`"), [("o/n".to_owned(), "abcdef1".to_owned(), 1)]);
}

/// The ids whose confidence tag and audit verdict disagree: a rule tagged
/// `undetermined` whose row agrees, or a row `undetermined` for a rule
/// without the tag.
fn tag_verdict_mismatches(rows: &[Row], rules: &[&Rule]) -> Vec<String> {
    use vmmkit_sys::rule::Confidence;
    let mut out = Vec::new();
    for r in rules {
        let id = r.id.to_string();
        let Some(row) = rows.iter().find(|row| row.rule == id) else { continue };
        let tagged = r.confidence.contains(&Confidence::Undetermined);
        let audited = row.verdict == "undetermined";
        if tagged != audited {
            let tag = if tagged { "tagged undetermined" } else { "not tagged undetermined" };
            out.push(format!("{}: {id} is {tag} but audited {}", row.at, row.verdict));
        }
    }
    out
}

#[test]
fn confidence_tags_and_audit_verdicts_agree() {
    let rows = audit_rows();
    let rules: Vec<&Rule> = acl::rules::ALL.iter().chain(hip::rules::ALL.iter()).copied().collect();
    let found = tag_verdict_mismatches(&rows, &rules);
    assert!(found.is_empty(), "confidence tags and audit verdicts disagree:\n{}", found.join("\n"));
}

#[test]
fn a_tag_that_disagrees_with_its_verdict_is_named() {
    let rows = table("| ACL-SHV-006 | a.c:1 | agree | x |\n| ACL-MAP-003 | b.c:2 | undetermined | y |");
    let found = tag_verdict_mismatches(&rows, &[&acl::rules::SHV_006, &acl::rules::MAP_003]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("ACL-SHV-006 is tagged undetermined but audited agree"), "{found:?}");
    assert!(found[1].contains("ACL-MAP-003 is not tagged undetermined but audited undetermined"), "{found:?}");
}
