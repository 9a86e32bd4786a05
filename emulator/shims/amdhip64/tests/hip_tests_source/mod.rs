//! Reading ROCm's hip-tests and taking its cases apart: the copy (a
//! checkout or a git directory), a case's text, its file's constants and
//! the file-level definitions it uses. Shared by the curated runner
//! (hip_tests.rs) and the whole-selection runner (hip_tests_selection.rs).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::{crate_dir, library_dir, repo_root};

/// Where hip-tests is: a checkout, or a git directory to read `HEAD` from.
pub enum Copy {
    Checkout(PathBuf),
    Git(PathBuf),
}

impl Copy {
    pub fn find() -> Result<Self, String> {
        let dir = std::env::var_os("VMMKIT_HIP_TESTS")
            .map(PathBuf::from)
            .unwrap_or_else(|| repo_root().join("target/hip-tests"));
        if dir.join("catch").is_dir() {
            Ok(Self::Checkout(dir))
        } else if dir.join("HEAD").is_file() && dir.join("objects").is_dir() {
            Ok(Self::Git(dir))
        } else {
            Err(format!(
                "no hip-tests copy at {} (set VMMKIT_HIP_TESTS to a checkout or a git directory of \
                 ROCm/hip-tests, or clone it into target/hip-tests)",
                dir.display()
            ))
        }
    }

    pub fn read(&self, path: &str) -> Result<String, String> {
        match self {
            Self::Checkout(d) => std::fs::read_to_string(d.join(path)).map_err(|e| format!("{path}: {e}")),
            Self::Git(d) => {
                let out = Command::new("git")
                    .arg("--git-dir")
                    .arg(d)
                    .args(["show", &format!("HEAD:{path}")])
                    .output()
                    .map_err(|e| format!("git: {e}"))?;
                if !out.status.success() {
                    return Err(format!("git show HEAD:{path}: {}", String::from_utf8_lossy(&out.stderr)));
                }
                Ok(String::from_utf8_lossy(&out.stdout).into_owned())
            }
        }
    }

    /// The paths of the files under `dir` (a path of the tree, no trailing
    /// slash), sorted.
    pub fn list(&self, dir: &str) -> Result<Vec<String>, String> {
        let mut files = match self {
            Self::Checkout(d) => {
                let mut out = Vec::new();
                let mut todo = vec![dir.to_string()];
                while let Some(at) = todo.pop() {
                    for entry in std::fs::read_dir(d.join(&at)).map_err(|e| format!("{at}: {e}"))? {
                        let entry = entry.map_err(|e| format!("{at}: {e}"))?;
                        let path = format!("{at}/{}", entry.file_name().to_string_lossy());
                        if entry.file_type().map_err(|e| format!("{path}: {e}"))?.is_dir() {
                            todo.push(path);
                        } else {
                            out.push(path);
                        }
                    }
                }
                out
            }
            Self::Git(d) => {
                let out = Command::new("git")
                    .arg("--git-dir")
                    .arg(d)
                    .args(["ls-tree", "-r", "--name-only", "HEAD", &format!("{dir}/")])
                    .output()
                    .map_err(|e| format!("git: {e}"))?;
                if !out.status.success() {
                    return Err(format!("git ls-tree HEAD {dir}: {}", String::from_utf8_lossy(&out.stderr)));
                }
                String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
            }
        };
        files.sort();
        Ok(files)
    }

    pub fn revision(&self) -> String {
        let mut cmd = Command::new("git");
        match self {
            Self::Checkout(d) => cmd.arg("-C").arg(d),
            Self::Git(d) => cmd.arg("--git-dir").arg(d),
        };
        cmd.args(["rev-parse", "--short", "HEAD"])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "unknown".into())
    }
}

/// The text of `TEST_CASE("name" …) { … }` (or `TEMPLATE_TEST_CASE`) in
/// `src`, braces matched.
pub fn extract(src: &str, name: &str) -> Option<String> {
    let start = src.find(&format!("TEST_CASE(\"{name}\""))?;
    let start = if src[..start].ends_with("TEMPLATE_") { start - "TEMPLATE_".len() } else { start };
    let end = block_end(src, start)?;
    Some(src[start..end].to_string())
}

