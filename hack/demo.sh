#!/usr/bin/env bash
# make demo: the product end to end on this machine, the way it is used on
# a cluster. Brings the local stack up (blastfleet dev up: kube-apiserver,
# MinIO, Prometheus, the operator, the local runner), uploads Debian's
# plast-example dolphin proteins and 71 queries to MinIO, applies a
# BlastDatabase (sharded by Jobs) and a SearchCampaign (2 MPIJob
# partitions of blastfleet-engine under mpirun) with kubectl, follows the
# campaign with blastfleet status --watch, and compares the merged result
# with one plain blastp -num_threads 2 run of the same queries on the
# unsharded database, what users run (docs/concepts.md). The stack stays up.
# The engine-only demo is make demo-engine (hack/demo-engine.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
data=/usr/share/doc/plast-example/db
work=${BLASTFLEET_DEMO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/blastfleet/demo}
mkdir -p "$work"
. hack/demo/lib.sh
t0=$(now)
bf="$root/bin/blastfleet"

# What the stack runs: etcd and kube-apiserver built once per machine
# (hack/install-envtest.sh, about 7 minutes the first time), MinIO
# likewise (hack/install-minio.sh).
export KUBEBUILDER_ASSETS=${KUBEBUILDER_ASSETS:-$(hack/install-envtest.sh)}
export BLASTFLEET_MINIO=${BLASTFLEET_MINIO:-$(hack/install-minio.sh)}
helper="$work/demo-helper"
go build -o "$helper" ./hack/demo/helper

cluster=${BLASTFLEET_DEMO_CLUSTER:-}
if [ -n "$cluster" ]; then
  # make demo-cluster: a real one-node cluster (hack/demo-cluster.sh), in
  # a directory of its own so the process stack of make demo can stay up.
  export BLASTFLEET_DEV_DIR=${BLASTFLEET_DEV_DIR:-/var/lib/blastfleet/dev-cluster}
  echo "== 1. a one-node cluster (blastfleet dev up --cluster: containerd, kubelet, the real MPI operator; images from make images)"
  "$bf" dev up --cluster
else
  echo "== 1. the local stack (blastfleet dev up)"
  "$bf" dev up
fi
eval "$("$bf" dev env)"   # KUBECONFIG and MinIO's AWS_* variables
dir=$(dirname "$KUBECONFIG")
endpoint=$AWS_ENDPOINT_URL

echo
echo "== 2. inputs into MinIO: $(zcat "$data/tursiops.fa.gz" | grep -c '>') proteins, $(zcat "$data/query.fa.gz" | grep -c '>') queries"
"$helper" put "$dir" "$data/tursiops.fa.gz" demo/tursiops.fa.gz
"$helper" put "$dir" "$data/query.fa.gz" demo/query.fa.gz
echo "s3://blastfleet/demo/tursiops.fa.gz, s3://blastfleet/demo/query.fa.gz"

yaml=$(mktemp -d)
trap 'rm -rf "$yaml"' EXIT
name="demo-$(date +%H%M%S)"
sed "s|@ENDPOINT@|$endpoint|" hack/demo/database.yaml > "$yaml/database.yaml"
sed "s|@ENDPOINT@|$endpoint|; s|@NAME@|$name|" hack/demo/campaign.yaml > "$yaml/campaign.yaml"

echo
echo "== 3. the database: kubectl apply -f database.yaml (an Indexed Job builds 4 shards)"
t1=$(now)
applied=$(kubectl apply -f "$yaml/database.yaml")
echo "$applied"
last=""
for _ in $(seq 600); do
  IFS=/ read -r phase built shards < <(kubectl get bdb tursiops -o jsonpath='{.status.phase}/{.status.shardsBuilt}/{.status.shards}{"\n"}')
  st="${phase:-Pending} ${built:-0}/${shards:-4}"   # fields the operator has not written yet are absent
  [ "$st" != "$last" ] && echo "  $(date +%T)  $st shards built" && last=$st
  case "$st" in Ready*) break ;; Failed*) kubectl describe bdb tursiops; exit 1 ;; esac
  sleep 1
