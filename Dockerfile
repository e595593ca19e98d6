# syntax=docker/dockerfile:1
# Shiptrail: one image for every role (api, worker, or both), run as a non-root user.
# Build: docker build -t shiptrail .   Run: see deploy/compose.yaml and docs/operations.md.

# ---- build: install everything, build the web app
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Manifests first, so a source change does not reinstall the dependencies.
COPY package.json package-lock.json .npmrc ./
COPY scripts/postinstall.mjs scripts/postinstall.mjs
COPY apps/server/package.json apps/server/package.json
COPY apps/web/package.json apps/web/package.json
COPY packages/contract/package.json packages/contract/package.json
ENV PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build --workspace apps/web \
  # The server's TypeScript runs on Node's own type stripping (decision 144); dev dependencies stay for the
  # CLI scripts (tsx); only the web app's build tooling and caches that the server never loads are dropped.
  && rm -rf apps/web/node_modules/.vite apps/web/src apps/web/e2e bench docs

# ---- runtime
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    ADMIN_HOST=0.0.0.0 \
    ADMIN_PORT=9464 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000 9464
# Liveness on the admin port, which every role opens (the worker has no other port).
HEALTHCHECK --interval=15s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.ADMIN_PORT||9464)+'/livez').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node directly (not npm start): no web rebuild check at start, and SIGTERM reaches the server for a clean stop.
# Node 24 runs the TypeScript sources as they are (type stripping; decision 144).
CMD ["node", "apps/server/src/main.ts"]
