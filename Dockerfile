# Punctual's container image (docs/deployment.md, "Containers").
#
#   docker build -t punctual .          (or podman build --format docker -t punctual .)
#   docker run -d -p 127.0.0.1:8080:8080 -v punctual-data:/data punctual
#
# Two stages: `build` installs every dependency with `npm ci` (better-sqlite3 compiled from source
# there), builds dist/ and drops the development dependencies; the runtime stage copies dist/ and
# the production node_modules into a slim image and runs as the user `node` (uid 1000).
#
# BUILD_IMAGE needs Node 20, npm and a C++ tool chain with python3 (node-gyp); BASE_IMAGE needs
# the same Node 20 (the compiled module is tied to its ABI) on a glibc at least as new as the
# builder's. The defaults are the official Node images; scripts/container-base.sh makes
# equivalents from Debian packages where no registry can be reached.
ARG BUILD_IMAGE=node:20-bookworm
ARG BASE_IMAGE=node:20-bookworm-slim

FROM ${BUILD_IMAGE} AS build
WORKDIR /app
# Compile better-sqlite3 here rather than download a prebuilt binary.
ENV npm_config_build_from_source=true \
    npm_config_update_notifier=false \
    npm_config_fund=false \
    npm_config_audit=false
# Dependencies first: this layer is reused while only the sources change. No lifecycle scripts
# (the package's own `prepare` builds, and needs the sources); then the one dependency whose
# install script is needed (package.json "allowScripts"): better-sqlite3's native module.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY console ./console
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM ${BASE_IMAGE}
WORKDIR /app
# DATABASE_URL is left unset (so DATABASE_URL_FILE may be used): its default, file:./data/punctual.db
# in the working directory /app, is in /data through the link /app/data.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The SQLite database and its key file (punctual.db.key) live in /data, owned by `node`, so that
# a new named volume mounted there is too.
RUN mkdir -p /data && chown node:node /data && ln -s /data /app/data
VOLUME ["/data"]
USER node
EXPOSE 8080
# No curl in a slim image: Node asks /healthz (200 while the process serves).
HEALTHCHECK --interval=10s --timeout=10s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node runs as PID 1 and handles SIGTERM itself: it stops taking requests, lets calls in flight
# finish within PUNCTUAL_SHUTDOWN_GRACE_MS (10 s) and exits 0. Give the container's stop timeout
# more than that (docker stop -t 15, compose stop_grace_period).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD ["serve"]
