#!/usr/bin/env bash
# bench/regen.sh — `make bench-regen`: what metadata transfer saves and what
# regenerating reports costs, on an all-against-all search of Debian's
# plast-example dolphin proteins (bench/regenbench). About 10 minutes on 2
# cores. Arguments go to bench/regenbench (-proteins N, -workers W).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
${GO:-go} run ./bench/regenbench -bin bin "$@"
