# The gateway image: Node 20 running the TypeScript sources through tsx (a runtime
# dependency), with production dependencies only.

FROM node:20-bookworm-slim AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY schema ./schema
COPY seeds ./seeds
COPY src ./src
# The embedded database's default directory (used only when DATABASE_URL is unset).
RUN mkdir -p data && chown node:node data
# The image's own unprivileged user (uid 1000).
USER node
EXPOSE 4000
# node itself is PID 1, so `docker stop`'s SIGTERM reaches the gateway's shutdown handler
# (through `npm start` it would stop at the shell npm starts).
CMD ["node", "--import", "tsx", "src/main.ts", "serve"]
