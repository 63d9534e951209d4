#!/usr/bin/env bash
# bench/regen.sh — `make bench-regen`: what metadata transfer saves and what
# regenerating reports costs (bench/regenbench), on Debian's plast-example
# dolphin proteins: an all-against-all search of 600 of them (a database
# small against its queries), then 60 of them against all 16,598 (a
# database large against its queries). About 15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
${GO:-go} run ./bench/regenbench -bin bin -proteins 600
echo
${GO:-go} run ./bench/regenbench -bin bin -queries 60
