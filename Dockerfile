# The stocklab service image, shared by the three instances and the one-shot migrate service.
# The instances run an esbuild bundle of the service, as the native cluster's do (src/bundle.ts),
# written here once: under tsx every start compiled ~140 files again, 20 s and more for an
# instance's restart on a busy 2-core machine. The one-shot migrate and the live lab run under tsx.

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
# included) compiles it; the live page's bundle builds; the service's bundle is written.
RUN node --import tsx --input-type=module -e 'await import("./src/service.ts"); await import("./live/compose-servers.ts"); await (await import("./live/assets.ts")).bundlePage(); (await import("./src/bundle.ts")).writeBundle("src/main.ts", "dist/main.mjs")'
USER node
# HOST and PORT come from docker-compose.yml; 0.0.0.0 inside the container is reachable only
# through the ports compose publishes, and those are bound to 127.0.0.1.
CMD ["node", "--enable-source-maps", "dist/main.mjs"]
