#!/usr/bin/env bash
# Builds kwok (sigs.k8s.io/kwok), which fakes nodes and pod lifecycles
# against a real API server, from its Go module at a pinned version into a
# cache outside the checkout, keyed by version. Prints the binary's path.
# make bench-control-plane runs it. Idempotent; first build about 3 minutes.
set -euo pipefail
KWOK_VERSION="${KWOK_VERSION:-v0.8.0}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}/bin"
bin="$CACHE/kwok-$KWOK_VERSION"
if [ ! -x "$bin" ]; then
  mkdir -p "$CACHE"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "building kwok $KWOK_VERSION (about 3 minutes, once per machine)..." >&2
  # A scratch module, as hack/install-cluster.sh builds its components:
  # kwok's replace directives make `go install pkg@version` refuse it.
  (cd "$tmp" && go mod init scratch/kwok >/dev/null 2>&1 && GOFLAGS=-mod=mod go get "sigs.k8s.io/kwok@$KWOK_VERSION" >&2 &&
    CGO_ENABLED=0 GOFLAGS=-mod=mod go build -ldflags "-X sigs.k8s.io/kwok/pkg/consts.Version=$KWOK_VERSION" -o "$tmp/kwok" sigs.k8s.io/kwok/cmd/kwok >&2)
  mv "$tmp/kwok" "$bin"
fi
echo "$bin"
