//! `docs/api-coverage.md`: what a drop-in does with each function that the
//! vendor's runtime headers declare.
//!
//! The names come from the kept list `docs/api/<vendor>.tsv` (name, family,
//! header), written by `scripts/api-names.py` from the vendor's headers,
//! which stay outside the repository. A drop-in's coverage test gives
//! [`Coverage::new`] that list, the names its library exports (`nm -D`), and
//! the two lists of exports that are not emulated (its `DEVICE_CODE` and
//! `NOT_YET`, from `vmmkit_emulator::export_unsupported!`). Each function is
//! then one [`Status`]; [`Coverage::section`] renders the vendor's section of
//! the document, which the test compares with the file (and writes, under
//! `VMMKIT_BLESS=1`, which `scripts/api-coverage` sets).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// What the drop-in does with one declared function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Exported and emulated.
    Emulated,
    /// Exported; needs device code, so it returns the vendor's not-supported
    /// code with a message naming it.
    DeviceCode,
    /// Exported; host memory could emulate it but vmmkit does not yet, so it
    /// returns the not-supported code with a message naming it.
    NotYet,
    /// Not exported: a program that calls it does not link.
    Missing,
}

impl Status {
    fn label(self) -> &'static str {
        match self {
            Self::Emulated => "emulated",
            Self::DeviceCode => "device code (not supported by design)",
            Self::NotYet => "not emulated yet",
            Self::Missing => "**missing**",
        }
    }
}

/// One declared function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    /// Its C name.
    pub name: String,
    /// Its family: the header's group (HIP) or the one its name gives (ACL).
    pub family: String,
    /// The header that declares it.
    pub header: String,
    /// What the drop-in does with it.
    pub status: Status,
}

/// A vendor's declared functions and what the drop-in does with each.
#[derive(Debug)]
pub struct Coverage {
    /// `ACL`, `HIP`.
    pub vendor: &'static str,
    /// In name order.
    pub functions: Vec<Function>,
    /// Names in `DEVICE_CODE` or `NOT_YET` that the list does not declare
    /// (e.g. `__hipRegisterFatBinary`, from `hip_runtime.h`).
    pub undeclared_unsupported: Vec<String>,
}

/// The kept list could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The file.
    #[error("{path}: {source}")]
    Read {
        /// Its path.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line without three tab-separated fields.
    #[error("{path}:{line}: expected `name<TAB>family<TAB>header`")]
    Line {
        /// The file.
        path: String,
        /// 1-based.
        line: usize,
    },
}

/// `(name, family, header)` rows of a kept list; `#` lines are comments.
pub fn read_list(path: &Path) -> Result<Vec<(String, String, String)>, ListError> {
    let shown = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|source| ListError::Read { path: shown.clone(), source })?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        match f.as_slice() {
            [name, family, header] => rows.push((name.to_string(), family.to_string(), header.to_string())),
            _ => return Err(ListError::Line { path: shown, line: i + 1 }),
        }
    }
    Ok(rows)
}

impl Coverage {
    /// The status of each listed function, from what the library exports and
    /// its two lists of unsupported exports.
    pub fn new(
        vendor: &'static str,
        list: Vec<(String, String, String)>,
        exported: &BTreeSet<String>,
        device_code: &[&str],
        not_yet: &[&str],
    ) -> Self {
        let device_code: BTreeSet<&str> = device_code.iter().copied().collect();
        let not_yet: BTreeSet<&str> = not_yet.iter().copied().collect();
        let declared: BTreeSet<&str> = list.iter().map(|(n, _, _)| n.as_str()).collect();
        let undeclared_unsupported =
            device_code.iter().chain(&not_yet).filter(|n| !declared.contains(**n)).map(|n| n.to_string()).collect();
        let mut functions: Vec<Function> = list
            .into_iter()
            .map(|(name, family, header)| {
                let status = if !exported.contains(&name) {
                    Status::Missing
                } else if device_code.contains(name.as_str()) {
                    Status::DeviceCode
                } else if not_yet.contains(name.as_str()) {
                    Status::NotYet
                } else {
                    Status::Emulated
                };
                Function { name, family, header, status }
            })
            .collect();
        functions.sort_by(|a, b| a.name.cmp(&b.name));
        Self { vendor, functions, undeclared_unsupported }
    }

    /// The functions with this status.
    pub fn with(&self, status: Status) -> Vec<&Function> {
        self.functions.iter().filter(|f| f.status == status).collect()
    }

    /// Per family: counts by status, in [`Status`] order.
    pub fn by_family(&self) -> BTreeMap<&str, [usize; 4]> {
        let mut m: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
        for f in &self.functions {
            m.entry(f.family.as_str()).or_default()[f.status as usize] += 1;
        }
        m
    }

