# The stocklab service image, shared by the three instances and the one-shot migrate service.
# Runs the TypeScript with tsx. The native cluster runs an esbuild bundle of the same sources
# (src/cluster/service-bundle.ts), made by the transform tsx applies file by file.

# Stage 1: the runtime dependencies only (tsx is one; vitest and tsc are not).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# npm can fail and still exit 0 ("Exit handler never called!", e.g. after a TLS error), leaving a
# partial node_modules behind: check that every dependency and tsx's binary are really there.
RUN npm ci --omit=dev --no-audit --no-fund \
 && test -x node_modules/.bin/tsx \
 && node -e ' \
      const fs = require("fs"); \
      const deps = Object.keys(require("./package.json").dependencies); \
      const missing = deps.filter((d) => !fs.existsSync(`node_modules/${d}/package.json`)); \
      if (missing.length) { console.error("npm ci left out: " + missing.join(", ")); process.exit(1); }'

# Stage 2: the service; npm's cache and the install's leftovers stay in stage 1.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
COPY lua ./lua
# The live lab's server and page (the compose service `live`); what they import outside live/ is in src/.
COPY live ./live
# Every module the service and the live lab load resolves, and tsx (esbuild's platform binary
# included) compiles it; the live page's bundle builds.
RUN node --import tsx --input-type=module -e 'await import("./src/service.ts"); await import("./live/compose-servers.ts"); await (await import("./live/assets.ts")).bundlePage()'
USER node
# HOST and PORT come from docker-compose.yml; 0.0.0.0 inside the container is reachable only
# through the ports compose publishes, and those are bound to 127.0.0.1.
CMD ["node", "--import", "tsx", "src/main.ts"]
