#!/usr/bin/env bash
# Base images for building and testing the container image without a container registry.
#
# The Dockerfile's defaults are the official Node images (node:20-bookworm to build,
# node:20-bookworm-slim to run). Where no registry can be reached (CI here), this script makes
# equivalent bases from Debian packages (Debian 13 ships Node 20) with mmdebstrap:
#
#   punctual-node-build   nodejs 20, npm 10, build-essential, python3, the Node headers
#                         (libnode-dev; npm_config_nodedir=/usr, so node-gyp downloads nothing)
#   punctual-node-base    nodejs 20, CA certificates, the user `node` (uid 1000)
#   punctual-postgres     PostgreSQL 15 (Debian 12) with an entry point that reads the subset of
#                         the official postgres image's variables compose.yaml uses
#                         (POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD[_FILE])
#
# Each is tagged with a hash of its inputs (the marked part of this file, the mirror), kept as a tarball in a cache
# directory outside the repository ($PUNCTUAL_CONTAINER_CACHE, default /var/cache/punctual-ci) and
# imported into podman only when podman lacks it. A cold build (no tarball) is timed and the time
# printed on stderr.
#
# Output (stdout), for `podman build --build-arg` and compose:
#   BUILD_IMAGE=localhost/punctual-node-build:<hash>
#   BASE_IMAGE=localhost/punctual-node-base:<hash>
#   POSTGRES_IMAGE=localhost/punctual-postgres:<hash>
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
cache="${PUNCTUAL_CONTAINER_CACHE:-/var/cache/punctual-ci}"
export CONTAINERS_CONF="${CONTAINERS_CONF:-$here/../test/container/containers.conf}"
mirror="${PUNCTUAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}"

# mmdebstrap's helpers (mmtarfilter) run `env python3` once per package: take the system's python3,
# not a version manager's shim found first on PATH (it made the cold build several times slower).
export PATH="/usr/sbin:/usr/bin:/sbin:/bin:$PATH"

log() { printf 'container-base: %s\n' "$*" >&2; }

for tool in podman mmdebstrap; do
  command -v "$tool" >/dev/null || { log "$tool is missing (apt-get install -y podman runc mmdebstrap)"; exit 1; }
done
mkdir -p "$cache"

# The keys: what goes into the bases (the lines between the two "inputs" marks below, the mirror;
# for PostgreSQL its entry point too), not the rest of this file.
inputs="$(sed -n '/^# --- inputs: begin/,/^# --- inputs: end/p' "$0"; echo "$mirror")"
node_key="$(echo "$inputs" | sha256sum | cut -c1-12)"
postgres_key="$( (echo "$inputs"; cat "$here/container-postgres-entrypoint.sh") | sha256sum | cut -c1-12)"
build_image="localhost/punctual-node-build:$node_key"
base_image="localhost/punctual-node-base:$node_key"
postgres_image="localhost/punctual-postgres:$postgres_key"

# --- inputs: begin
npm_version=10.9.4
# Leaner root file systems: no documentation, manual pages or translations.
slim=(--dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*')
add_node_user='echo "node:x:1000:1000::/home/node:/bin/sh" >>"$1/etc/passwd"; echo "node:x:1000:" >>"$1/etc/group"; mkdir -p "$1/home/node"; chown 1000:1000 "$1/home/node"'

# The key of a base.
key_of() { if [ "$1" = postgres ]; then echo "$postgres_key"; else echo "$node_key"; fi; }

# make_tar NAME: builds $cache/NAME-<key>.tar (a root file system) unless it is there.
make_tar() {
  local name="$1" out="$cache/$1-$(key_of "$1").tar" work
  [ -s "$out" ] && return 0
  work="$(mktemp -d)"
  case "$name" in
    node-build)
      npm pack "npm@$npm_version" --pack-destination "$work" --loglevel=error >/dev/null
      mmdebstrap --quiet --variant=apt --include=nodejs,libnode-dev,build-essential,python3,ca-certificates "${slim[@]}" \
        --customize-hook="$add_node_user" \
        --customize-hook="mkdir -p \"\$1/usr/local/lib/node_modules/npm\" && tar -xzf $work/npm-*.tgz -C \"\$1/usr/local/lib/node_modules/npm\" --strip-components=1 --no-same-owner && ln -s ../lib/node_modules/npm/bin/npm-cli.js \"\$1/usr/local/bin/npm\" && ln -s ../lib/node_modules/npm/bin/npx-cli.js \"\$1/usr/local/bin/npx\"" \
        trixie "$work/out.tar" "$mirror" ;;
    node-base)
      mmdebstrap --quiet --variant=apt --include=nodejs,ca-certificates "${slim[@]}" \
        --customize-hook="$add_node_user" \
        --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
        trixie "$work/out.tar" "$mirror" ;;
    postgres)
      mmdebstrap --quiet --variant=apt --include=postgresql-15 "${slim[@]}" \
        --customize-hook='rm -rf "$1"/var/lib/postgresql/15 "$1"/etc/postgresql/15 "$1"/var/lib/apt/lists/*' \
        --customize-hook='mkdir -p "$1"/var/lib/postgresql/data "$1"/var/run/postgresql && chroot "$1" chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql && chmod 700 "$1"/var/lib/postgresql/data' \
        --customize-hook="install -m 0755 '$here/container-postgres-entrypoint.sh' \"\$1/usr/local/bin/docker-entrypoint.sh\"" \
        bookworm "$work/out.tar" "$mirror" ;;
  esac
  mv "$work/out.tar" "$out"
  rm -rf "$work"
}

build_changes=('ENV npm_config_nodedir=/usr' 'CMD ["node"]')
base_changes=('CMD ["node"]')
postgres_changes=('ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  'ENV PGDATA=/var/lib/postgresql/data' 'USER postgres' 'EXPOSE 5432' 'STOPSIGNAL SIGINT'
  'ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]')
# --- inputs: end

# import NAME IMAGE CHANGES...: imports the tarball as IMAGE unless podman has it.
import() {
  local name="$1" image="$2"
  shift 2
  podman image exists "$image" && return 0
  local args=()
  for change in "$@"; do args+=(--change "$change"); done
  podman import --quiet "${args[@]}" "$cache/$name-$(key_of "$name").tar" "$image" >/dev/null
  log "imported $image"
}

missing=()
for name in node-build node-base postgres; do [ -s "$cache/$name-$(key_of "$name").tar" ] || missing+=("$name"); done
if [ "${#missing[@]}" -gt 0 ]; then
  log "building the bases ${missing[*]} from Debian packages (cold: no cache in $cache)"
  start=$(date +%s)
  pids=()
  for name in "${missing[@]}"; do make_tar "$name" & pids+=($!); done
  for pid in "${pids[@]}"; do wait "$pid"; done
  log "cold build of the bases took $(( $(date +%s) - start )) s"
  # Tarballs of earlier inputs are of no further use.
  find "$cache" -maxdepth 1 -name '*.tar' ! -name "*-$node_key.tar" ! -name "*-$postgres_key.tar" -delete
fi

import node-build "$build_image" "${build_changes[@]}"
import node-base "$base_image" "${base_changes[@]}"
import postgres "$postgres_image" "${postgres_changes[@]}"

echo "BUILD_IMAGE=$build_image"
echo "BASE_IMAGE=$base_image"
echo "POSTGRES_IMAGE=$postgres_image"
