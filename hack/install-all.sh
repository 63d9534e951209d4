#!/usr/bin/env bash
# install-all.sh: every real component make test runs, built once per
# machine into ~/.cache/blastfleet (each script's own cache), side by
# side: on a fresh machine their downloads, module resolution and links
# (one core each) overlap the others' compiles. Then the images, which
# are built from some of them. Each script's output goes to a log; a
# failed one's log is printed. Cached, this takes seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
scripts=(install-cluster install-envtest install-argo install-minio install-helm)
declare -A pids
t0=$SECONDS
for s in "${scripts[@]}"; do
	"$here/$s.sh" >"$logs/$s.out" 2>"$logs/$s.log" &
	pids[$s]=$!
done
failed=0
for s in "${scripts[@]}"; do
	if ! wait "${pids[$s]}"; then
		echo "hack/$s.sh failed; its log:" >&2
		tail -n 40 "$logs/$s.log" >&2
		failed=1
	fi
done
[[ $failed == 0 ]] || exit 1
if (( SECONDS - t0 > 5 )); then
	echo "components built in $((SECONDS - t0)) s" >&2
fi
"$here/build-images.sh" >/dev/null
