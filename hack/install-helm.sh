#!/usr/bin/env bash
# Builds helm from its Go module at a pinned version into the cache outside
# the checkout (keyed by version) and prints the binary's path. No prebuilt
# binary is downloaded: these machines reach only the package registries.
# v3.21.x builds with client-go v0.36, the minor of go.mod and of the
# envtest kube-apiserver. Idempotent; first build about 3.5 minutes.
set -euo pipefail
HELM_VERSION="${HELM_VERSION:-v3.21.4}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}/bin"
bin="$CACHE/helm-$HELM_VERSION"
if [ ! -x "$bin" ]; then
  mkdir -p "$CACHE"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "building helm $HELM_VERSION (about 3.5 minutes, once per machine)..." >&2
  # Linker flags as in helm's Makefile: the version, and the Kubernetes
  # version helm assumes without a cluster (helm template, helm lint's
  # deprecation checks), derived from the client-go helm is built with.
  # Without them helm template assumes Kubernetes v1.20.
  gomod=$(cd "$tmp" && go mod download -json "helm.sh/helm/v3@$HELM_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  clientgo=$(awk '$1 == "k8s.io/client-go" {print $2}' "$gomod")   # v0.36.2
  minor=$(echo "$clientgo" | cut -d. -f2)
  ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
  for pkg in helm.sh/helm/v3/pkg/lint/rules helm.sh/helm/v3/pkg/chartutil; do
    ldflags="$ldflags -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$minor"
  done
  (cd "$tmp" && GOBIN="$tmp" CGO_ENABLED=0 go install -ldflags "$ldflags" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2)
  mv "$tmp/helm" "$bin"
fi
echo "$bin"
