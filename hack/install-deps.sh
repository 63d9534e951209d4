#!/usr/bin/env bash
# Installs what blastfleet's build, tests and demo need on a Debian machine,
# idempotently: BLAST+, OpenMPI (with headers for the engine's cgo binding),
# Debian's plast-example data, and a MinIO server and helm built from
# source into ~/.cache/blastfleet (hack/install-minio.sh,
# hack/install-helm.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

packages=(ncbi-blast+ openmpi-bin libopenmpi-dev plast-example pkg-config)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

"$here/install-minio.sh" >/dev/null
"$here/install-helm.sh" >/dev/null
echo "dependencies ready: $(blastn -version | head -n1), $(mpirun --version 2>/dev/null | head -n1), minio $("$here/install-minio.sh"), helm $("$here/install-helm.sh")" >&2