done
[[ "$st" == Ready* ]] || { echo "the database is not Ready after 10 minutes" >&2; exit 1; }
t2=$(now)

echo
echo "== 4. the campaign: kubectl apply -f campaign.yaml ($name: blastp, 71 queries in chunks of whole BLAST+ batches (4 batches of 10,000 letters), max_target_seqs 500 (BLAST's default), 2 partitions of 1 master + 2 BLAST ranks)"
ta=$(date +%s%N)
kubectl apply -f "$yaml/campaign.yaml"
"$bf" status "$name" --watch
t3=$(now)
location=$(kubectl get bsc "$name" -o jsonpath='{.status.location}')
first=$("$helper" first-task "$dir" "$location" "$ta")
"$bf" results "$name" --from-secret --output-file "$work/$name.tsv"
# The partitions end on their own once no chunk is left (the operator's
# wind-down), each writing its run record: the report wants them all.
kubectl wait --for=condition=Succeeded mpijob -l "blastfleet.io/campaign=$name" --timeout=120s >/dev/null || true
"$bf" report "$name" --from-secret --output-file "$work/$name-report.html"

echo
echo "== 5. the same search with one plain blastp -num_threads 2 on the unsharded database"
direct="$work/direct-blastp-500.tsv"
# Timed every run, right after the campaign: the ratio below compares two
# runs on the same machine minutes apart, not against a number from another day.
direct_blastp "$direct"
echo "blastp took $blastp_secs s"

echo
echo "== result"
"$helper" compare "$work/$name.tsv" "$direct"
echo "in MinIO:            $(kubectl get bsc "$name" -o jsonpath='{.status.result}')"
if [[ "$applied" == *unchanged* ]]; then
  echo "database:            Ready already (sharded by an earlier make demo on this stack)"
else
  echo "database sharded in: $(secs "$t1" "$t2") s (kubectl apply to Ready)"
fi
echo "campaign:            $(secs "$t2" "$t3") s from kubectl apply to Complete"
echo "against blastp:      $(awk -v c="$(secs "$t2" "$t3")" -v b="$blastp_secs" 'BEGIN { printf "%.3f x plain blastp -num_threads 2 on the unsharded database (%.1f s)", c / b, b }')"
echo "first BLAST task:    ${first} s after kubectl apply (the first chunk leased by a partition)"
echo "total demo time:     $(secs "$t0" "$(now)") s"
echo "report:              $work/$name-report.html (open it in a browser: timeline, task times, failures)"
if [ -n "$cluster" ]; then
  echo "MPI operator:        Kubeflow MPI operator v$(kubectl get deploy -n mpi-operator -o jsonpath='{.items[0].metadata.labels.app\.kubernetes\.io/version}') (image $(kubectl get deploy -n mpi-operator -o jsonpath='{.items[0].spec.template.spec.containers[0].image}'), built from its Go module)"
  echo "pods ran under:      $(kubectl get node -o jsonpath='{.items[0].status.nodeInfo.containerRuntimeVersion}'), kubelet $(kubectl get node -o jsonpath='{.items[0].status.nodeInfo.kubeletVersion}')"
  echo "partitions:          $(kubectl get mpijob -l "blastfleet.io/campaign=$name" --no-headers 2>/dev/null | wc -l) MPIJobs, their launchers $(kubectl get pods -l "blastfleet.io/campaign=$name,training.kubeflow.org/job-role=launcher" -o jsonpath='{.items[*].status.phase}'), in namespace $(kubectl config view --minify -o jsonpath='{..namespace}') (Pod Security: $(kubectl get ns "$(kubectl config view --minify -o jsonpath='{..namespace}')" -o jsonpath='{.metadata.labels.pod-security\.kubernetes\.io/enforce}'))"
fi
echo
prom=$("$bf" dev status 2>/dev/null | sed -n 's/^Prometheus: //p' || true)
echo "The stack stays up. Look at it: export KUBECONFIG=$KUBECONFIG; kubectl get bsc,bdb;"
echo "Prometheus at $prom; blastfleet dev status. Stop it: $bf dev down${cluster:+ --dir $BLASTFLEET_DEV_DIR}"
