#!/usr/bin/env bash
# Installs what blastfleet's build, tests and demo need on a Debian machine,
# idempotently: BLAST+, OpenMPI (with headers for the engine's cgo binding),
# MPICH (headers and Hydra: make test also builds and runs the engine
# against it, docs/building-the-engine.md),
# Debian's plast-example data (and mmseqs2-examples' UniProt proteins, the
# second workload of make bench), Prometheus (for the local stack of
# blastfleet dev up), Chromium (test/report opens the campaign report in
# it, headless, and fails on any console error), and a MinIO server and
# helm built from source into ~/.cache/blastfleet (hack/install-minio.sh,
# hack/install-helm.sh), and what the one-node cluster needs (containerd,
# runc, CNI plugins, iptables; buildah and mmdebstrap for make images).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

# chromium: the report's browser test (test/report) drives it headless.
# containerd, runc, the CNI plugins, iptables, buildah and mmdebstrap: the
# one-node cluster of blastfleet dev up --cluster and make images.
# mpich and libmpich-dev install beside OpenMPI: Debian's alternatives
# (mpirun, mpicc, mpi.h) keep OpenMPI's, which has the higher priority.
packages=(ncbi-blast+ openmpi-bin libopenmpi-dev mpich libmpich-dev plast-example mmseqs2-examples pkg-config prometheus chromium
  containerd runc containernetworking-plugins iptables conntrack buildah mmdebstrap)
# slurm-wlm and munge: test/hpc runs a one-node Slurm of its own (daemons
# started by the test on loopback ports, never the system services).
packages+=(slurm-wlm munge)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing Debian packages: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  # Debian's prometheus package starts a system service listening on
  # 0.0.0.0:9090; the local stack runs its own on 127.0.0.1. Where no
  # policy-rc.d exists, one refuses service starts during the install.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  # ... and is not started at boot either, when we installed it.
  if [[ " ${missing[*]} " == *" prometheus "* ]] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now prometheus >/dev/null 2>&1 || true
  fi
fi

# The engine's default build, the tests, the demos and the local stack run
# plain "mpirun" and expect OpenMPI's. The alternative stays OpenMPI's in
# auto mode; an admin's manual choice of MPICH's would break them, so say so.
# (Read whole first: grep -q closing the pipe early would fail it under pipefail.)
mpirun_version=$(mpirun --version 2>&1 || true)
if [[ "$mpirun_version" != *"Open MPI"* ]]; then
  echo "mpirun is not OpenMPI's ($(readlink -f "$(command -v mpirun)")): make test, make demo and blastfleet dev up run OpenMPI's mpirun;" \
    "choose it with: sudo update-alternatives --set mpirun /usr/bin/mpirun.openmpi" >&2
  exit 1
fi

"$here/install-minio.sh" >/dev/null
"$here/install-helm.sh" >/dev/null
echo "dependencies ready: $(blastn -version | head -n1), $(mpirun --version 2>/dev/null | head -n1), $(mpichversion 2>/dev/null | head -n1 | tr -s '\t ' ' '), $(prometheus --version 2>&1 | head -n1 | cut -d' ' -f1-3), $(chromium --version 2>/dev/null | head -n1 | cut -d' ' -f1-2), minio $("$here/install-minio.sh"), helm $("$here/install-helm.sh")" >&2
