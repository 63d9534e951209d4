#!/usr/bin/env bash
# Builds what the one-node cluster of `blastfleet dev up --cluster` runs
# besides etcd and kube-apiserver (hack/install-envtest.sh): the kubelet,
# kube-controller-manager, kube-scheduler and kube-proxy at the
# kube-apiserver's tag, CoreDNS, the Kubeflow MPI operator at the version
# go.mod requires and Kueue (make images packs these two into images); each from
# its Go module into a cache outside the checkout, keyed by version. Prints
# the directory. No prebuilt binary is downloaded: these machines reach
# only the package registries. Idempotent; first build about 8 minutes
# once kube-apiserver is built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"      # the kube-apiserver's tag (install-envtest.sh)
COREDNS_VERSION="${COREDNS_VERSION:-v1.15.0}"
KUEUE_VERSION="${KUEUE_VERSION:-v0.17.0}"     # its MPIJob integration: docs/development.md
MPI_OPERATOR_VERSION="${MPI_OPERATOR_VERSION:-$(cd "$here/.." && go list -m -f '{{.Version}}' github.com/kubeflow/mpi-operator)}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}"
dir="$CACHE/cluster/k8s-$KUBE_VERSION-coredns-$COREDNS_VERSION-mpi-$MPI_OPERATOR_VERSION-kueue-$KUEUE_VERSION"
mkdir -p "$dir"
export GOFLAGS=-mod=mod CGO_ENABLED=0

# scratch_module DIR MODULE@VERSION: a module in DIR requiring MODULE, for
# modules whose replace directives `go install pkg@version` refuses.
scratch_module() {
  (cd "$1" && go mod init scratch/build >/dev/null 2>&1 && go get "$2" >&2)
}

build_kube() {
  local tmp; tmp=$(mktemp -d)
  echo "building kubelet, kube-controller-manager, kube-scheduler, kube-proxy $KUBE_VERSION (about 3 minutes, once per machine)..." >&2
  local staging="v0.${KUBE_VERSION#v1.}" gomod minor ldflags
  gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # The version the node reports (kubectl get nodes), as release builds set it.
  minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  ldflags="-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
  (cd "$tmp" && go mod init scratch/kube >/dev/null 2>&1 &&
    # Pin each staging module k8s.io/kubernetes replaces with ./staging.
    grep -E '^\s*k8s\.io/[^ ]+ => \./staging' "$gomod" | awk -v v="$staging" '{print "replace " $1 " => " $1 " " v}' >> go.mod &&
    go get "k8s.io/kubernetes@$KUBE_VERSION" >&2 &&
    for c in kubelet kube-controller-manager kube-scheduler kube-proxy; do
      go build -ldflags "$ldflags" -o "$dir/$c.tmp" "k8s.io/kubernetes/cmd/$c" >&2 && mv "$dir/$c.tmp" "$dir/$c" || exit 1
    done)
  rm -rf "$tmp"
}

build_coredns() {
  local tmp; tmp=$(mktemp -d)
  echo "building CoreDNS $COREDNS_VERSION (about 3 minutes, once per machine)..." >&2
  scratch_module "$tmp" "github.com/coredns/coredns@$COREDNS_VERSION"
  (cd "$tmp" && go build -o "$dir/coredns.tmp" github.com/coredns/coredns >&2)
  mv "$dir/coredns.tmp" "$dir/coredns"
  rm -rf "$tmp"
}

build_mpi_operator() {
  local tmp; tmp=$(mktemp -d)
  echo "building the MPI operator $MPI_OPERATOR_VERSION (about 2 minutes, once per machine)..." >&2
  # `go install ...@version` fails: the proxy refuses the module's version list.
  scratch_module "$tmp" "github.com/kubeflow/mpi-operator@$MPI_OPERATOR_VERSION"
  (cd "$tmp" && go build -o "$dir/mpi-operator.tmp" github.com/kubeflow/mpi-operator/cmd/mpi-operator >&2)
  mv "$dir/mpi-operator.tmp" "$dir/mpi-operator"
  rm -rf "$tmp"
}

build_kueue() {
  local tmp; tmp=$(mktemp -d)
  echo "building Kueue $KUEUE_VERSION (about 4 minutes, once per machine)..." >&2
  scratch_module "$tmp" "sigs.k8s.io/kueue@$KUEUE_VERSION"
  (cd "$tmp" && go build -ldflags "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$KUEUE_VERSION" -o "$dir/kueue.tmp" sigs.k8s.io/kueue/cmd/kueue >&2)
  mv "$dir/kueue.tmp" "$dir/kueue"
  rm -rf "$tmp"
}

for c in kubelet kube-controller-manager kube-scheduler kube-proxy; do
  [ -x "$dir/$c" ] || { build_kube; break; }
done
[ -x "$dir/coredns" ] || build_coredns
[ -x "$dir/mpi-operator" ] || build_mpi_operator
[ -x "$dir/kueue" ] || build_kueue
echo "$dir"
