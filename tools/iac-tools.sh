#!/usr/bin/env bash
# Runs cfn-lint or checkov (AWS's CloudFormation linter and an IaC security scanner), installed from the
# Python package index into the git-ignored .cache/iac virtual environment (a no-op once there):
#   tools/iac-tools.sh cfn-lint template.json
#   tools/iac-tools.sh checkov -f template.json --framework cloudformation
#   tools/iac-tools.sh --install        installs only
# If the install fails, the command does not run.
set -euo pipefail
cd "$(dirname "$0")/.."

home="$PWD/.cache/iac"
# Versions the findings were reviewed against (deploy/checkov.yaml); a newer checkov may add checks.
wanted="cfn-lint==1.* checkov==3.*"
if ! [[ -x "$home/bin/cfn-lint" && -x "$home/bin/checkov" && -f "$home/installed" && "$(cat "$home/installed")" == "$wanted" ]]; then
  command -v python3 >/dev/null || { echo "tools/iac-tools.sh needs python3 with venv and pip" >&2; exit 1; }
  rm -rf "$home"
  python3 -m venv "$home" >&2
  # shellcheck disable=SC2086
  PIP_ROOT_USER_ACTION=ignore "$home/bin/pip" install --quiet --disable-pip-version-check $wanted >&2
  echo "$wanted" > "$home/installed"
fi
[[ "${1:-}" == "--install" ]] && exit 0
tool="$1"
shift
exec "$home/bin/$tool" "$@"
