#!/usr/bin/env bash
# scripts/fuzz.sh without arguments exits 2 with its usage, whose TARGET line names each of
# the fuzz targets given as arguments (those tests/fuzz/CMakeLists.txt defines).
set -uo pipefail
out=$(scripts/fuzz.sh 2>&1)
rc=$?
if ((rc != 2)); then
  echo "fuzz.sh without arguments exited $rc, not 2" >&2
  exit 1
fi
line=$(grep -E '^ *TARGET ' <<<"$out") || {
  echo "fuzz.sh's usage has no TARGET line:" >&2
  echo "$out" >&2
  exit 1
}
status=0
for target in "$@"; do
  if ! grep -qE "(^|[^a-z_])${target}([^a-z_]|$)" <<<"${line#*TARGET}"; then
    echo "fuzz.sh's usage does not list the target '$target': $line" >&2
    status=1
  fi
done
exit $status
