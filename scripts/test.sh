#!/usr/bin/env bash
# Installs what is missing, builds and packs the package, installs the
# tarball into throwaway consumers, runs every suite and ends with
# "N passed, N failed" (also when it stops early). Exit status is non-zero
# if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

started=$(date +%s)
rm -f tests/.work/bundle-sizes.txt
declare -a names=() passes=() fails=()
total_pass=0
total_fail=0

# record NAME PASSED FAILED
record() {
  names+=("$1"); passes+=("$2"); fails+=("$3")
  total_pass=$((total_pass + $2)); total_fail=$((total_fail + $3))
}

# The table, the bundle sizes the bundler suites measured, the summary line.
summary() {
  echo
  printf '%-52s %7s %7s\n' suite passed failed
  for i in "${!names[@]}"; do printf '%-52s %7s %7s\n' "${names[$i]}" "${passes[$i]}" "${fails[$i]}"; done
  if [ -s tests/.work/bundle-sizes.txt ]; then
    echo
    echo "bundle sizes of the minimal apps:"
    sed 's/^/  /' tests/.work/bundle-sizes.txt
  fi
  echo "took $(( $(date +%s) - started ))s"
  echo "$total_pass passed, $total_fail failed"
}

# stop NAME: counts NAME as one failure and ends the run, still summarised.
stop() {
  echo "test.sh: stopping: $1" >&2
  record "$1" 0 1
  summary
  exit 1
}

ensure_build_tools || stop "setup: build tools (rust target, wasm-bindgen, tools/)"
ensure_node_deps || stop "setup: npm test dependencies (tests/)"
ensure_chromium || stop "setup: chromium"
log "setup done in $(( $(date +%s) - started ))s"

scripts/build.sh || stop "build (scripts/build.sh)"

