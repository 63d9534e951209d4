#!/usr/bin/env bash
# make demo-engine: shard Debian's plast-example dolphin proteins, search the 71
# example queries with the engine under mpirun (1 master + 2 workers), and
# compare the merged result with one plain blastp -num_threads 2 run on the
# unsharded database (docs/concepts.md). Kubernetes is not involved (make demo runs the same search as a
# SearchCampaign on the local stack): this is the engine a partition
# runs.
set -euo pipefail
cd "$(dirname "$0")/.."
data=/usr/share/doc/plast-example/db
work=${BLASTFLEET_DEMO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/blastfleet/demo}
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_pml=ob1
. hack/demo/lib.sh
t0=$(now)

echo "== 1. shard the database (16,598 proteins) into 4 balanced shards"
bin/blastfleet db shard --input "$data/tursiops.fa.gz" --type prot --shards 4 --name tursiops --output "$work/db"

echo
echo "== 2. search 71 queries with the engine: mpirun -np 3 (rank 0 master, ranks 1-2 workers)"
t1=$(now)
mpirun -np 3 --oversubscribe bin/blastfleet-engine \
  --database "$work/db" --queries "$data/query.fa.gz" --program blastp \
  --outfmt "6 std" --max-target-seqs 500 --output "$work/result.tsv" \
  --cache-dir "$work/cache" --summary-json "$work/summary.json"
t2=$(now)

echo
echo "== 3. the same search with one blastp -num_threads 2 on the unsharded database"
direct_blastp "$work/direct.tsv"

echo
echo "== result"
echo "merged result:      $work/result.tsv ($(wc -l < "$work/result.tsv") hits)"
echo "direct blastp:      $work/direct.tsv ($(wc -l < "$work/direct.tsv") hits)"
if cmp -s "$work/result.tsv" "$work/direct.tsv"; then
  echo "identical:          yes"
else
  echo "identical:          no (see docs/concepts.md on ties and -max_target_seqs)"
fi
echo "engine wall:        $(secs "$t1" "$t2") s   blastp -num_threads 2: $blastp_secs s"
echo "run summary:        $work/summary.json"
echo "total demo time:    $(secs "$t0" "$(now)") s"
