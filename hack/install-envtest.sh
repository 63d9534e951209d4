#!/usr/bin/env bash
# Builds the envtest control plane (etcd and kube-apiserver) from their Go
# modules at pinned versions into a cache outside the checkout, keyed by
# version, and prints the directory to use as KUBEBUILDER_ASSETS.
# No prebuilt binary is downloaded: these machines reach only the package
# registries. Idempotent; first build about 7 minutes.
set -euo pipefail
KUBE_VERSION="${KUBE_VERSION:-v1.36.3}"   # minor matches k8s.io/client-go in go.mod
ETCD_VERSION="${ETCD_VERSION:-v3.6.16}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}"
assets="$CACHE/envtest/k8s-$KUBE_VERSION-etcd-$ETCD_VERSION"
mkdir -p "$assets"
export GOFLAGS=-mod=mod CGO_ENABLED=0

# version_ldflags: what release builds of Kubernetes stamp into their binaries.
version_ldflags() {
  local minor=${KUBE_VERSION#v1.}; minor=${minor%%.*}
  echo "-X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean"
}

build_etcd() {
  local tmp; tmp=$(mktemp -d)
  echo "building etcd $ETCD_VERSION (about 1 minute, once per machine)..." >&2
  # go install pkg@version refuses etcd's replace directives, so build it
  # from a scratch module that requires it.
  (cd "$tmp" && go mod init scratch/etcd >/dev/null 2>&1 &&
    go get "go.etcd.io/etcd/server/v3@$ETCD_VERSION" >&2 &&
    go build -o "$assets/etcd.tmp" go.etcd.io/etcd/server/v3 >&2)
  mv "$assets/etcd.tmp" "$assets/etcd"
  rm -rf "$tmp"
}

build_apiserver() {
  local tmp; tmp=$(mktemp -d)
  echo "building kube-apiserver $KUBE_VERSION (about 6 minutes, once per machine)..." >&2
  local staging="v0.${KUBE_VERSION#v1.}"
  local gomod
  gomod=$(go mod download -json "k8s.io/kubernetes@$KUBE_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  (cd "$tmp" && go mod init scratch/kube >/dev/null 2>&1 &&
    # k8s.io/kubernetes replaces its staging modules with ./staging paths;
    # a module that requires it must pin each to its matching tag.
    grep -E '^\s*k8s\.io/[^ ]+ => \./staging' "$gomod" | awk -v v="$staging" '{print "replace " $1 " => " $1 " " v}' >> go.mod &&
    go get "k8s.io/kubernetes@$KUBE_VERSION" >&2 &&
    go build -ldflags "$(version_ldflags)" -o "$assets/kube-apiserver.tmp" k8s.io/kubernetes/cmd/kube-apiserver >&2)
  mv "$assets/kube-apiserver.tmp" "$assets/kube-apiserver"
  rm -rf "$tmp"
}

[ -x "$assets/etcd" ] || build_etcd
# The version it reports, as release builds set it: clients check it
# (Kueue refuses to start on v0.0.0-master), so a build without it is redone.
"$assets/kube-apiserver" --version 2>/dev/null | grep -qx "Kubernetes $KUBE_VERSION" || build_apiserver
echo "$assets"
