#!/usr/bin/env bash
# bench/io.sh — `make bench-io`: the output strategies x ranks (2 to 64,
# oversubscribed) without and with --query-sync, and the compute-speed
# sweep, on the simulate backend (bench/iobench). Prints markdown
# (docs/benchmarks.md holds one run's) and writes the figures into
# docs/benchmarks/. Arguments go to bench/iobench (go run ./bench/iobench -h).
# About 12-15 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none
exec ${GO:-go} run ./bench/iobench -bin bin -svg docs/benchmarks "$@"
