# The gateway image: Node 20 running the production bundle (`npm run build`: the sources and
# the pure-JavaScript packages in dist/server, the seeding code in a chunk serving never loads,
# ready in about half a second), with production dependencies only for what stays outside the
# bundle (PGlite's WebAssembly, pino's transports, Swagger UI's and GraphiQL's assets).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json ./
RUN npm ci --no-audit --no-fund
COPY schema ./schema
COPY seeds ./seeds
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
# The commit the image is built from, for `catalogue_build_info` (the image has no git
# checkout): `docker build --build-arg BUILD_COMMIT=$(git rev-parse HEAD) .`
ARG BUILD_COMMIT=""
ENV BUILD_COMMIT=$BUILD_COMMIT
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The embedded database's default directory (used only when DATABASE_URL is unset).
RUN mkdir -p data && chown node:node data
# The image's own unprivileged user (uid 1000).
USER node
EXPOSE 4000
# node itself is PID 1, so `docker stop`'s SIGTERM reaches the gateway's shutdown handler
# (through npm it would stop at the shell npm starts).
CMD ["node", "dist/server/main.mjs", "serve"]