log "packing the tarball and installing it into tests/consumers/*"
work=tests/.work
rm -rf "$work" && mkdir -p "$work"
tarball=$(cd pkg && npm pack --silent --pack-destination "../$work" | tail -1)
[ -n "$tarball" ] && [ -f "$work/$tarball" ] || stop "npm pack"
# --prefer-offline, never --offline: the tarball's own dependency needs its
# registry metadata, which an empty npm cache (a new machine, CI) does not
# hold; the first consumer fetches it, the others read it from the cache.
for consumer in tests/consumers/*/; do
  rm -rf "$consumer/node_modules"
  (cd "$consumer" && npm install --no-save --no-package-lock --no-audit --no-fund --prefer-offline --loglevel=error "../../.work/$tarball") >/dev/null \
    || stop "installing the tarball into $consumer"
done

# A suite whose runner crashed before reporting counts as one failure.
run_cargo() {
  local name=$1; shift
  log "suite: $name"
  local out status p f
  out=$("$@" 2>&1); status=$?
  printf '%s\n' "$out" | grep -E "^test |test result:|panicked|error(\[|:)" | grep -v " ... ok$" || true
  p=$(printf '%s\n' "$out" | grep -oE "test result: [a-zA-Z]+\. [0-9]+ passed" | grep -oE "[0-9]+ passed" | awk '{s+=$1} END {print s+0}')
  f=$(printf '%s\n' "$out" | grep -oE "[0-9]+ failed" | awk '{s+=$1} END {print s+0}')
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; printf '%s\n' "$out" | tail -20; fi
  record "$name" "$p" "$f"
}

# A check that passes or fails as a whole (formatting, lints): one count.
run_check() {
  local name=$1; shift
  log "check: $name"
  local out
  if out=$("$@" 2>&1); then
    record "$name" 1 0
  else
    # Each distinct message (or file, for rustfmt) once, with its count.
    local seen
    seen=$(printf '%s\n' "$out" | grep -E "^(error|warning)(\[[A-Za-z0-9_]+\])?:|^Diff in " \
      | sed -E 's/^(Diff in .*\.rs):[0-9]+:$/\1/' | sort | uniq -c | sort -rn)
    printf '%s\n' "$seen" | head -12
    [ "$(printf '%s\n' "$seen" | wc -l)" -le 12 ] || echo "  ... $(printf '%s\n' "$seen" | wc -l) distinct lines in all"
    printf '%s\n' "$out" | tail -3
    record "$name" 0 1
  fi
}

# NODE picks the Node binary (default: the machine's); the second Node version
# comes from the npm registry as tests/node_modules/.bin/node. Lines a suite
# reports with `t.diagnostic('report: ...')` are printed.
run_node() {
  local name=$1; shift
  log "suite: $name"
  local out status p f
  out=$("${NODE:-node}" --test --test-reporter=tap "$@" 2>&1); status=$?
  printf '%s\n' "$out" | grep -E "^\s*not ok" -A12 || true
  printf '%s\n' "$out" | grep -E "^\s*# report: " | sed -E 's/^\s*# report: /  /' || true
  p=$(printf '%s\n' "$out" | grep -E "^# pass " | awk '{print $3}')
  f=$(printf '%s\n' "$out" | grep -E "^# fail " | awk '{print $3}')
  p=${p:-0}; f=${f:-0}
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; printf '%s\n' "$out" | tail -30; fi
  record "$name" "$p" "$f"
}

export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export CHROMEDRIVER=${CHROMEDRIVER:-$(command -v chromedriver)}

run_check "cargo fmt --all --check" cargo fmt --all --check
run_check "cargo clippy --workspace --all-targets (native)" cargo clippy --quiet --workspace --all-targets -- -D warnings
run_check "cargo clippy --workspace --all-targets (wasm32)" cargo clippy --quiet --workspace --target wasm32-unknown-unknown --all-targets -- -D warnings
run_check "tsc --checkJs (src/js)" "$TESTS_DIR/node_modules/.bin/tsc" -p src/js
run_cargo "rust core (native)" cargo test --quiet --workspace
run_cargo "binding in Node (wasm-bindgen-test)" cargo test --target wasm32-unknown-unknown --test wasm
WASM_BINDGEN_USE_BROWSER=1 run_cargo "binding in Chromium (wasm-bindgen-test)" cargo test --target wasm32-unknown-unknown --test wasm
run_node "tarball: Node ESM" tests/consumers/node-esm/*.test.mjs
run_node "tarball: Node CJS" tests/consumers/node-cjs/*.test.cjs
node22="$TESTS_DIR/node_modules/.bin/node"
NODE=$node22 run_node "tarball: Node $("$node22" --version) ESM" tests/consumers/node-esm/*.test.mjs
NODE=$node22 run_node "tarball: Node $("$node22" --version) CJS" tests/consumers/node-cjs/*.test.cjs
run_node "tarball: Chromium page" tests/consumers/browser/*.test.mjs
run_node "tarball: workerd (Miniflare)" tests/consumers/workerd/*.test.mjs
run_node "tarball: Vite 8 and 6 app (build, dev server)" tests/consumers/vite/*.test.mjs
run_node "tarball: esbuild bundles (browser, Node; the integrations in Chromium)" tests/consumers/esbuild/*.test.mjs
run_node "tarball: wrangler Worker bundles in workerd (the integrations too)" tests/consumers/wrangler/*.test.mjs
run_node "tarball: TypeScript consumer (ESM, strict)" tests/consumers/typescript/*.test.mjs
run_node "tarball: TypeScript consumer (CommonJS)" tests/consumers/typescript-cjs/*.test.mjs
run_node "tarball: TypeScript types per condition" tests/consumers/typescript-conditions/*.test.mjs
run_node "tarball: ai 7 + Mastra defaults, strict TS" tests/consumers/ai-defaults/*.test.mjs
run_node "tarball: observeAISdk + trajectoryMiddleware in ai 7 loops, strict TS" tests/consumers/ai-sdk-loop/*.test.mjs
run_node "tarball: agent-trajectories/otel with the OpenTelemetry SDK, strict TS" tests/consumers/otel/*.test.mjs
run_node "tarball: agent-trajectories/vitest matchers in a vitest 4 project, strict TS" tests/consumers/vitest/*.test.mjs
run_node "tarball: observeMastra in @mastra/core agents, strict TS" tests/consumers/mastra/*.test.mjs
run_node "tarball: BackgroundAgentRunner (zod, ai tool(), replay, faults), strict TS" tests/consumers/background/*.test.mjs
run_node "README examples" tests/js/readme.test.mjs
run_node "a file's kind (www/kind.js): what the viewer page and the command read" tests/js/kind.test.mjs
run_node "API reference (target/api, built by the build): pages and links" tests/js/api-reference.test.mjs
# The tarball unpacked as it lands in node_modules: the viewer serves the
# package's files from it, and the index suite imports it by path.
mkdir -p "$work/tarball"
if tar -xzf "$work/$tarball" -C "$work/tarball"; then
  export PACKAGE_DIR="$PWD/$work/tarball/package"
  run_node "tarball: TrajectoryIndex in Node" tests/js/index.test.mjs
  run_node "tarball: each entry's exports are its .d.ts's values" tests/js/exports.test.mjs
  run_node "tarball: the declared unions are the core's words (enum parity)" tests/js/vocabulary.test.mjs
  run_node "tarball: the command line's nearest-word rule is the core's" tests/js/nearest.test.mjs
  run_node "viewer (www/) in Chromium: served, and one file from file://" tests/js/viewer.test.mjs
  run_node "tarball: JUnit and annotations escaping (agent-trajectories/report), against the Jenkins and Ant schemas" tests/js/junit.test.mjs
else
  record "unpacking the tarball" 0 1
fi
TARBALL="$PWD/$work/$tarball" run_node "tarball: npx agent-trajectories (report, compare, view) and agent-trajectories/report; JUnit against the Jenkins and Ant schemas" tests/js/cli.test.mjs
run_node "static server (scripts/serve.mjs)" tests/js/serve.test.mjs
run_node "benchmarks, smoke run (tests/bench/all.mjs --quick: every hot path runs; timings not judged)" tests/bench/all.test.mjs
# Seeded, and the seed is printed. CI runs a fixed seed so a landing is
# reproducible; FUZZ_SEED (say, today's date) and FUZZ_INPUTS explore more on demand.
FUZZ_SEED=${FUZZ_SEED:-20261123} FUZZ_INPUTS=${FUZZ_INPUTS:-100000} run_node "tarball: fuzz of every export (seeded)" tests/consumers/fuzz/*.test.mjs

summary
[ "$total_fail" -eq 0 ]
