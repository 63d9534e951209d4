# Shared by hack/demo.sh and hack/demo-engine.sh (sourced): timing, and the
# direct blastp run both demos compare their result with. Expects $data
# (plast-example) and $work set.

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# direct_blastp OUT: the demo's search with one plain blastp -num_threads 2
# on the unsharded database (built once in $work/unsharded), what users
# run, into OUT: the campaign's output must be its bytes (BLAST+'s own
# query batches: docs/concepts.md); it sets blastp_secs to how long blastp
# took.
direct_blastp() {
  local out=$1 t
  if [ ! -f "$work/unsharded/db.pin" ]; then
    mkdir -p "$work/unsharded"
    gzip -dc "$data/tursiops.fa.gz" > "$work/unsharded/db.fa"
    makeblastdb -in "$work/unsharded/db.fa" -dbtype prot -parse_seqids -out "$work/unsharded/db" >/dev/null
  fi
  gzip -dc "$data/query.fa.gz" > "$work/query.fa"
  t=$(now)
  env -u BATCH_SIZE blastp -db "$work/unsharded/db" -query "$work/query.fa" -outfmt "6 std" -max_target_seqs 500 -num_threads 2 > "$out.tmp"
  blastp_secs=$(secs "$t" "$(now)")
  mv "$out.tmp" "$out"
}
