#!/usr/bin/env bash
# Builds Argo Workflows' workflow-controller and argoexec (its executor:
# the init and wait containers of every step's pod, and the emissary that
# wraps the step's command) from their Go module at a pinned release, into
# a cache outside the checkout keyed by version, and copies the module's
# CRDs (manifests/base/crds/minimal) and the controller's RBAC
# (manifests/cluster-install-no-crds/workflow-controller-rbac) beside them.
# Prints the directory.
# `blastfleet dev up --cluster --argo` installs them (images/argo packs the
# binaries). No prebuilt binary is downloaded: these machines reach only
# the package registries. Idempotent.
#
# The release: v3.7.18, the newest v3 the Go proxy serves (it refuses
# v3.7.11 and v3.7.19 and later, and the v4 line except v4.0.2 and
# v4.0.5); it carries the fix of CVE-2026-31892 (podSpecPatch bypassing
# a WorkflowTemplate's settings, fixed in v3.7.11). docs/install.md says
# more. First build measured there.
set -euo pipefail
ARGO_VERSION="${ARGO_VERSION:-v3.7.18}"
CACHE="${BLASTFLEET_CACHE:-$HOME/.cache/blastfleet}"
dir="$CACHE/argo/$ARGO_VERSION"
mkdir -p "$dir"
export GOFLAGS=-mod=mod CGO_ENABLED=0

build() {
  local tmp; tmp=$(mktemp -d)
  echo "building Argo Workflows $ARGO_VERSION workflow-controller and argoexec (5 to 11 minutes, once per machine)..." >&2
  local mod=github.com/argoproj/argo-workflows/v3 gomod src
  gomod=$(go mod download -json "$mod@$ARGO_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  # The module's own replace directives (`go install pkg@version` refuses
  # them), carried into a scratch module.
  # Upstream's workflow/executor/osspecific/signal_linux.go is a symlink
  # to signal_darwin.go, and module zips drop symlinks (argoexec does not
  # build on Linux without it): the build uses a copy of the module with
  # the file put back, by a replace directive (Go refuses overlays of the
  # module cache).
  src=$(go mod download -json "$mod@$ARGO_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  cp -r "$src" "$tmp/argo" && chmod -R u+w "$tmp/argo"
  cp "$tmp/argo/workflow/executor/osspecific/signal_darwin.go" "$tmp/argo/workflow/executor/osspecific/signal_linux.go"
  (cd "$tmp" && go mod init scratch/argo >/dev/null 2>&1 &&
    grep -E '^replace ' "$gomod" >> go.mod &&
    echo "replace $mod => ./argo" >> go.mod &&
    go get "$mod@$ARGO_VERSION" >&2 &&
    for c in workflow-controller argoexec; do
      go build -trimpath -ldflags "-s -w -X github.com/argoproj/argo-workflows/v3.version=$ARGO_VERSION" \
        -o "$dir/$c.tmp" "$mod/cmd/$c" >&2 && mv "$dir/$c.tmp" "$dir/$c" || exit 1
    done)
  rm -rf "$tmp"
}

[ -x "$dir/workflow-controller" ] && [ -x "$dir/argoexec" ] || build
if [ ! -d "$dir/crds" ] || [ ! -d "$dir/rbac" ]; then
  src=$(go mod download -json "github.com/argoproj/argo-workflows/v3@$ARGO_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  for d in crds:base/crds/minimal rbac:cluster-install-no-crds/workflow-controller-rbac; do
    rm -rf "$dir/${d%%:*}.tmp" && mkdir -p "$dir/${d%%:*}.tmp"
    cp "$src/manifests/${d#*:}"/*.yaml "$dir/${d%%:*}.tmp/" && chmod -R u+w "$dir/${d%%:*}.tmp"
    rm -f "$dir/${d%%:*}.tmp/kustomization.yaml"
    rm -rf "$dir/${d%%:*}" && mv "$dir/${d%%:*}.tmp" "$dir/${d%%:*}"
  done
fi
echo "$dir"
