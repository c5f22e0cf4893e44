#!/usr/bin/env bash
# Regenerates every golden file: runs each committed generator (scripts/refs/gen-*.py) with the
# reference venv's Python. Run scripts/refs/setup.sh first. Generators write under test/goldens/.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv-refs/bin/python
if [ ! -x "$python" ]; then
  echo "refs: $python not found; run scripts/refs/setup.sh first" >&2
  exit 2
fi
shopt -s nullglob
generators=(scripts/refs/gen-*.py)
if [ ${#generators[@]} -eq 0 ]; then
  echo "refs: no generators found in scripts/refs/gen-*.py" >&2
  exit 1
fi
for generator in "${generators[@]}"; do
  echo "refs: $generator"
  "$python" "$generator"
done
