# The stocklab service image, shared by the three instances and the one-shot migrate service.
# Runs the TypeScript with tsx, as the native cluster does, so both run the same code the same way.
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
# tsx is a runtime dependency; dev tools (vitest, tsc) are not needed in the image
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
COPY lua ./lua
USER node
# HOST and PORT come from docker-compose.yml; 0.0.0.0 inside the container is reachable only
# through the ports compose publishes, and those are bound to 127.0.0.1.
CMD ["node", "--import", "tsx", "src/main.ts"]