/// One past the `}` that closes the first `{` at or after `from`, braces matched.
pub fn block_end(src: &str, from: usize) -> Option<usize> {
    let open = from + src[from..].find('{')?;
    let mut depth = 0usize;
    for (i, c) in src[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `#define` and `constexpr` lines of `src` before its first case (the
/// constants its cases use; kernels and includes are left out).
pub fn preamble(src: &str) -> String {
    let head = src.find("TEST_CASE(").map_or(src, |i| &src[..i]);
    head.lines()
        .filter(|l| l.starts_with("#define ") || l.starts_with("constexpr "))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The file-level definition of `name` in `src`: a line at column 0 (a
/// letter or `_`, as `__device__ int x;`) that declares it (`… name(`,
/// `… name;`, `… name =`, `… name {`, `… name{…}` or `… name[…]`, or a
/// pointer's `…*name;`, `…*name =`, `…*name[…]`), with its
/// body, braces matched, for a function or a struct, the `;` that may
/// follow it and the `template <…>` line that may precede it.
pub fn extract_decl(src: &str, name: &str) -> Option<String> {
    let mut at = 0;
    let start = loop {
        let line_end = src[at..].find('\n').map_or(src.len(), |i| at + i);
        let line = &src[at..line_end];
        let starts = line.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') && !line.starts_with("TEST_CASE");
        // A pointer's declaration (`static void *p;`) has no parenthesis before its name.
        let pointer = |f: &str| line.find(f).is_some_and(|i| !line[..i].contains('('));
        if starts
            && ([" {name}(", " {name};", " {name} =", " {name} {", " {name}{", " {name}["]
                .iter()
                .any(|f| line.contains(&f.replace("{name}", name)))
                || ["*{name};", "*{name} =", "*{name}["].iter().any(|f| pointer(&f.replace("{name}", name))))
        {
            break at;
        }
        if line_end >= src.len() {
            return typedef_block(src, name);
        }
        at = line_end + 1;
    };
    let line_end = src[start..].find('\n').map_or(src.len(), |i| start + i);
    // A template's `template <…>` line (a line of its own) comes with it.
    let before = src[..start.saturating_sub(1)].rfind('\n').map_or(0, |i| i + 1);
    let header = &src[before..start];
    let templated = start > 0 && header.starts_with("template") && header.trim_end().ends_with('>');
    let start = if templated { before } else { start };
    if src[start..line_end].trim_end().ends_with(';') {
        return Some(src[start..line_end].to_string());
    }
    // A declaration over several lines with no body (`using f_t = int (*)(a,\n b);`) ends at its `;`.
    let semicolon = src[start..].find(';').map(|i| start + i);
    let brace = src[start..].find('{').map(|i| start + i);
    if let Some(end) = semicolon.filter(|s| brace.is_none_or(|b| *s < b)) {
        return Some(src[start..=end].to_string());
    }
    let end = block_end(src, start)?;
    let end = if src[end..].starts_with(';') { end + 1 } else { end };
    Some(src[start..end].to_string())
}

/// A `typedef struct … {` at column 0 whose body ends `} name;` at column 0:
/// the whole declaration.
fn typedef_block(src: &str, name: &str) -> Option<String> {
    let end = src.find(&format!("\n}} {name};"))? + 1;
    let start = src[..end].rfind("\ntypedef ").map(|i| i + 1).or_else(|| src.starts_with("typedef ").then_some(0))?;
    Some(src[start..end + format!("}} {name};").len()].to_string())
}

/// The C++ compiler, set to build `src` into `exe` as a hip-tests program:
/// the Catch2-compatible shim header, the HIP headers in `hip_include`, and
/// our library.
pub fn compiler(src: &Path, exe: &Path, hip_include: &Path) -> Command {
    let mut cmd = Command::new(std::env::var("CXX").unwrap_or_else(|_| "g++".into()));
    cmd.args(["-std=c++17", "-D__HIP_PLATFORM_AMD__", "-I"])
        .arg(crate_dir().join("tests/cpp/hip_tests"))
        .arg("-I")
        .arg(hip_include)
        .arg("-o")
        .arg(exe)
        .arg(src)
        .arg("-L")
        .arg(library_dir())
        .arg("-lamdhip64");
    cmd
}

/// `#undef` lines for the macros of a file's [`preamble`]: a macro ignores
/// namespaces, and another file may declare the same name (`DATA_SIZE`).
pub fn undefines(preamble: &str) -> String {
    preamble
        .lines()
        .filter_map(|l| l.strip_prefix("#define "))
        .filter_map(|l| l.split(|c: char| c.is_whitespace() || c == '(').next())
        .map(|name| format!("#undef {name}\n"))
        .collect()
}
