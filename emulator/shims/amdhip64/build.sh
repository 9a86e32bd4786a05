#!/bin/sh
# The project's build step for HIP: builds the staticlib in release mode and
# links target/release/libamdhip64.so (and the link libamdhip64.so.6) with
# the vendor's soname and symbol versions. Run from anywhere in the repo;
# honours CARGO_TARGET_DIR.
#
#   emulator/shims/amdhip64/build.sh
#
# Then a HIP program runs on the emulator with
#   LD_LIBRARY_PATH=target/release ./program
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
cargo build --release --manifest-path "$root/Cargo.toml" -p vmmkit-shim-amdhip64
"$here/link.sh" "$target/release/libvmmkit_amdhip64.a" "$target/release"
echo "$target/release/libamdhip64.so"
