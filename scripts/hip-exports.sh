#!/bin/sh
# Writes docs/api/hip-exports.tsv: every function the real libamdhip64 exports,
# with its ELF version node and the Debian packages that export it, read with
# `readelf --dyn-syms -W` from the libraries `scripts/fetch-hip.sh libraries`
# fetched (nothing is installed; the libraries stay under target/).
#
#   scripts/hip-exports.sh        # rewrites docs/api/hip-exports.tsv
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
env=$("$here/fetch-hip.sh" libraries)
lib6=$(echo "$env" | sed -n 's/^HIP_LIB_6=//p')
pkg6=$(echo "$env" | sed -n 's/^HIP_LIB_6_PACKAGE=//p')
lib7=$(echo "$env" | sed -n 's/^HIP_LIB_7=//p')
pkg7=$(echo "$env" | sed -n 's/^HIP_LIB_7_PACKAGE=//p')
exports() {
    readelf --dyn-syms -W "$1" |
        awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") && $4 == "FUNC" { print $8 }' |
        sed 's/@@*/\t/' | sort -u
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exports "$lib6" | sed "s/\$/\t$pkg6/" >"$tmp/6"
exports "$lib7" | sed "s/\$/\t$pkg7/" >"$tmp/7"
{
    printf '# name\tnode\tpackages  (written by scripts/hip-exports.sh from readelf of %s and %s; do not edit)\n' "$pkg6" "$pkg7"
    cat "$tmp/6" "$tmp/7" | sort -t "$(printf '\t')" -k1,1 -k2,2 |
        awk -F '\t' '{ k = $1 "\t" $2; if (k == last) { p = p ", " $3 } else { if (last != "") print last "\t" p; last = k; p = $3 } }
                     END { if (last != "") print last "\t" p }'
} >"$root/docs/api/hip-exports.tsv"
echo "wrote docs/api/hip-exports.tsv ($(($(wc -l <"$root/docs/api/hip-exports.tsv") - 1)) names)"
