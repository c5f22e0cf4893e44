#!/usr/bin/env bash
# Regenerates every golden file: runs each committed generator (scripts/refs/gen-*.py) with its
# reference venv's Python (gen-mcp-*.py: .venv-refs-mcp06, the rest: .venv-refs). Run
# scripts/refs/setup.sh first. Generators write under test/goldens/.
set -euo pipefail
cd "$(dirname "$0")/../.."
shopt -s nullglob
generators=(scripts/refs/gen-*.py)
if [ ${#generators[@]} -eq 0 ]; then
  echo "refs: no generators found in scripts/refs/gen-*.py" >&2
  exit 1
fi
for generator in "${generators[@]}"; do
  case "$generator" in
    */gen-mcp-*) python=.venv-refs-mcp06/bin/python ;;
    *) python=.venv-refs/bin/python ;;
  esac
  if [ ! -x "$python" ]; then
    echo "refs: $python not found; run scripts/refs/setup.sh first" >&2
    exit 2
  fi
  echo "refs: $generator"
  "$python" "$generator"
done
