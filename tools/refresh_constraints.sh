#!/usr/bin/env bash
# Refresh constraints.txt: the newest versions pyproject.toml allows, kept only if ruff and the whole suite pass.
#
#   tools/refresh_constraints.sh          # run by hand (e.g. monthly, or when a dependency's range changes)
#
# A fresh virtual environment gets `pip install -e '.[test]'` WITHOUT the old constraints, the suite runs in it, and
# only then is `pip freeze` (the project itself left out) written to constraints.txt. Review the diff and commit it.
set -euo pipefail
cd "$(dirname "$0")/.."
venv="$(mktemp -d)/venv"
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -e '.[test]'
"$venv/bin/python" -m ruff check .
"$venv/bin/python" -m pytest -q
{
    echo "# Versions the whole suite last passed with, on Python $("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')."
    echo "# Made by tools/refresh_constraints.sh; used by .ci/run and offered for deployments:"
    echo "#   pip install -c constraints.txt ."
    "$venv/bin/python" -m pip freeze --exclude-editable --exclude mjbot | LC_ALL=C sort -f
} > constraints.txt.new
mv constraints.txt.new constraints.txt
echo "constraints.txt refreshed:"
git --no-pager diff --stat -- constraints.txt || true
