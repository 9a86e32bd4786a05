#!/bin/sh
# Fetches Debian's HIP (ROCm) runtime and headers into a cache under
# target/, without installing anything: `apt-get download` of the .deb files
# and `dpkg-deb -x` into a directory of our own (reference hip.md §1.4).
#
#   scripts/fetch-hip.sh runtime   # the real libamdhip64 and what it needs
#   scripts/fetch-hip.sh headers   # hip/hip_runtime_api.h and friends
#   scripts/fetch-hip.sh libraries # the real libamdhip64 6.x and 7.x, for their export lists
#
# On success it prints KEY=VALUE lines (also kept in <cache>/<part>/env):
#   runtime: HIP_RUNTIME_LIB (the real libamdhip64.so.N), HIP_RUNTIME_LD_PATH
#            (directories for LD_LIBRARY_PATH), HIP_RUNTIME_VERSION
#   libraries: HIP_LIB_6, HIP_LIB_7 (the real libamdhip64.so.6 and .so.7, not
#            to be run here: their export lists only) and HIP_LIB_N_PACKAGE
#            (the Debian package and version each comes from)
#   headers: HIP_INCLUDE (for -I), HIP_HEADERS_VERSION, and the real library
#            of the same release for linking only (HIP_LINK_LIB, its soname
#            HIP_LINK_SONAME): a program linked against it records the real
#            soname and symbol versions, and must run on vmmkit's drop-in
# On failure it prints the reason on stderr and exits 2 (the registry cannot
# be reached, or the package does not exist there), so callers can skip with
# that reason; other failures exit 1.
#
# The runtime is the one of this system's Debian release (bookworm: 5.2.3,
# which runs on its glibc; the 5.7/7.x binaries need glibc >= 2.38), with
# every dependency that is not installed. The headers come from the newest
# release that Debian has (experimental: 7.2.4, which matches ROCm 6.x/7.x
# in every layout and value the tests use), then testing, then this
# release; they are read through a private source list that reuses this
# system's Debian mirror, with private package lists under the cache.
#
# The cache is HIP_CACHE_DIR, default target/hip-runtime in the repository.
# Concurrent runs wait for each other (flock).
set -eu
part=${1:-}
case "$part" in runtime|headers|libraries) ;; *) echo "usage: $0 runtime|headers|libraries" >&2; exit 1 ;; esac

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
cache=${HIP_CACHE_DIR:-$root/target/hip-runtime}
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9

done_file="$cache/$part/env"
if [ -f "$done_file" ]; then
    cat "$done_file"
    exit 0
fi

unreachable() { echo "fetch-hip: $*" >&2; exit 2; }

command -v apt-get >/dev/null 2>&1 || unreachable "apt-get is not available (not a Debian system)"
command -v dpkg-deb >/dev/null 2>&1 || unreachable "dpkg-deb is not available"

# apt options for downloads by root into a directory that _apt cannot read.
sandbox="-o APT::Sandbox::User=root"

# Extracts every .deb of $1 into $2.
extract() {
    mkdir -p "$2"
    for deb in "$1"/*.deb; do
        dpkg-deb -x "$deb" "$2"
    done
}

if [ "$part" = runtime ]; then
    pkg=libamdhip64-5
    # The package lists of the system (apt-get update once if they lack it).
    if ! apt-cache show "$pkg" >/dev/null 2>&1; then
        if [ "$(id -u)" = 0 ]; then
            apt-get update -qq >/dev/null 2>&1 || unreachable "apt-get update failed: the package registry cannot be reached"
        fi
        apt-cache show "$pkg" >/dev/null 2>&1 || unreachable "no package $pkg in this system's package lists"
    fi
    work="$cache/runtime.tmp"
    rm -rf "$work"
    mkdir -p "$work/debs"
    # The package and every dependency that is not installed.
    need=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
            --no-replaces --no-enhances "$pkg" 2>/dev/null | grep -v '^ ' | grep -v '^<' | sort -u |
        while read -r p; do
            if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed'; then
                echo "$p"
            fi
        done)
    # shellcheck disable=SC2086
    (cd "$work/debs" && apt-get download $sandbox -qq $need) >"$work/download.log" 2>&1 ||
        unreachable "apt-get download $need failed: $(tail -n 3 "$work/download.log" | tr '\n' ' ')"
    extract "$work/debs" "$work/root"
    lib=$(ls "$work"/root/usr/lib/*/libamdhip64.so.5* 2>/dev/null | head -n 1)
    [ -n "$lib" ] || { echo "fetch-hip: $pkg has no libamdhip64.so.5" >&2; exit 1; }
    version=$(dpkg-deb -f "$work"/debs/libamdhip64-5_*.deb Version)
    rm -rf "$cache/runtime"
    mv "$work" "$cache/runtime"
    libdir=$(dirname "$lib" | sed "s|$work|$cache/runtime|")
    soname=$(basename "$lib")
    {
        echo "HIP_RUNTIME_LIB=$libdir/libamdhip64.so.5"
        echo "HIP_RUNTIME_LD_PATH=$libdir"
        echo "HIP_RUNTIME_VERSION=$version ($soname)"
    } >"$cache/runtime/env.tmp"
    rm -rf "$cache/runtime/debs"
    mv "$cache/runtime/env.tmp" "$done_file"
    cat "$done_file"
    exit 0
fi

