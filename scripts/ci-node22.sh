#!/usr/bin/env bash
# The whole suite (`npm test`) under Node 22 LTS, besides the machine's own Node (docs/decisions.md,
# "Versión de Node"). Node 22 comes from the npm registry's `node` package, installed into a
# folder of its own outside the project; the suite runs in a copy of the checkout whose
# node_modules is installed by `npm ci` under Node 22, so better-sqlite3 and pkcs11js are
# compiled against Node 22's headers (the ones the `node` package ships) while the checkout's own
# node_modules stays built for the machine's Node.
#
#   bash scripts/ci-node22.sh                  the whole suite (npm test)
#   bash scripts/ci-node22.sh test/unit/x.test.ts …   only these files (npx vitest run FILES)
#   bash scripts/ci-node22.sh -- npm run bench -- startup   any command, in the copy, with Node 22
#
# SELLO_NODE22_PREFIX  where Node 22 is installed (kept between runs; default $TMPDIR/sello-node22-runtime)
# SELLO_NODE22_WORK    where the copy goes (default: a new temporary folder, removed at the end)
# SELLO_NODE22_KEEP=1  keep the copy afterwards
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="${TMPDIR:-/tmp}"
prefix="${SELLO_NODE22_PREFIX:-$tmp/sello-node22-runtime}"
work="${SELLO_NODE22_WORK:-$(mktemp -d "$tmp/sello-node22.XXXXXX")}"
started=$SECONDS

stage() { printf '[node22 %4ss] %s\n' "$((SECONDS - started))" "$*"; }

cleanup() {
  if [[ "${SELLO_NODE22_KEEP:-}" != 1 && -z "${SELLO_NODE22_WORK:-}" ]]; then rm -rf "$work"; fi
}
trap cleanup EXIT

# 1. Node 22 from the npm registry (the `node` package fetches the binary of this platform as
#    another registry package, node-<os>-<arch>, with the headers node-gyp needs).
stage "Node 22 en $prefix"
if ! "$prefix/node_modules/node/bin/node" --version 2>/dev/null | grep -q '^v22\.'; then
  mkdir -p "$prefix"
  npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error node@22
fi
node_home=""
for candidate in "$prefix"/node_modules/node/node_modules/node-*/; do
  if [[ -x "$candidate/bin/node" && -f "$candidate/include/node/node.h" ]]; then node_home="${candidate%/}"; break; fi
done
if [[ -z "$node_home" ]]; then
  echo "No se encontró Node 22 con sus cabeceras en $prefix/node_modules/node/node_modules/node-*/" >&2
  exit 1
fi
stage "$("$node_home/bin/node" --version) en $node_home"

# 2. A copy of the checkout (tracked and new files, as they are now), with shared/ beside it as
#    the suite expects.
stage "copia del proyecto en $work/main"
mkdir -p "$work/main"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf -) | tar -xf - -C "$work/main"
if [[ -d "$root/../shared" && ! -e "$work/shared" ]]; then ln -s "$(cd "$root/../shared" && pwd)" "$work/shared"; fi

# 3. npm ci under Node 22: npm and every install script (node-gyp) run on the Node first in PATH,
#    and npm_config_nodedir points node-gyp at Node 22's headers (it overrides a nodedir in ~/.npmrc).
export PATH="$node_home/bin:$PATH"
export npm_config_nodedir="$node_home"
cd "$work/main"
stage "npm ci con $(node --version)"
npm ci --no-audit --no-fund
node -e "new (require('better-sqlite3'))(':memory:').close(); require('pkcs11js'); console.log('módulos nativos cargados en Node', process.version)"

# 4. The whole suite, the files named, or the command after `--`.
if [[ "${1:-}" == "--" ]]; then
  shift
  stage "$* con $(node --version)"
  "$@"
elif [[ $# -gt 0 ]]; then
  stage "vitest run $* con $(node --version)"
  npx vitest run "$@"
else
  stage "npm test con $(node --version)"
  npm test
fi
stage "terminado"
