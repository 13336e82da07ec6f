#!/usr/bin/env bash
# Installs Debian's Vulkan loader (libvulkan1) when it is missing: Dawn (the npm package 'webgpu') loads it to reach a
# Vulkan driver, here Chromium's SwiftShader (src/gpu/node/node-gpu.ts), for the GPU checks and the CLI in Node.
set -euo pipefail
if ldconfig -p 2>/dev/null | grep -q 'libvulkan\.so\.1 '; then exit 0; fi
bash "$(dirname "$0")/apt-install.sh" libvulkan1 "for WebGPU in Node"
