#!/usr/bin/env bash
# make images: builds blastfleet's images from their Dockerfiles without a
# Docker engine and without a registry, with Debian's buildah, and writes
# each as a docker-archive that `blastfleet dev up --cluster` imports into
# the cluster's containerd. Prints the directory of the archives.
#
# No registry is reachable here, so the bases the Dockerfiles name
# (golang, debian, distroless) are made locally from Debian packages and
# given as build arguments: a root filesystem from mmdebstrap (bookworm,
# minbase), and a Go builder that is that plus gcc and this machine's Go,
# which is go.mod's. The Dockerfiles stay the one description of each
# image; test/cluster compares what they declare with what was built.
#
# Images: operator (Dockerfile), worker (images/worker), pause (the pod
# sandbox), and mpi-operator, kueue, argo and minio from the static binaries
# hack/install-cluster.sh, hack/install-argo.sh and hack/install-minio.sh
# build from their modules. Layers are cached
# (buildah --layers) and Go's module and build caches are mounted into the
# builds, so a rebuild after a source change takes about a minute.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}"
out="$CACHE/images"
store="$out/storage"
mkdir -p "$out" "$store"
TAG="${IMAGE_TAG:-dev}"
GO_VERSION=$(cd "$root" && go env GOVERSION)
GO_VERSION=${GO_VERSION#go}

for tool in buildah mmdebstrap; do
  command -v "$tool" >/dev/null || { echo "make images needs $tool (apt-get install buildah mmdebstrap; make deps installs them)" >&2; exit 1; }
done
# overlay (vfs copies every layer whole: ten times slower); buildah unmounts
# its layers after each build. Root and runroot in the cache.
DRIVER="${BUILDAH_DRIVER:-overlay}"
bh() { buildah --root "$store/root" --runroot "$store/run" --storage-driver "$DRIVER" "$@"; }

base=localhost/blastfleet/debian:bookworm-local
gobuilder=localhost/blastfleet/golang:$GO_VERSION-bookworm-local

step() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# A working container a failed step leaves (with its overlay mount) is
# removed on exit; one committed with --rm is gone already.
working=()
trap 'for w in "${working[@]}"; do bh rm "$w" >/dev/null 2>&1 || true; done' EXIT

if ! bh inspect --type image "$base" >/dev/null 2>&1; then
  step "base: mmdebstrap bookworm (minbase, about 40 s)"
  tar="$out/bookworm-minbase.tar"
  [ -s "$tar" ] || { mmdebstrap --variant=minbase --quiet bookworm "$tar.tmp" && mv "$tar.tmp" "$tar"; }
  c=$(bh from scratch); working+=("$c")
  bh add "$c" "$tar" / >/dev/null
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd /bin/bash "$c"
  bh commit --quiet --rm "$c" "$base" >/dev/null
fi

if ! bh inspect --type image "$gobuilder" >/dev/null 2>&1; then
  step "Go builder: the base, gcc and Go $GO_VERSION (this machine's, which is go.mod's)"
  c=$(bh from --pull=never "$base"); working+=("$c")
  bh run --isolation chroot "$c" -- sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends gcc libc6-dev make pkg-config ca-certificates git >/dev/null && rm -rf /var/lib/apt/lists/*'
  bh copy "$c" "$(go env GOROOT)" /usr/local/go >/dev/null
  # The CAs this machine trusts beyond Debian's (an egress proxy's): the
  # builder fetches modules as this machine does. Only the builder has
  # them; no image that runs does.
  if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    bh copy "$c" /usr/local/share/ca-certificates/ /usr/local/share/ca-certificates/ >/dev/null
    bh run --isolation chroot "$c" -- update-ca-certificates >/dev/null
  fi
  bh config --env GOPATH=/go --env PATH=/go/bin:/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    --env GOTOOLCHAIN=local --env GOPROXY="$(go env GOPROXY)" --workingdir /go "$c"
  bh commit --quiet --rm "$c" "$gobuilder" >/dev/null
fi

modcache=$(go env GOMODCACHE)
gocache=$(go env GOCACHE)
mkdir -p "$modcache" "$gocache"

# build NAME DOCKERFILE CONTEXT [--build-arg ...]: one image, tagged
# localhost/blastfleet/NAME:TAG, written to $out/NAME.tar.
build() {
  local name=$1 file=$2 context=$3; shift 3
  local img=localhost/blastfleet/$name:$TAG t0=$SECONDS
  step "$name: buildah bud -f $file"
  # Once more on failure: runc in a chroot build has been seen to fail
  # transiently ("Close_Fd sealing memfd copy: Device or resource busy").
  local try
  for try in 1 2; do
    if bh bud --quiet --layers --pull=never --isolation chroot \
      --build-arg GO_IMAGE="$gobuilder" --build-arg BASE_IMAGE="$base" --build-arg RUNTIME_IMAGE="$base" "$@" \
      -v "$modcache:/go/pkg/mod" -v "$gocache:/root/.cache/go-build" \
      -f "$root/$file" -t "$img" "$context" >/dev/null; then
      break
    fi
    [ "$try" = 2 ] && return 1
    step "$name: the build failed; trying once more"
    sleep 5
  done
  rm -f "$out/$name.tar"
  bh push --quiet "$img" "docker-archive:$out/$name.tar:$img" >/dev/null
  step "$name: $img ($(du -m "$out/$name.tar" | cut -f1) MB, $((SECONDS - t0)) s)"
}

only=("$@")
want() { [ ${#only[@]} -eq 0 ] || [[ " ${only[*]} " == *" $1 "* ]]; }
want pause && build pause images/pause/Dockerfile "$root"
want operator && build operator Dockerfile "$root" --build-arg VERSION="$TAG"
want worker && build worker images/worker/Dockerfile "$root" --build-arg VERSION="$TAG"
# Binaries built from their modules on this machine (static), copied in.
want mpi-operator && build mpi-operator images/mpi-operator/Dockerfile "$("$here/install-cluster.sh")"
want kueue && build kueue images/kueue/Dockerfile "$("$here/install-cluster.sh")"
# Argo Workflows (hack/install-argo.sh): dev up --cluster --argo.
want argo && build argo images/argo/Dockerfile "$("$here/install-argo.sh")"
if want minio; then
  minio=$("$here/install-minio.sh")
  build minio images/minio/Dockerfile "$(dirname "$minio")" --build-arg MINIO_BINARY="$(basename "$minio")"
fi
# Dangling layers of earlier builds.
bh rmi --prune >/dev/null 2>&1 || true
echo "$out"
