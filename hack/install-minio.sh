#!/usr/bin/env bash
# Builds a MinIO server from its Go module at a pinned version into a cache
# outside the checkout, so fresh clones on the same machine reuse it.
# Prints the binary's path. Idempotent.
set -euo pipefail
MINIO_VERSION="${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}/bin"
bin="$CACHE/minio-$MINIO_VERSION"
if [ ! -x "$bin" ]; then
  mkdir -p "$CACHE"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "building MinIO $MINIO_VERSION (about 4 minutes, once per machine)..." >&2
  GOBIN="$tmp" CGO_ENABLED=0 go install "github.com/minio/minio@$MINIO_VERSION" >&2
  mv "$tmp/minio" "$bin"
fi
echo "$bin"
