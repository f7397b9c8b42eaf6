// What the viewer tests share: where the repository, the unpacked tarball
// and the screenshots are; site(), a folder to serve (the page, the
// installed package as pkg/, runs/); reading records and counting matches
// as the page does; and page helpers (the hash, readiness, rows shown).
import { cpSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = fileURLToPath(new URL('../../', import.meta.url));
// The unpacked tarball (scripts/test.sh sets PACKAGE_DIR).
export const installed = process.env.PACKAGE_DIR ?? join(repo, 'tests/.work/tarball/package');
export const shots = join(repo, 'tests/.work/screenshots');
mkdirSync(shots, { recursive: true });

/** A site: the page, the installed package as pkg/, and runs/. */
export function site(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(repo, 'www'), dir, { recursive: true });
  cpSync(installed, join(dir, 'pkg'), { recursive: true });
  return dir;
}

export const records = (text) => text.trim().split('\n').map((l) => JSON.parse(l));
export const strings = (v) => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(strings) : []);
export const occurrences = (hay, needle) => hay.toLowerCase().split(needle.toLowerCase()).length - 1;
export const isError = (p) => (p.kind === 'tool_ended' && p.is_error) || (p.kind === 'run_ended' && (p.outcome.status ?? p.outcome) !== 'completed')
  || (p.kind === 'iteration_completed' && p.failed) || (p.kind === 'assessment_produced' && p.assessment.severity === 'warning');
export const hashOf = (page) => page.evaluate(() => Object.fromEntries(new URLSearchParams(location.hash.slice(1))));
export const ready = (page) => page.waitForSelector('body[data-ready="true"]');
export const rowsShown = (page) => page.locator('#turns .row').count();
