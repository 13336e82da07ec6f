#!/usr/bin/env bash
# Installs what the Python client's tests (python/tests) need on Debian's python3 when it lacks it: python3-websockets
# (the client's transport) and python3-pydantic (the typed models, python/sqlenv_client/models.py; bookworm has 1.10),
# and mypy (the client's type check, the python-types suite of scripts/test-all.mjs).
set -euo pipefail
if ! /usr/bin/python3 -c 'import websockets' 2>/dev/null; then
  bash "$(dirname "$0")/apt-install.sh" python3-websockets "for the Python tests"
fi
if ! /usr/bin/python3 -c 'import pydantic' 2>/dev/null; then
  bash "$(dirname "$0")/apt-install.sh" python3-pydantic "for the Python tests"
fi
if ! command -v mypy >/dev/null 2>&1; then
  bash "$(dirname "$0")/apt-install.sh" mypy "for the Python client's type check"
fi
