#!/usr/bin/env bash
# bench/engine.sh — `make bench`: blastfleet-engine against blastp side by
# side on Debian's plast-example proteins, plus the top-N recall benchmark.
# Prints markdown tables (docs/benchmarks.md holds one run's). Arguments are
# passed to bench/enginebench (go run ./bench/enginebench -h lists them).
# About 8-10 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
exec ${GO:-go} run ./bench/enginebench -bin bin "$@"
