# Shared by the scripts: find or install what the build and tests need,
# skipping whatever is already there, so a warm machine pays nothing.
WASM_BINDGEN_VERSION=0.2.129
TESTS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests"

log() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

ensure_build_tools() {
  export PATH="$HOME/.cargo/bin:$PATH"
  if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    log "installing the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
    log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes, once)"
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked
  fi
  ensure_node_deps
  WASM_OPT="$TESTS_DIR/node_modules/.bin/wasm-opt"
  # Debian's binaryen 108 corrupts the externref table; npm binaryen is new enough.
  local v
  v=$("$WASM_OPT" --version | grep -oE '[0-9]+' | head -1)
  [ "$v" -ge 116 ] || { echo "wasm-opt $v is too old (need >= 116)" >&2; return 1; }
}

ensure_node_deps() {
  command -v node >/dev/null || { echo "node (>= 20) is required" >&2; return 1; }
  local stamp="$TESTS_DIR/node_modules/.installed-lock"
  if [ ! -f "$stamp" ] || ! cmp -s "$TESTS_DIR/package-lock.json" "$stamp"; then
    log "installing the npm tool and test dependencies (tests/package.json)"
    (cd "$TESTS_DIR" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$TESTS_DIR/package-lock.json" "$stamp"
  fi
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
