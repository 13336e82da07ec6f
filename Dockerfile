# SQLEnv as an OpenEnv environment in a Hugging Face Docker Space (or any container runtime): `sqlenv serve` on port
# 8000 with OpenEnv's HTTP/WebSocket API, MCP at /mcp, the API description at /openapi.json and /docs, and the whole
# web app at /web/ (`/` redirects there). Build and start are one script each, so what CI runs is what ships:
# scripts/space-build.sh (tests/scripts/space-build.test.ts runs it in a clean copy) and scripts/space-start.sh.
#
#   docker build -t sqlenv .
#   docker run --rm -p 8000:8000 sqlenv        # then http://localhost:8000/web/
#
# Data: the generated demo dataset only (Spider is not in the image; see README for serving it).
FROM node:20-bookworm-slim

# Hugging Face runs a Space's container as uid 1000: the image's `node` user. Everything is built as that user,
# so the running server owns its files.
USER node
WORKDIR /home/node/app
COPY --chown=node:node . .
RUN bash scripts/space-build.sh

ENV PORT=8000
EXPOSE 8000
# The server answers /health without a token; node's fetch stands in for curl, which the slim image lacks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
CMD ["bash", "scripts/space-start.sh"]
