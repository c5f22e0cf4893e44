#!/usr/bin/env bash
# .ci/run's team step: a team's shelf repository made the way docs/teams.md says, from the packed package
# only. Packs skillshelf, installs the tarball into a scratch folder, runs `skillshelf init` from there into
# an empty folder outside the repository (init vendors the installed package as a tarball), installs that
# repository, and in it: validates, checks records and builds on the machine's Node (20 on CI); serves it
# with `npm run dev` (the pinned Node), reads a skill through the well-known index, /v1, /mcp and the pages
# with the printed read token; runs `wrangler deploy --dry-run`; and checks that nothing in it refers back
# to this checkout. Every process it starts is stopped; every wait is bounded.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
dev_group=""
cleanup() {
  if [ -n "$dev_group" ]; then
    kill -TERM -- -"$dev_group" 2>/dev/null || true
    for _ in $(seq 1 15); do kill -0 -- -"$dev_group" 2>/dev/null || break; sleep 1; done
    kill -KILL -- -"$dev_group" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "system node: $(command -v node) $(node --version)"
case "$(command -v node)" in "$repo"/node_modules/*) echo "expected the system node, not the pinned one" >&2; exit 1 ;; esac

tarball=$(cd "$repo" && npm pack --pack-destination "$tmp" --silent | tail -n 1)
mkdir "$tmp/cli" && cd "$tmp/cli" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "$tmp/$tarball"

echo "--- skillshelf init (the installed CLI, on $(node --version))"
"$tmp/cli/node_modules/.bin/skillshelf" init "$tmp/acme-skills" --exclude release-checklist
cd "$tmp/acme-skills"
ls vendor
# Quiet on the machine's Node 20: the .npmrc init writes keeps npm to errors (no EBADENGINE lines).
npm install --no-audit --no-fund 2>&1 | tee "$tmp/install.log"
if grep -q "EBADENGINE" "$tmp/install.log"; then echo "npm install printed EBADENGINE warnings" >&2; exit 1; fi
[ -d node_modules/skillshelf ] && [ ! -L node_modules/skillshelf ] || { echo "node_modules/skillshelf is not an installed copy" >&2; exit 1; }

echo "--- validate, check records and build on $(node --version)"
node_modules/.bin/skillshelf validate shelf
node_modules/.bin/skillshelf attest shelf --all --check >/dev/null
node_modules/.bin/skillshelf build shelf --out .skillshelf/build

echo "--- npm run dev (the pinned Node) and a read of each protocol"
port=$(node "$repo/scripts/free-port.mjs")
log="$tmp/dev.log"
setsid timeout 300 npm run dev -- --port "$port" >"$log" 2>&1 &
dev_group=$!
for _ in $(seq 1 150); do
  grep -q "Press Ctrl+C" "$log" && break
  kill -0 "$dev_group" 2>/dev/null || { cat "$log" >&2; echo "npm run dev exited" >&2; exit 1; }
  sleep 1
done
grep -q "Press Ctrl+C" "$log" || { cat "$log" >&2; echo "npm run dev did not start within 150 s" >&2; exit 1; }
token=$(cat .skillshelf/read-token)
url="http://127.0.0.1:$port"
auth=(-H "Authorization: Bearer $token")
status=$(curl -s -o /dev/null -w '%{http_code}' -m 10 "$url/skills/index.json")
[ "$status" = 401 ] || { echo "an anonymous read answered $status, not 401: the team shelf is not private" >&2; exit 1; }
# Each answer is read whole before it is searched (grep -q would close the pipe on curl early).
expect_in() { local what=$1 body=$2; grep -qF -- "$what" <<<"$body" || { echo "expected $what in: ${body:0:500}" >&2; exit 1; }; }
expect_in '"name":"code-review"' "$(curl -fsS -m 10 "${auth[@]}" "$url/.well-known/agent-skills/index.json")"
expect_in '"name":"code-review"' "$(curl -fsS -m 10 "${auth[@]}" "$url/v1/skills/code-review")"
mcp=$(curl -fsS -m 10 "${auth[@]}" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
  -H 'MCP-Protocol-Version: 2025-06-18' -X POST "$url/mcp" \
  -d '{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"skill://code-review/SKILL.md"}}')
expect_in 'name: code-review' "$mcp"
expect_in '<h1' "$(curl -fsS -m 10 "${auth[@]}" "$url/ui/skills/code-review")"
echo "read code-review through the well-known index, /v1, /mcp and the pages of $url"

echo "--- wrangler deploy --dry-run"
npx wrangler deploy --dry-run --outdir "$tmp/dry" >/dev/null
ls -la "$tmp/dry"

echo "--- nothing refers back to the checkout"
if grep -rIl --exclude-dir=node_modules --exclude-dir=.wrangler -F "$repo" . ; then
  echo "the files above name $repo" >&2; exit 1
fi
echo "team repository checked: init, install, validate, build, dev, reads, dry-run deploy"
