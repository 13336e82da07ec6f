#!/usr/bin/env bash
# Builds SQLEnv for an OpenEnv / Hugging Face Docker Space in the repository this script sits in: the Dockerfile's
# one build step, and what tests/scripts/space-build.test.ts runs in a clean copy of the repository.
#
#   1. install  npm ci: every dependency, dev ones included (Vite builds the page; tsx runs the server's TypeScript).
#               SPACE_BUILD_NODE_MODULES=DIR links an installed node_modules instead (the suite's, to stay cheap).
#   2. page     npm run build: the demo data bundle (and Spider's when SPIDER_DIR is set), then Vite → dist/.
#   3. check    dist/index.html exists and the server starts far enough to print its usage.
#
# Output: dist/ and node_modules/ beside the sources; scripts/space-start.sh then serves both on port 8000.
set -euo pipefail
cd "$(dirname "$0")/.."
# onnxruntime-node's postinstall downloads its CUDA libraries from NuGet, outside the registry (and fails without
# network); its Linux CPU binaries ship in the package. package.json's `allowScripts` denies that script to npm
# 11.16 and later; the image's npm (node:20, npm 10) predates `allowScripts`, so the script's own variable skips it.
# (Not npm_config_…: npm 11 warns of an unknown config for that on every command.)
export ONNXRUNTIME_NODE_INSTALL=skip

step() { printf 'space-build: %s\n' "$*"; }

if [ -n "${SPACE_BUILD_NODE_MODULES:-}" ]; then
  step "install: linking ${SPACE_BUILD_NODE_MODULES}"
  [ -d "${SPACE_BUILD_NODE_MODULES}" ] || { echo "space-build: SPACE_BUILD_NODE_MODULES=${SPACE_BUILD_NODE_MODULES} is not a folder" >&2; exit 1; }
  rm -rf node_modules
  ln -s "${SPACE_BUILD_NODE_MODULES}" node_modules
else
  step "install: npm ci"
  npm ci --no-audit --no-fund
fi

step "page: npm run build"
npm run --silent build

step "check"
[ -f dist/index.html ] || { echo "space-build: the build wrote no dist/index.html" >&2; exit 1; }
node bin/sqlenv.mjs serve --help > /dev/null
step "done: start it with scripts/space-start.sh"