    /// The vendor's section of `docs/api-coverage.md`, between its markers.
    pub fn section(&self, library: &str, headers: &str) -> String {
        let mut s = String::new();
        let total = |st: Status| self.with(st).len();
        let _ = writeln!(s, "{}", begin_marker(self.vendor));
        let _ = writeln!(s, "## {} — `{library}`\n", self.vendor);
        let _ = writeln!(
            s,
            "{} functions declared by {headers}: **{} emulated**, {} device code (not supported by design), {} not emulated yet, {} missing.\n",
            self.functions.len(),
            total(Status::Emulated),
            total(Status::DeviceCode),
            total(Status::NotYet),
            total(Status::Missing),
        );
        let _ = writeln!(s, "| family | functions | emulated | device code | not yet | missing |");
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|");
        for (family, n) in self.by_family() {
            let _ =
                writeln!(s, "| {family} | {} | {} | {} | {} | {} |", n.iter().sum::<usize>(), n[0], n[1], n[2], n[3]);
        }
        let _ = writeln!(s, "\n<details><summary>Per function</summary>\n");
        let _ = writeln!(s, "| function | family | header | status |");
        let _ = writeln!(s, "|---|---|---|---|");
        for f in &self.functions {
            let _ = writeln!(s, "| `{}` | {} | {} | {} |", f.name, f.family, f.header, f.status.label());
        }
        let _ = writeln!(s, "\n</details>\n");
        if !self.undeclared_unsupported.is_empty() {
            let _ = writeln!(
                s,
                "Also exported as not supported, though the listed headers do not declare them: {}.\n",
                self.undeclared_unsupported.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            );
        }
        let _ = writeln!(s, "{}", end_marker(self.vendor));
        s
    }
}

fn begin_marker(vendor: &str) -> String {
    format!("<!-- {vendor} coverage: begin (generated by scripts/api-coverage; do not edit) -->")
}

fn end_marker(vendor: &str) -> String {
    format!("<!-- {vendor} coverage: end -->")
}

/// The functions a shared library exports (`nm -D --defined-only`), without
/// their version nodes.
pub fn exported(library: &Path) -> BTreeSet<String> {
    let out = crate::tools::binutils("nm", &["-D".as_ref(), "--defined-only".as_ref(), library.as_os_str()]);
    out.lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [_, "T" | "W" | "i", name] => Some(name.split('@').next().unwrap_or(name).to_string()),
                _ => None,
            }
        })
        .collect()
}

/// Why the document does not hold the section that was just made.
#[derive(Debug, thiserror::Error)]
pub enum DocError {
    /// The file.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// It lacks this vendor's markers.
    #[error("{path} has no {vendor} section (markers `{begin}` … `{end}`)")]
    NoSection {
        /// The file.
        path: String,
        /// The vendor.
        vendor: String,
        /// Its markers.
        begin: String,
        /// The end marker.
        end: String,
    },
    /// It holds another text: the document is stale.
    #[error("{path}: the {vendor} section is stale; run scripts/api-coverage (VMMKIT_BLESS=1) and commit the result")]
    Stale {
        /// The file.
        path: String,
        /// The vendor.
        vendor: String,
    },
}

/// Compares `section` with the vendor's section of the document at `path`,
/// or, when `bless`, writes it there.
pub fn check_or_bless(path: &Path, vendor: &str, section: &str, bless: bool) -> Result<(), DocError> {
    let shown = path.display().to_string();
    let doc = std::fs::read_to_string(path).map_err(|e| DocError::Io(shown.clone(), e))?;
    let (begin, end) = (begin_marker(vendor), end_marker(vendor));
    let (Some(a), Some(b)) = (doc.find(&begin), doc.find(&end)) else {
        return Err(DocError::NoSection { path: shown, vendor: vendor.into(), begin, end });
    };
    let b = b + end.len() + usize::from(doc[b + end.len()..].starts_with('\n'));
    if doc[a..b] == *section {
        return Ok(());
    }
    if !bless {
        return Err(DocError::Stale { path: shown, vendor: vendor.into() });
    }
    let new = format!("{}{section}{}", &doc[..a], &doc[b..]);
    std::fs::write(path, new).map_err(|e| DocError::Io(shown, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list() -> Vec<(String, String, String)> {
        [("aMalloc", "memory"), ("aLaunch", "device code"), ("aGraph", "graph"), ("aGone", "memory")]
            .iter()
            .map(|(n, f)| (n.to_string(), f.to_string(), "x.h".to_string()))
            .collect()
    }

    #[test]
    fn status_of_each_function() {
        let exported: BTreeSet<String> = ["aMalloc", "aLaunch", "aGraph", "aExtra"].map(String::from).into();
        let c = Coverage::new("T", list(), &exported, &["aLaunch", "aExtra"], &["aGraph"]);
        let status: Vec<(&str, Status)> = c.functions.iter().map(|f| (f.name.as_str(), f.status)).collect();
        assert_eq!(
            status,
            [
                ("aGone", Status::Missing),
                ("aGraph", Status::NotYet),
                ("aLaunch", Status::DeviceCode),
                ("aMalloc", Status::Emulated)
            ]
        );
        assert_eq!(c.undeclared_unsupported, ["aExtra"]);
        assert_eq!(c.by_family()["memory"], [1, 0, 0, 1]);
    }

    #[test]
    fn a_stale_section_is_found_and_blessed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cov.md");
        let exported: BTreeSet<String> = ["aMalloc"].map(String::from).into();
        let section = Coverage::new("T", list(), &exported, &[], &[]).section("libt.so", "t.h");
        std::fs::write(&path, format!("# head\n{}{}\ntail\n", begin_marker("T"), end_marker("T"))).unwrap();
        assert!(matches!(check_or_bless(&path, "T", &section, false), Err(DocError::Stale { .. })));
        check_or_bless(&path, "T", &section, true).unwrap();
        check_or_bless(&path, "T", &section, false).unwrap();
        let doc = std::fs::read_to_string(&path).unwrap();
        assert!(doc.starts_with("# head\n") && doc.ends_with("tail\n") && doc.contains("**missing**"), "{doc}");
        assert!(matches!(check_or_bless(&path, "U", &section, true), Err(DocError::NoSection { .. })));
    }
}
