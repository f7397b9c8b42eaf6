#!/usr/bin/env bash
# Builds the package, records sample runs into runs/*.jsonl from Node, and
# serves the viewer (www/ with the web build and the runs) on 127.0.0.1.
# PORT picks the port (default 8787; a free one if that is taken). From npm
# it needs only the build tools (tools/package.json, installed once by
# scripts/build.sh), not the test dependencies.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

scripts/build.sh
log "recording sample runs"
node scripts/sample-runs.mjs runs

site=target/demo-site
rm -rf "$site" && mkdir -p "$site"
cp -r www/. "$site/"
cp -r pkg "$site/pkg"
cp -r runs "$site/runs"
# The API reference the build wrote (the README and docs/ are its pages).
cp -r target/api "$site/api"
# The one-file viewer with every sample run in it: opens from file:// by
# double click, no server (written by the package's writeViewerHtml).
node --input-type=module -e '
import { readFileSync } from "node:fs";
import { writeViewerHtml } from "./pkg/viewer.js";
const { runs } = JSON.parse(readFileSync("runs/index.json", "utf8"));
await writeViewerHtml(process.argv[1], runs.map((r) => ({ name: r.file, text: readFileSync(`runs/${r.file}`, "utf8") })), { title: "agent-trajectories · sample runs" });
' "$site/sample-runs.html"
log "one-file viewer with the sample runs (open it from disk, no server): $(pwd)/$site/sample-runs.html"
log "serving $site (Ctrl-C to stop); the API reference is at /api/"
exec node scripts/demo-serve.mjs "$site" "${PORT:-8787}"
