#!/usr/bin/env bash
# Starts SQLEnv as a Space serves it (the Dockerfile's CMD): `sqlenv serve` on every interface at $PORT (8000), with
# the page at /web/. Hugging Face sets SPACE_HOST (`<user>-<space>.hf.space`) in a running Space; that name is then an
# allowed Host (the server refuses other names: DNS rebinding guard, docs/server-security.md). A token set as the
# Space secret SQLENV_TOKEN is required by the API (not by the page). Extra arguments go to `sqlenv serve`.
set -euo pipefail
cd "$(dirname "$0")/.."

args=(serve --host 0.0.0.0 --port "${PORT:-8000}")
if [ -n "${SPACE_HOST:-}" ]; then args+=(--allow-host "${SPACE_HOST%%:*}"); fi
exec node bin/sqlenv.mjs "${args[@]}" "$@"
