#!/usr/bin/env bash
# Creates the example's hub repository, examples/team-hub/hub.git, from
# hub-src/ (a git repository is what a real team would publish; this one is
# local so the example runs offline). Run it again to publish a new commit.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$here/hub.git"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ ! -d "$repo" ]; then
	git init -q --bare -b main "$repo"
fi
git clone -q "$repo" "$work/clone" 2>/dev/null
cp -R "$here/hub-src/." "$work/clone/"
cd "$work/clone"
git checkout -q -B main
git add -A
if git -c user.name=example -c user.email=example@invalid commit -qm "publish team hub" 2>/dev/null; then
	git push -q origin main
	echo "published $(git rev-parse --short HEAD) to $repo"
else
	echo "nothing new to publish"
fi
