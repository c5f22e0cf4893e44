#!/usr/bin/env bash
# Creates the git-ignored reference virtual environments with the pinned Python packages whose
# behaviour we match: .venv-refs (agentskills-core, -http, AbstractSkill, ...) and
# .venv-refs-mcp06 (agentskills-mcp-server 0.6.0 and the Python MCP SDK, for the mcp-tools
# goldens). Idempotent: each is reinstalled only when its requirements change.
set -euo pipefail
cd "$(dirname "$0")/../.."

# make_venv <dir> <requirements> <constraints>
make_venv() {
  local venv=$1 req=$2 constraints=$3
  local stamp="$venv/.requirements.sha256"
  local want
  want=$(cat "$req" "$constraints" | sha256sum | cut -d" " -f1)
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    echo "refs: $venv is up to date"
    return 0
  fi
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --ignore-requires-python -r "$req" -c "$constraints"
  echo "$want" > "$stamp"
  echo "refs: installed $(grep -c '==' "$req") reference packages into $venv"
}

make_venv .venv-refs scripts/refs/requirements.txt scripts/refs/constraints.txt
make_venv .venv-refs-mcp06 scripts/refs/requirements-mcp06.txt scripts/refs/constraints-mcp06.txt
