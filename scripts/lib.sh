# Shared by the scripts: find or install what the build and tests need,
# skipping whatever is already there, so a warm machine pays nothing.
WASM_BINDGEN_VERSION=0.2.129
ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TESTS_DIR="$ROOT_DIR/tests"
# Build tools only (wasm-opt, terser): what the demo needs from npm.
TOOLS_DIR="$ROOT_DIR/tools"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

ensure_build_tools() {
  export PATH="$HOME/.cargo/bin:$PATH"
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown || return 1
  fi
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked || return 1
  fi
  ensure_npm_deps "$TOOLS_DIR" "the npm build tools (tools/package.json)" || return 1
  WASM_OPT="$TOOLS_DIR/node_modules/.bin/wasm-opt"
  # Debian's binaryen 108 corrupts the externref table; npm binaryen is new enough.
  local v
  v=$("$WASM_OPT" --version | grep -oE '[0-9]+' | head -1)
  [ "${v:-0}" -ge 116 ] || { echo "wasm-opt $v is too old (need >= 116)" >&2; return 1; }
}

# ensure_npm_deps DIR WHAT: `npm ci` in DIR unless its node_modules already
# matches its lockfile (a stamp copied after the last install).
ensure_npm_deps() {
  command -v node >/dev/null || { echo "node (>= 20) is required" >&2; return 1; }
  local dir=$1 what=$2
  local stamp="$dir/node_modules/.installed-lock"
  if [ ! -f "$stamp" ] || ! cmp -s "$dir/package-lock.json" "$stamp"; then
    log "installing $what"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || return 1
    cp "$dir/package-lock.json" "$stamp"
  fi
}

# Everything the suites need: bundlers, runtimes, the real AI SDK and Mastra.
ensure_node_deps() {
  ensure_npm_deps "$TESTS_DIR" "the npm test dependencies (tests/package.json)"
}

ensure_chromium() {
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    log "installing chromium and chromium-driver from Debian"
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
  fi
}
