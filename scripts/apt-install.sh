#!/usr/bin/env bash
# `bash scripts/apt-install.sh PACKAGE WHY`: installs one Debian package quietly (with sudo when not root). The
# ensure-*.sh scripts call it only when what they need is missing.
set -euo pipefail
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "Installing Debian's $1 $2…" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$1" >&2
