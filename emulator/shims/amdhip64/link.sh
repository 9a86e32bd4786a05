#!/bin/sh
# Links vmmkit's drop-in libamdhip64.so from the staticlib this crate builds.
#
#   link.sh STATICLIB OUTDIR
#
# STATICLIB is libvmmkit_amdhip64.a from `cargo build -p vmmkit-shim-amdhip64`
# (any profile). OUTDIR receives libamdhip64.so (soname libamdhip64.so.6) and
# the link libamdhip64.so.6 -> libamdhip64.so, the name programs linked
# against a 6.x library ask for.
#
# A cdylib cannot carry named version nodes (rustc adds its own export script;
# the functions come out unversioned, and dlvsym fails), so the library is
# linked here with the version script (reference hip.md §1.3). The native
# libraries are those `rustc --print native-static-libs` lists for a staticlib
# on Linux with glibc.
set -eu
[ $# -eq 2 ] || { echo "usage: $0 STATICLIB OUTDIR" >&2; exit 2; }
a=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
soname=libamdhip64.so.6
[ -f "$a" ] || { echo "$0: no staticlib at $a (run cargo build -p vmmkit-shim-amdhip64 first)" >&2; exit 1; }
mkdir -p "$out"
tmp="$out/.libamdhip64.so.$$"
${CC:-cc} -shared -o "$tmp" \
    -Wl,--whole-archive "$a" -Wl,--no-whole-archive \
    -Wl,--version-script="$here/libamdhip64.map" \
    -Wl,-soname,$soname \
    -Wl,--gc-sections -Wl,-z,now \
    -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc
# Replace atomically, so a program running from OUTDIR never sees half a file.
mv -f "$tmp" "$out/libamdhip64.so"
ln -sfn libamdhip64.so "$tmp"
mv -Tf "$tmp" "$out/$soname"
