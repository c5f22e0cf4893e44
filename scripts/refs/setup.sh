#!/usr/bin/env bash
# Creates the git-ignored reference virtual environment (.venv-refs) with the pinned Python
# packages whose behaviour we match. Idempotent: reinstalls only when requirements change.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.venv-refs
req=scripts/refs/requirements.txt
stamp="$venv/.requirements.sha256"
want=$(cat "$req" scripts/refs/constraints.txt | sha256sum | cut -d" " -f1)
if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "refs: $venv is up to date"
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check --ignore-requires-python -r "$req" -c scripts/refs/constraints.txt
echo "$want" > "$stamp"
echo "refs: installed $(grep -c '==' "$req") reference packages into $venv"
