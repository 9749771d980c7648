# syntax=docker/dockerfile:1
# The svc payments server. Build: docker build -t svc-payments .   Run: see compose.yaml and the
# README section "Operating it". Node 20 on Debian bookworm slim, pinned to an exact release: a
# rebuild gets the same base until this line is changed on purpose.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# Stage 1: production dependencies only. The lock file is the whole truth: npm ci, never npm install.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# Stage 2: the build: every dependency (TypeScript and Vite are development ones), then src/ compiled
# to JavaScript in dist/ with the files it reads at run time (migrations, page assets), and the
# dashboard console built by Vite into dist/console/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY src ./src
COPY console ./console
RUN npm run build

# Stage 3: the runtime image: production dependencies and the compiled JavaScript, nothing else (no
# sources, no TypeScript compiler or loader, no npm cache, no tests, no dev tools).
FROM ${NODE_IMAGE} AS runtime
# HOST=0.0.0.0 is where the server listens in the container, never an address it hands out: set
# PUBLIC_URL (docker run -e PUBLIC_URL=https://payments.example.com) to the address buyers reach,
# required with ENVIRONMENT=production. Without it a sandbox hands out http://127.0.0.1:PORT links.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/var/lib/svc
WORKDIR /app
COPY --from=deps --chown=root:root /app/node_modules ./node_modules
COPY --chown=root:root package.json ./
COPY --chown=root:root bin ./bin
COPY --from=build --chown=root:root /app/dist ./dist
# The code belongs to root and is read-only for the server; only DATA_DIR (the bootstrap key file)
# is writable, by the unprivileged `node` user (uid 1000) of the base image.
RUN mkdir -p /var/lib/svc && chown node:node /var/lib/svc && chmod 0700 /var/lib/svc
VOLUME ["/var/lib/svc"]
USER node:node
EXPOSE 8080
# Ready = the process answers and its database is reachable (GET /readyz). Node's own fetch: the
# slim image has no curl.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself (no shell, no npm in between); the server
# stops accepting, finishes requests in flight and closes the database (src/server.ts). The node
# flags are npm start's (package.json): a 64 MB young generation, no pretenuring (README, "Memory").
STOPSIGNAL SIGTERM
CMD ["node", "--max-semi-space-size=64", "--no-allocation-site-pretenuring", "bin/svc.mjs", "serve"]
