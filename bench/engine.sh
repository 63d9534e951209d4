#!/usr/bin/env bash
# bench/engine.sh — `make bench`: blastfleet-engine against blastp side by
# side on two real protein workloads, plus the top-N recall benchmark:
#   1. Debian's plast-example: 71 queries against dolphin proteins (every
#      way, the engine's knobs, the recall benchmark); about 10 minutes;
#   2. mmseqs2-examples' UniProt set: the first 200 of its 500 queries
#      against its 20,000 sequences (the limits, blastp -num_threads 2, the
#      two halves, the engine in-process and under mpirun); about 15
#      minutes. BENCH_SECOND=0 skips it.
# Prints markdown tables (docs/benchmarks.md holds one run's). Arguments are
# passed to the first run of bench/enginebench (go run ./bench/enginebench
# -h lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
${GO:-go} run ./bench/enginebench -bin bin "$@"
if [[ "${BENCH_SECOND:-1}" != 0 ]]; then
	data=/usr/share/doc/mmseqs2/example-data
	echo
	echo "# Second workload: mmseqs2-examples (UniProt), 200 queries"
	echo
	${GO:-go} run ./bench/enginebench -bin bin -work "${TMPDIR:-/tmp}/blastfleet-bench-uniprot" \
		-db-fasta "$data/DB.fasta.gz" -queries-fasta "$data/QUERY.fasta.gz" -query-limit 200 \
		-ways "a,a',b,c,c',d,d'" -knobs=false -recall=false
fi
