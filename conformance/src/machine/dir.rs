//! The private machine of one `vmmkit run`: a directory with the emulator
//! root, the drop-in libraries under every name programs link against, and
//! the journal the program's processes write.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context;
use vmmkit_emulator::journal;

/// The names programs load the drop-ins by, and the drop-in behind each:
/// CANN programs link `-lascendcl` or `-lacl_rt`; HIP programs record the
/// soname of the release they were built with (`libamdhip64.so.5`, `.6`,
/// `.7`) or load `libamdhip64.so` with `dlopen` (vLLM, ctypes wrappers).
pub const LINKS: &[(&str, &str)] = &[
    ("libascendcl.so", "libascendcl.so"),
    ("libacl_rt.so", "libascendcl.so"),
    ("libamdhip64.so", "libamdhip64.so"),
    ("libamdhip64.so.5", "libamdhip64.so"),
    ("libamdhip64.so.6", "libamdhip64.so"),
    ("libamdhip64.so.7", "libamdhip64.so"),
];

/// The drop-in libraries there are to link.
const DROP_INS: &[&str] = &["libascendcl.so", "libamdhip64.so"];

/// A private machine: removed when dropped, unless kept.
#[derive(Debug)]
pub struct Machine {
    dir: Option<tempfile::TempDir>,
    path: PathBuf,
    /// Drop-ins that were not found (a program that needs one cannot start).
    pub missing: Vec<&'static str>,
    /// Stand-ins linked (`--stand-ins`), by soname.
    pub stand_ins: Vec<&'static str>,
}

impl Machine {
    /// Makes the directory in `base` (default: `/dev/shm` where there is
    /// one, as for the default root, else the temporary directory) and links
    /// the drop-ins found in `drop_ins`.
    /// With `stand_ins`, also links the companion libraries' stand-ins
    /// found in a `stand-ins/` directory of `drop_ins`.
    pub fn new(base: Option<&Path>, drop_ins: &[PathBuf], stand_ins: bool) -> anyhow::Result<Self> {
        let shm = Path::new("/dev/shm");
        let base = match base {
            Some(b) => b.to_path_buf(),
            None if shm.is_dir() => shm.to_path_buf(),
            None => std::env::temp_dir(),
        };
        let dir = tempfile::Builder::new()
            .prefix("vmmkit-run-")
            .tempdir_in(&base)
            .with_context(|| format!("making a private machine in {}", base.display()))?;
        let path = dir.path().to_path_buf();
        let m = Self { dir: Some(dir), path, missing: Vec::new(), stand_ins: Vec::new() };
        for sub in [m.root(), m.lib(), m.journal()] {
            std::fs::create_dir(&sub).with_context(|| format!("making {}", sub.display()))?;
        }
        let m = m.link(drop_ins)?;
        if stand_ins { m.link_stand_ins(drop_ins) } else { Ok(m) }
    }

    /// Links each stand-in found in the first `<dir>/stand-ins/` of `dirs` that has it.
    fn link_stand_ins(mut self, dirs: &[PathBuf]) -> anyhow::Result<Self> {
        for s in vmmkit_standins::LIBRARIES {
            let found = dirs.iter().map(|d| d.join(vmmkit_standins::DIR).join(s.soname)).find(|p| p.is_file());
            let Some(to) = found else { continue };
            let link = self.lib().join(s.soname);
            std::os::unix::fs::symlink(&to, &link).with_context(|| format!("linking {}", link.display()))?;
            self.stand_ins.push(s.soname);
        }
        Ok(self)
    }

