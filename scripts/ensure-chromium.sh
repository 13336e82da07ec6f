#!/usr/bin/env bash
# Installs Debian's Chromium for the browser tests when it is missing (Playwright never downloads a browser here).
set -euo pipefail
if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then exit 0; fi
bash "$(dirname "$0")/apt-install.sh" chromium "for the e2e tests"
