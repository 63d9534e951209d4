#!/usr/bin/env bash
# bench/balance.sh — `make bench-balance`: dynamic scheduling against the
# static splits LengthSplit and WeightSplit on skewed query sets, with real
# BLAST and the simulate backend (bench/balancebench). Prints markdown
# (docs/benchmarks.md holds one run's) and writes the figures into
# docs/benchmarks/. Arguments go to bench/balancebench (go run
# ./bench/balancebench -h). About 6 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
exec ${GO:-go} run ./bench/balancebench -bin bin -svg docs/benchmarks "$@"
