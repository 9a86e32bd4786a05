//! Makes the plain `cargo build` leave the vendor's `libamdhip64.so`: soname
//! `libamdhip64.so.6`, every function in its ELF version node
//! (`libamdhip64.map`, `hip_4.2` … `hip_7.2`), and the links
//! `libamdhip64.so.{5,6,7} -> libamdhip64.so` beside it: a program linked
//! against a ROCm 5, 6 or 7 library asks for that name, and the emulator
//! answers as the release of the name it was loaded under (docs/hip.md,
//! "Version profiles").
//!
//! rustc gives every cdylib its own anonymous version script
//! (`-Wl,--version-script=<tmp>/list`). GNU ld refuses to combine it with
//! named nodes ("anonymous version tag cannot be combined with other version
//! tags"); rust-lld, rustc's default linker on x86-64 Linux, accepts both but
//! leaves the symbols unversioned (docs/hip.md). So the cdylib is linked by
//! GNU ld (`-fuse-ld=bfd`, which comes after rustc's `-fuse-ld=lld`), reached
//! through a wrapper that gcc finds first (`-B`) and that drops every version
//! script but ours. Should rustc's script ever get past it (say, inside a
//! response file), GNU ld fails the build with the error above: never a
//! silently unversioned library.

use std::error::Error;
use std::fs;
use std::io;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

const LIBRARY: &str = "libamdhip64.so";
const SONAME: &str = "libamdhip64.so.6";
const MAP: &str = "libamdhip64.map";
/// The names of the ROCm releases' libraries, each a link to the library.
const RELEASE_NAMES: [&str; 3] = ["libamdhip64.so.5", SONAME, "libamdhip64.so.7"];

fn main() -> Result<(), Box<dyn Error>> {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed={MAP}");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        println!("cargo:warning={LIBRARY}: symbol versions and soname are set on Linux only");
        return Ok(());
    }
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?);
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR is not set")?);
    let map = crate_dir.join(MAP);
    let ld_dir = out_dir.join("ld");
    write_wrappers(&ld_dir, &map).map_err(|e| format!("linker wrapper in {}: {e}", ld_dir.display()))?;

    for arg in [
        "-fuse-ld=bfd".to_string(),
        // A -B prefix is a directory only with its trailing slash.
        format!("-B{}/", ld_dir.display()),
        format!("-Wl,--version-script={}", map.display()),
        format!("-Wl,-soname,{SONAME}"),
        // Every symbol bound at load: rustc's default, kept explicit.
        "-Wl,-z,now".to_string(),
    ] {
        println!("cargo:rustc-cdylib-link-arg={arg}");
    }

    // Beside the library in both places Cargo puts it: `<profile>/deps/`,
    // where it is linked (and all `cargo test` leaves), and `<profile>/`,
    // where `cargo build` uplifts it. Dangling until the link has written the
    // library; a missing link only costs programs that ask for the soname,
    // so it warns, never fails.
    match profile_dir(&out_dir) {
        Some(profile) => {
            for dir in [profile.join("deps"), profile] {
                if let Err(e) = soname_link(&dir) {
                    println!("cargo:warning=could not link {SONAME} -> {LIBRARY} in {}: {e}", dir.display());
                }
            }
        }
        None => println!("cargo:warning=no <target>/<profile> above {}: {SONAME} not linked", out_dir.display()),
    }
    Ok(())
}

/// Writes the wrapper under the names gcc looks up: `ld.bfd` for
/// `-fuse-ld=bfd`, `ld` in case it falls back to the plain name.
fn write_wrappers(dir: &Path, map: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    let script = wrapper(dir, map);
    for name in ["ld", "ld.bfd"] {
        let path = dir.join(name);
        fs::write(&path, &script)?;
        fs::set_permissions(&path, fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

/// The wrapper: every `--version-script=` argument but ours dropped, its own
/// directory taken off `PATH`, then the real linker of the name it was called by.
fn wrapper(dir: &Path, map: &Path) -> String {
    format!(
        r#"#!/bin/sh
# Written by vmmkit-shim-amdhip64's build.rs: drops rustc's anonymous version
# script, which GNU ld cannot combine with the named nodes of ours, and runs
# the real linker of this name.
dir={dir}
map={map}
if [ -n "${{VMMKIT_LD_WRAPPED:-}}" ]; then
    echo "$0: found itself again on PATH; cannot find the real ${{0##*/}}" >&2
    exit 1
fi
VMMKIT_LD_WRAPPED=1
export VMMKIT_LD_WRAPPED
for a do
    shift
    case $a in
        "--version-script=$map") ;;
        --version-script=*|-version-script=*) continue ;;
    esac
    set -- "$@" "$a"
done
set -f
path=
old_ifs=$IFS
IFS=:
for d in $PATH; do
    [ "$d" = "$dir" ] || [ "$d" = "${{dir%/}}" ] || path=${{path:+$path:}}$d
done
IFS=$old_ifs
set +f
PATH=$path
export PATH
exec "${{0##*/}}" "$@"
"#,
        dir = quote(&dir.display().to_string()),
        map = quote(&map.display().to_string()),
    )
}

/// `s` as one single-quoted shell word.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `<target>/<profile>`: `OUT_DIR` is
/// `<target>/<profile>/build/<package>-<hash>/out`.
fn profile_dir(out_dir: &Path) -> Option<PathBuf> {
    let build = out_dir.parent()?.parent()?;
    if out_dir.file_name()? != "out" || build.file_name()? != "build" {
        return None;
    }
    build.parent().map(Path::to_path_buf)
}

/// `dir/libamdhip64.so.6 -> libamdhip64.so` (`dir` made if missing), replaced atomically (a program
/// starting from `dir` meanwhile sees the old link or the new one).
fn soname_link(dir: &Path) -> io::Result<()> {
    fs::create_dir_all(dir)?;
    for name in RELEASE_NAMES {
        let link = dir.join(name);
        if fs::read_link(&link).is_ok_and(|t| t == Path::new(LIBRARY)) {
            continue;
        }
        let tmp = dir.join(format!(".{name}.{}", std::process::id()));
        let _ = fs::remove_file(&tmp); // a leftover of a killed build
        symlink(LIBRARY, &tmp)?;
        fs::rename(&tmp, &link).inspect_err(|_| {
            let _ = fs::remove_file(&tmp);
        })?;
    }
    Ok(())
}
