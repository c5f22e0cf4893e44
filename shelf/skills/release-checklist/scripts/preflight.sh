#!/bin/sh
# Release preflight: checks that a git repository is ready to tag a release.
# Usage: sh scripts/preflight.sh <version> [changelog-file]
#   <version>       the version to release, MAJOR.MINOR.PATCH with an optional
#                   pre-release suffix (1.4.0, 2.0.0-rc.1); a leading "v" is allowed
#   changelog-file  defaults to CHANGELOG.md; the check is skipped if it does not exist
# Environment: RELEASE_BRANCH (default: main), TAG_PREFIX (default: v)
# Exit status: 0 all checks passed, 1 a check failed, 2 usage error.
# Read-only: it never fetches, commits, tags or pushes.

set -u

usage() {
  echo "usage: sh preflight.sh <version> [changelog-file]" >&2
  exit 2
}

[ $# -ge 1 ] && [ $# -le 2 ] || usage
version=${1#v}
changelog=${2:-CHANGELOG.md}
branch_wanted=${RELEASE_BRANCH:-main}
prefix=${TAG_PREFIX-v}
tag="$prefix$version"
failures=0

ok() { echo "ok:   $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
note() { echo "note: $*"; }

# Semantic version: three numeric parts without leading zeros, optional
# pre-release (-rc.1) and build (+build.5) suffixes.
if echo "$version" | grep -Eq '^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$'; then
  ok "version $version is a semantic version"
else
  fail "version '$1' is not MAJOR.MINOR.PATCH (for example 1.4.0 or 2.0.0-rc.1)"
fi

if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  fail "not inside a git work tree; run this from the repository you are releasing"
  echo "$failures check(s) failed"
  exit 1
fi

branch=$(git symbolic-ref --quiet --short HEAD 2>/dev/null || echo "(detached HEAD)")
if [ "$branch" = "$branch_wanted" ]; then
  ok "on branch $branch"
else
  fail "on $branch, not $branch_wanted; check out $branch_wanted or set RELEASE_BRANCH"
fi

if [ -z "$(git status --porcelain 2>/dev/null)" ]; then
  ok "working tree is clean"
else
  fail "working tree has uncommitted or untracked changes; commit or stash them (git status)"
fi

if git rev-parse --verify --quiet "refs/tags/$tag" >/dev/null; then
  fail "tag $tag already exists; choose the next version"
else
  ok "tag $tag does not exist yet"
fi

if upstream=$(git rev-parse --abbrev-ref --symbolic-full-name '@{u}' 2>/dev/null); then
  ahead=$(git rev-list --count "$upstream..HEAD")
  behind=$(git rev-list --count "HEAD..$upstream")
  if [ "$ahead" -eq 0 ] && [ "$behind" -eq 0 ]; then
    ok "in sync with $upstream (as of the last git fetch)"
  else
    fail "$ahead commit(s) ahead of and $behind behind $upstream; push or pull first"
  fi
else
  note "branch has no upstream; cannot compare with the remote"
fi

if [ -f "$changelog" ]; then
  # A heading that mentions the version, e.g. "## 1.4.0", "## [1.4.0] - 2026-11-30".
  escaped=$(echo "$version" | sed 's/[.+]/\\&/g')
  if grep -Eq "^#+ (.*[^0-9A-Za-z.-])?v?$escaped([^0-9A-Za-z.-]|$)" "$changelog"; then
    ok "$changelog has an entry for $version"
  else
    fail "$changelog has no heading for $version; add the release notes first"
  fi
else
  note "$changelog not found; skipping the changelog check"
fi

if [ "$failures" -eq 0 ]; then
  echo "ready to tag $tag"
  exit 0
fi
echo "$failures check(s) failed"
exit 1
