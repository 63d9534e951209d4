#!/usr/bin/env bash
# bench/engine.sh — `make bench`: blastfleet-engine against BLAST+ side by
# side (bench/enginebench). BENCH_WORKLOADS (comma-separated, default
# a,b,c) selects the workloads:
#   a  synthetic genomes (test/support/synth.GenomeSet: 20 bacterial-like
#      genomes, 44 Mb) and 300-letter queries of held-out strains, once per
#      blastn task (a-megablast, a-dc-megablast, a-blastn name one task);
#   b  synthetic protein families, 150 protein queries (blastp);
#   c  5 long queries (100-500 kb) against 3 genomes (blastn);
#      a, b and c take about 35 minutes together on 2 idle cores; each
#      also runs as a SearchCampaign applied with kubectl to the local
#      stack (way 6; blastfleet dev up, which stays up: blastfleet dev
#      down stops it; -kubectl=false skips it);
#   plast    Debian's plast-example: 71 queries against dolphin proteins
#            (every way, the engine's knobs, the recall benchmark); about
#            10 minutes;
#   uniprot  mmseqs2-examples' UniProt set: the first 200 of its 500
#            queries against its 20,000 sequences; about 15 minutes.
# Prints markdown tables (docs/benchmarks.md holds one run's). Arguments are
# passed to every run of bench/enginebench (go run ./bench/enginebench -h
# lists them).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ -z "${MAKELEVEL:-}" ]]; then
	${MAKE:-make} --no-print-directory build >&2
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
workloads=",${BENCH_WORKLOADS:-a,b,c},"
synthetic=$(tr , '\n' <<<"$workloads" | grep -vxE 'plast|uniprot|' | paste -sd, - || true)
if [[ -n "$synthetic" ]]; then
	# Way 6, the campaign through kubectl apply, runs on the local stack of
	# make demo (blastfleet dev up, left running): etcd and kube-apiserver
	# built once per machine (hack/install-envtest.sh, about 7 minutes the
	# first time), MinIO likewise. -kubectl=false skips it.
	if [[ " $* " != *" -kubectl=false "* && " $* " != *" --kubectl=false "* ]]; then
		export KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS:-$(hack/install-envtest.sh)}
		export BLASTFLEET_MINIO=${BLASTFLEET_MINIO:-$(hack/install-minio.sh)}
	fi
	${GO:-go} run ./bench/enginebench -bin bin -work "${TMPDIR:-/tmp}/blastfleet-bench-synth" -workloads "$synthetic" "$@"
fi
if [[ "$workloads" == *,plast,* ]]; then
	echo
	echo "# plast-example"
	echo
	${GO:-go} run ./bench/enginebench -bin bin "$@"
fi
if [[ "$workloads" == *,uniprot,* ]]; then
	data=/usr/share/doc/mmseqs2/example-data
	echo
	echo "# mmseqs2-examples (UniProt), 200 queries"
	echo
	${GO:-go} run ./bench/enginebench -bin bin -work "${TMPDIR:-/tmp}/blastfleet-bench-uniprot" \
		-db-fasta "$data/DB.fasta.gz" -queries-fasta "$data/QUERY.fasta.gz" -query-limit 200 \
		-ways "a,a',b,c,c',d,d'" -knobs=false -recall=false "$@"
fi
