#!/usr/bin/env bash
# Builds controller-gen at a pinned version (its k8s minor matches go.mod)
# into the cache outside the checkout and prints its path. Idempotent.
set -euo pipefail
CONTROLLER_TOOLS_VERSION="${CONTROLLER_TOOLS_VERSION:-v0.21.0}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}/bin"
bin="$CACHE/controller-gen-$CONTROLLER_TOOLS_VERSION"
if [ ! -x "$bin" ]; then
  mkdir -p "$CACHE"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "building controller-gen $CONTROLLER_TOOLS_VERSION (about 1 minute, once per machine)..." >&2
  GOBIN="$tmp" CGO_ENABLED=0 go install "sigs.k8s.io/controller-tools/cmd/controller-gen@$CONTROLLER_TOOLS_VERSION" >&2
  mv "$tmp/controller-gen" "$bin"
fi
echo "$bin"
