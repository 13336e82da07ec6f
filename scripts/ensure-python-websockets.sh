#!/usr/bin/env bash
# Installs Debian's python3-websockets for the Python client's tests (python/tests) when Debian's python3 lacks it.
set -euo pipefail
if /usr/bin/python3 -c 'import websockets' 2>/dev/null; then exit 0; fi
bash "$(dirname "$0")/apt-install.sh" python3-websockets "for the Python tests"
