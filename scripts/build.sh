#!/usr/bin/env bash
# Builds the npm package into pkg/: cargo (wasm32, release) -> wasm-bindgen
# (web glue; the CommonJS entry requires the ES module, so one copy ships)
# -> wasm-opt -> entries, types and package.json. Prints sizes and fails
# over the gzip budget.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
# 400 KB gzip for the whole package as shipped: the .wasm, the glue, the JS
# layer and every entry (the project's budget; the table below sums them).
BUDGET_GZIP_BYTES=${BUDGET_GZIP_BYTES:-409600}

. scripts/lib.sh
ensure_build_tools

# Panic locations name source files: keep this machine's paths (the cargo
# registry, the checkout) out of the shipped module, and short (the
# crates.io sources' directory is named the same on every machine).
# WebAssembly SIMD (simd128): every runtime the package supports has it
# (Chromium 91+, Firefox 89+, Safari 16.4+, Node 16.4+, workerd), and the
# runtime suites load this module in each. Measured against the same build
# without it (alternating, Node 20): TrajectoryIndex.fromJsonl of the 106 MB
# string-heavy stream 137-142 -> 98-102 ms (memchr, which finds each line's
# end, goes 16 bytes at a time), the package 1.8 KB gzip smaller, and
# record(), parsing, recordToolCall, generation and the background loop the
# same within noise.
export RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+simd128 --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}=/cargo --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}/registry/src/index.crates.io-1949cf8c6b5b557f=/c --remap-path-prefix=$root=/a"
cargo build --quiet --release --target wasm32-unknown-unknown --lib
raw=${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/agent_trajectories.wasm
work=target/pkg-build
rm -rf "$work" && mkdir -p "$work/web"
wasm-bindgen --target web --out-dir "$work/web" --out-name agent_trajectories "$raw"

# Feature flags rustc enables by default; plain -O3 refuses bulk memory and
# --all-features emits stringref, which Node 20 refuses. -O3 for speed (see
# Cargo.toml's release profile for the measurements); the producers and
# target-features sections go: wasm-bindgen has read them already.
# -ocimfs=0 -fimfs=5: a function is not inlined into its caller for
# having one caller, and "flexibly" only when at most 5 bytes (default 20);
# tiny and hot ones still are. Measured against plain -O3, alternating
# builds of the same code (Node 20, tests/bench/all.mjs, three rounds):
# record(), parseTrajectoryJsonl, recordToolCall, generation, the index and
# the background loop at the same speed within the machine's noise, and the
# module 33 KB gzip smaller with -ocimfs=0 (366.0 vs 399.5 KB), 1.1 KB more
# with -fimfs=10 (record 7.42 vs 7.56 us, parse 6.63 vs 6.71 us: noise).
# Not -fimfs=0 (1.9 KB less, but parsing ~5 % slower). -fimfs=9 rather than
# 10: 69 B gzip smaller, and measured the same within noise against 10
# (alternating builds of the same code, Node 20, 2026-11-26): record()
# 4.71-5.05 vs 4.85-5.15 us, parsing 4.29-4.53 vs 4.24-4.40 us/record,
# recordToolCall 2.02-2.11 vs 2.05-2.11 us, a plain turn 19 vs 19-20 us, a
# turn with tools 70.0-74.4 vs 70.3-71.3 us, fromJsonl of the 106 MB
# stream from bytes 67-69 vs 68 ms. -fimfs=7 rather than 9: 271 B gzip
# smaller (5 and 3: 14 and -2 B more), and the same within noise against 9
# (alternating builds of the same code, Node 20, 2026-11-27, three rounds):
# record() 4.92-5.35 vs 4.82-5.35 us, parsing 4.17-4.54 vs 4.22-4.60
# us/record, recordToolCall 2.07-2.36 vs 2.16-2.27 us, fromJsonl of the
# 106 MB stream from bytes 74-76 vs 74-77 ms and of the 78 MB one 171-210
# vs 169-212 ms. -fimfs=5 rather than 7: 33 B gzip smaller, and the same
# within noise against 7 (alternating builds of the same code, Node 20,
# 2026-11-27, three rounds): record() 4.55-5.10 vs 4.55-5.02 us, parsing
# 4.01-4.42 vs 4.07-4.45 us/record, recordToolCall 2.10-2.29 vs 2.03-2.36
# us, fromJsonl of the 106 MB stream from bytes 69-72 vs 66-74 ms and of
# the 78 MB one 159-194 vs 165-193 ms (3 is bigger).
# --low-memory-unused: the module's low 1 KB of memory is never data (the
# stack sits at the bottom and would have to be all but overflowed to
# reach it), so wasm-opt may fold constant offsets into loads and stores:
# 1.6 KB gzip smaller, and record(), parsing, recordToolCall, generation
# and the index the same speed within noise (alternating builds, Node 20).
# --converge: the passes run again until the module stops shrinking: 39 B
# gzip smaller, and the same speed within noise against the same code
# without it (alternating, Node 20, 2026-11-27, three rounds): record()
# 4.59-5.10 vs 4.71-4.92 us, recordToolCall 2.02-2.14 vs 2.00-2.17 us, a
# plain generated turn 35-52 vs 36-59 us (a scratch run, not the bench's).
# PROFILE=1 keeps the functions' names (-g), for a profiler to show them;
# that build is for measuring only (it is bigger: pair it with PKG_DIR and
# BUDGET_GZIP_BYTES).
names=()
[ -n "${PROFILE:-}" ] && names=(-g)
"$WASM_OPT" -O3 --gufa-optimizing -O3 -ocimfs=0 -fimfs=5 --low-memory-unused --converge "${names[@]}" --strip-producers --strip-target-features --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-reference-types --enable-multivalue --enable-mutable-globals --enable-simd \
  -o "$work/opt.wasm" "$work/web/agent_trajectories_bg.wasm"

# PKG_DIR: where the package goes (default pkg/).
out=${PKG_DIR:-pkg}
rm -rf "$out" && mkdir -p "$out"
cp "$work/opt.wasm" "$out/agent_trajectories_bg.wasm"
cp "$work/web/agent_trajectories.js" "$out/agent_trajectories.js"
node scripts/assemble.mjs "$root" "$work" "$BUDGET_GZIP_BYTES" "$out"

# The API reference, HTML into target/api (API_DIR): the declarations of
# every entry of the package's exports map, with the README, docs/ and
# ARCHITECTURE.md as its pages. A broken link or anchor, or a declaration
# that names a type no entry exports, fails the build (scripts/typedoc.json).
api=${API_DIR:-target/api}
mapfile -t declarations < <(node -e '
const { exports } = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
const found = new Set();
const walk = (n) => { if (n && typeof n === "object") { if (typeof n.types === "string" && !n.types.endsWith(".d.cts")) found.add(n.types); Object.values(n).forEach(walk); } };
walk(exports);
for (const t of found) console.log(`--entryPoints\n${process.argv[2]}/${t.replace(/^\.\//, "")}`);
' "$out/package.json" "$out")
rm -rf "$api"
"$TOOLS_DIR/node_modules/.bin/typedoc" --options scripts/typedoc.json --logLevel Warn --out "$api" "${declarations[@]}"
echo "API reference: $api/index.html"