# headers: a private apt configuration over this system's Debian mirror.
codename=$( . /etc/os-release && echo "${VERSION_CODENAME:-}")
mirror=""
for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # deb822: the URIs of the stanza whose Suites name this release.
    mirror=$(awk -v c="$codename" '
        /^URIs:/ { u = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == c) s = 1 }
        /^$/ { if (s && u != "") { print u; exit } s = 0; u = "" }
        END { if (s && u != "") print u }' "$f" | head -n 1)
    [ -n "$mirror" ] && break
done
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
    mirror=$(awk -v c="$codename" '$1 == "deb" && $3 == c { print $2; exit }' /etc/apt/sources.list)
fi
[ -n "$mirror" ] || unreachable "no Debian mirror for '$codename' in this system's apt sources"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# libraries: libamdhip64-6 (the newest suite that has it) and libamdhip64-7
# (experimental first), each extracted alone: only its export list is read.
if [ "$part" = libraries ]; then
    work="$cache/libraries.tmp"
    rm -rf "$work"
    mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts"
    out=""
    for major in 6 7; do
        got=""
        reasons=""
        for suite in experimental unstable testing "$codename"; do
            echo "deb [signed-by=$keyring] $mirror $suite main" >"$work/sources.list"
            opts="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=$work/parts
                  -o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache -o APT::Get::List-Cleanup=0 $sandbox"
            # shellcheck disable=SC2086
            apt-get $opts update -qq >"$work/update.log" 2>&1 || { reasons="$reasons $suite: apt-get update failed;"; continue; }
            rm -rf "$work/debs"
            mkdir -p "$work/debs"
            # shellcheck disable=SC2086
            if (cd "$work/debs" && apt-get $opts download -qq "libamdhip64-$major") >"$work/download.log" 2>&1; then
                got=$(ls "$work"/debs/*.deb)
                break
            fi
            reasons="$reasons $suite: $(tail -n 1 "$work/download.log");"
        done
        [ -n "$got" ] || unreachable "no libamdhip64-$major could be downloaded:$reasons"
        rm -rf "$cache/libraries/$major"
        mkdir -p "$cache/libraries/$major"
        dpkg-deb -x "$got" "$cache/libraries/$major/root"
        lib=$(ls "$cache/libraries/$major"/root/usr/lib/*/libamdhip64.so.$major 2>/dev/null | head -n 1)
        [ -n "$lib" ] || { echo "fetch-hip: libamdhip64-$major has no libamdhip64.so.$major" >&2; exit 1; }
        out="${out}HIP_LIB_$major=$lib
HIP_LIB_${major}_PACKAGE=$(dpkg-deb -f "$got" Package) $(dpkg-deb -f "$got" Version)
"
    done
    rm -rf "$work"
    printf '%s' "$out" >"$done_file"
    cat "$done_file"
    exit 0
fi
work="$cache/headers.tmp"
rm -rf "$work"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/parts"
reasons=""
for suite in experimental testing "$codename"; do
    echo "deb [signed-by=$keyring] $mirror $suite main" >"$work/sources.list"
    opts="-o Dir::Etc::SourceList=$work/sources.list -o Dir::Etc::SourceParts=$work/parts
          -o Dir::State::Lists=$work/lists -o Dir::Cache=$work/cache -o APT::Get::List-Cleanup=0 $sandbox"
    # shellcheck disable=SC2086
    if ! apt-get $opts update -qq >"$work/update.log" 2>&1; then
        reasons="$reasons $suite: apt-get update failed ($(tail -n 2 "$work/update.log" | tr '\n' ' '));"
        continue
    fi
    rm -f "$work"/debs/*.deb
    # shellcheck disable=SC2086
    if (cd "$work/debs" && apt-get $opts download -qq libamdhip64-dev) >"$work/download.log" 2>&1; then
        # The runtime package the headers belong to (libamdhip64-N), for linking.
        bin=$(dpkg-deb -f "$work"/debs/libamdhip64-dev_*.deb Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' |
            grep -E '^libamdhip64-[0-9]+$' | head -n 1)
        # shellcheck disable=SC2086
        if [ -n "$bin" ] && (cd "$work/debs" && apt-get $opts download -qq "$bin") >>"$work/download.log" 2>&1; then
            break
        fi
    fi
    reasons="$reasons $suite: $(tail -n 1 "$work/download.log");"
done
ls "$work"/debs/libamdhip64-dev_*.deb >/dev/null 2>&1 || unreachable "no libamdhip64-dev could be downloaded:$reasons"
extract "$work/debs" "$work/root"
[ -f "$work/root/usr/include/hip/hip_runtime_api.h" ] || { echo "fetch-hip: libamdhip64-dev has no hip/hip_runtime_api.h" >&2; exit 1; }
# The real file behind the soname (libamdhip64.so.N -> libamdhip64.so.N.M.P).
link=$(ls "$work"/root/usr/lib/*/libamdhip64.so.[0-9] 2>/dev/null | head -n 1)
[ -n "$link" ] || { echo "fetch-hip: the runtime package has no libamdhip64.so.N" >&2; exit 1; }
link_soname=$(basename "$link")
link_dir=$(dirname "$link" | sed "s|$work/root|$cache/headers/root|")
version=$(dpkg-deb -f "$work"/debs/libamdhip64-dev_*.deb Version)
rm -rf "$cache/headers"
mkdir -p "$cache/headers"
mv "$work/root" "$cache/headers/root"
rm -rf "$work"
{
    echo "HIP_INCLUDE=$cache/headers/root/usr/include"
    echo "HIP_HEADERS_VERSION=$version"
    echo "HIP_LINK_LIB=$link_dir/$link_soname"
    echo "HIP_LINK_SONAME=$link_soname"
} >"$done_file"
cat "$done_file"