    /// Links each drop-in, found in the first of `dirs` that has it, under all its names.
    fn link(mut self, dirs: &[PathBuf]) -> anyhow::Result<Self> {
        // Each drop-in looked for and resolved once, not once per name.
        let found: Vec<(&str, Option<PathBuf>)> = DROP_INS
            .iter()
            .map(|&d| {
                let path = dirs.iter().map(|dir| dir.join(d)).find(|p| p.is_file());
                (d, path.map(|p| p.canonicalize().unwrap_or(p)))
            })
            .collect();
        self.missing = found.iter().filter(|(_, p)| p.is_none()).map(|&(d, _)| d).collect();
        let lib = self.lib();
        for (name, target) in LINKS {
            let Some(to) = found.iter().find(|(d, _)| d == target).and_then(|(_, p)| p.as_ref()) else { continue };
            let link = lib.join(name);
            std::os::unix::fs::symlink(to, &link).with_context(|| format!("linking {}", link.display()))?;
        }
        Ok(self)
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The emulator root.
    pub fn root(&self) -> PathBuf {
        self.path.join("root")
    }

    /// The drop-ins, under every name.
    pub fn lib(&self) -> PathBuf {
        self.path.join("lib")
    }

    /// The journal directory.
    pub fn journal(&self) -> PathBuf {
        self.path.join("journal")
    }

    /// Points `cmd` at this machine: the library path, the root, the journal.
    pub fn apply(&self, cmd: &mut Command, calls: bool) {
        let mut path = OsString::from(self.lib());
        if let Some(old) = std::env::var_os("LD_LIBRARY_PATH").filter(|p| !p.is_empty()) {
            path.push(":");
            path.push(old);
        }
        cmd.env("LD_LIBRARY_PATH", path).env("VMMKIT_ROOT", self.root()).env(journal::DIR_ENV, self.journal());
        if calls {
            cmd.env(journal::CALLS_ENV, "1");
        } else {
            cmd.env_remove(journal::CALLS_ENV);
        }
    }

    /// Keeps the directory after the run; returns its path.
    pub fn keep(&mut self) -> PathBuf {
        if let Some(d) = self.dir.take() {
            let _ = d.keep();
        }
        self.path.clone()
    }
}

/// Where the drop-ins are looked for: beside the running `vmmkit` (where
/// `cargo build` leaves them, in `target/<profile>/`), then in its `deps/`
/// (where a `cargo test` that built them as dependencies leaves them). The
/// stand-ins are in `stand-ins/` of the first.
pub fn default_drop_ins() -> Vec<PathBuf> {
    let dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    vec![dir.clone(), dir.join("deps")]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each drop-in found is linked under all its names, one that is missing
    /// under none, and the machine's directory goes with it.
    #[test]
    fn links_the_drop_ins_found_and_cleans_up() {
        let libs = tempfile::tempdir().unwrap();
        std::fs::write(libs.path().join("libascendcl.so"), b"").unwrap();
        let m = Machine::new(Some(libs.path()), &[libs.path().join("none"), libs.path().to_path_buf()], false).unwrap();
        assert!(m.path().starts_with(libs.path()));
        assert_eq!(m.missing, ["libamdhip64.so"]);
        let names: Vec<String> = std::fs::read_dir(m.lib())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let mut names = names;
        names.sort();
        assert_eq!(names, ["libacl_rt.so", "libascendcl.so"]);
        let target = std::fs::read_link(m.lib().join("libacl_rt.so")).unwrap();
        assert_eq!(target, libs.path().join("libascendcl.so").canonicalize().unwrap());
        let path = m.path().to_path_buf();
        assert!(m.root().is_dir() && m.journal().is_dir());
        drop(m);
        assert!(!path.exists(), "removed with the machine");
    }

    /// Stand-ins are linked only when asked for, from `stand-ins/`.
    #[test]
    fn links_stand_ins_only_when_asked() {
        let libs = tempfile::tempdir().unwrap();
        let dir = libs.path().join(vmmkit_standins::DIR);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("librocfft.so.0"), b"").unwrap();
        let plain = Machine::new(Some(libs.path()), &[libs.path().to_path_buf()], false).unwrap();
        assert!(plain.stand_ins.is_empty() && !plain.lib().join("librocfft.so.0").exists());
        let with = Machine::new(Some(libs.path()), &[libs.path().to_path_buf()], true).unwrap();
        assert_eq!(with.stand_ins, ["librocfft.so.0"]);
        assert_eq!(std::fs::read_link(with.lib().join("librocfft.so.0")).unwrap(), dir.join("librocfft.so.0"));
    }
}
