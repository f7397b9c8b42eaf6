// The API reference the build generates (target/api, or API_DIR: TypeDoc
// over the package's declarations, with the README, docs/ and
// ARCHITECTURE.md as pages): every page is there, and every link in it
// leads somewhere, the anchor included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const api = resolve(repo, process.env.API_DIR ?? 'target/api');

/** Every .html file below `dir`. */
const pages = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
  e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.html') ? [join(dir, e.name)] : []);

const html = new Map();
const read = (file) => {
  if (!html.has(file)) html.set(file, readFileSync(file, 'utf8'));
  return html.get(file);
};
/** The ids and names a page declares (what an anchor can point at). */
const anchors = new Map();
const anchorsOf = (file) => {
  if (!anchors.has(file)) anchors.set(file, new Set([...read(file).matchAll(/\s(?:id|name)="([^"]+)"/g)].map((m) => m[1])));
  return anchors.get(file);
};
const decode = (s) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');

test('the reference has a page per entry, per docs page, and the README as its front page', () => {
  assert.ok(existsSync(join(api, 'index.html')), `no ${relative(repo, api)}/index.html: run scripts/build.sh`);
  const modules = readdirSync(join(api, 'modules')).sort();
  assert.deepEqual(modules, ['agent-trajectories.html', 'agent-trajectories_(Node).html', 'agent-trajectories_ai.html', 'agent-trajectories_otel.html', 'agent-trajectories_viewer.html', 'agent-trajectories_vitest.html', 'agent-trajectories_report.html'].sort());
  const docs = readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md'));
  const documents = readdirSync(join(api, 'documents'));
  for (const d of docs) assert.ok(documents.includes(`docs_${d.replace(/\.md$/, '.html')}`), `docs/${d} has no page (documents/: ${documents.join(', ')})`);
  assert.ok(documents.includes('ARCHITECTURE.html'));
  assert.match(read(join(api, 'index.html')), /Quickstart: Cloudflare Workers/, 'the front page is the README');
  // Declarations that matter are documented where a user looks for them.
  for (const page of ['classes/agent-trajectories.TrajectoryRecorder.html', 'functions/agent-trajectories.runTrajectory.html', 'types/agent-trajectories.ErrorCode.html', 'functions/agent-trajectories_otel.exportSpans.html']) {
    assert.ok(existsSync(join(api, page)), `${page} is missing`);
  }
});

test('every link of every page resolves: the file exists and the anchor is on it', () => {
  const files = pages(api);
  assert.ok(files.length > 50, `only ${files.length} pages`);
  const broken = [];
  let checked = 0;
  for (const file of files) {
    for (const m of read(file).matchAll(/\s(?:href|src)="([^"]*)"/g)) {
      const link = decode(m[1]);
      if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(link)) continue; // another site (https:, mailto:, data:)
      const [path, anchor] = link.split('#');
      const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      checked += 1;
      if (!target.startsWith(api) || !existsSync(target)) {
        broken.push(`${relative(api, file)}: ${link} (no such file)`);
      } else if (anchor && target.endsWith('.html') && !anchorsOf(target).has(decodeURIComponent(anchor))) {
        broken.push(`${relative(api, file)}: ${link} (no such anchor)`);
      }
    }
  }
  assert.ok(checked > 1000, `only ${checked} links checked: the scan lost its pattern`);
  assert.deepEqual(broken.slice(0, 20), [], `${broken.length} broken links`);
});
