#!/usr/bin/env bash
# make demo-cluster: make demo's campaign on a real one-node cluster
# (blastfleet dev up --cluster): the images built from the Dockerfiles
# (make images), containerd and a kubelet running them, the real Job
# controller sharding the database, and the real Kubeflow MPI operator
# turning each partition's MPIJob into a launcher and worker pods, mpirun
# reaching the workers over ssh. Needs root (a kubelet, containerd and a
# bridge). The cluster stays up; blastfleet dev down --dir DIR stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$(date +%s)
export BLASTFLEET_IMAGES=${BLASTFLEET_IMAGES:-$(hack/build-images.sh)}
echo "images built in $(( $(date +%s) - t0 )) s: $BLASTFLEET_IMAGES"
export BLASTFLEET_DEMO_CLUSTER=1
exec hack/demo.sh
