# One image for the five apps; APP picks which one a container runs.
FROM node:20-bookworm-slim AS build
WORKDIR /repo
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN node scripts/build.mjs && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /repo/node_modules ./node_modules
COPY --from=build /repo/dist ./dist
COPY --from=build /repo/package.json ./package.json
# DATA_DIR: listings keeps its instance identity there even with the production stores.
RUN mkdir -p /data && chown node:node /data
USER node
ARG APP=gateway
ENV APP=${APP}
CMD ["sh", "-c", "exec node --enable-source-maps dist/apps/${APP}/src/main.js"]
