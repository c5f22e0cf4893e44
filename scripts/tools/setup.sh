#!/usr/bin/env bash
# `npm run tools:setup`: developer tools that come from neither npm nor Debian, pinned, into the git-ignored
# .tools/bin: actionlint (checks the GitHub Actions workflow `skillshelf init` writes; a Go program, so
# `go install`). Idempotent: a tool already at its pinned version is left alone. .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/../.."
ACTIONLINT_VERSION=v1.7.12

bin="$PWD/.tools/bin"
if [ -x "$bin/actionlint" ] && [ "$("$bin/actionlint" --version | head -n 1)" = "$ACTIONLINT_VERSION" ]; then
  echo "actionlint $ACTIONLINT_VERSION already in .tools/bin"
  exit 0
fi
if ! command -v go >/dev/null; then
  echo "tools:setup: go is not on PATH; actionlint is installed with go install (https://go.dev/dl/)" >&2
  exit 1
fi
echo "installing actionlint $ACTIONLINT_VERSION into .tools/bin (go install)"
GOBIN="$bin" GOFLAGS=-mod=mod go install "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
"$bin/actionlint" --version | head -n 1
