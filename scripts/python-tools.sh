#!/usr/bin/env bash
# The PyPI tools the checks use (schemathesis, vl-convert), pinned in scripts/python-tools.txt,
# in a virtual environment of their own: .build/python-tools (Debian's python3 refuses
# `pip install` outside one, PEP 668). Made or remade only when the pins changed; prints the
# environment's directory. Needs python3-venv (scripts/install-deps.sh installs it for tests).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/python-tools
stamp="$venv/pinned.txt"
if ! cmp -s scripts/python-tools.txt "$stamp" 2>/dev/null; then
  echo "installing the PyPI tools of scripts/python-tools.txt into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r scripts/python-tools.txt >&2
  cp scripts/python-tools.txt "$stamp"
fi
echo "$venv"
