# One image for every service: the command picks ingest, api or the simulator (docker-compose.yml).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY core/package.json core/
COPY db/package.json db/
COPY ingest/package.json ingest/
COPY api/package.json api/
COPY devices/package.json devices/
COPY dashboard/package.json dashboard/
COPY load/package.json load/
RUN npm ci
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 3000
CMD ["node", "api/dist/main.js"]
