// The package's closed sets of words (error codes, record kinds, statuses,
// stop reasons, verdicts) live once, in the core (src/core/vocabulary.rs).
// From the built module's __vocabulary(), this renders the TypeScript unions
// the declarations use and the docs' error table.
//
// As a command, rewrites the generated parts of the docs in place:
//   node scripts/vocabulary.mjs <package dir>        (rewrite)
//   node scripts/vocabulary.mjs <package dir> --check (fail if stale)
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';

const quote = (s) => `'${s}'`;

/** `export type X = 'a' | 'b';` for each closed set. */
export function unions(v) {
  return `/** Every error code; each is documented in docs/errors.md. */
export type ErrorCode =
  | ${v.errorCodes.map((c) => quote(c.code)).join('\n  | ')};

/** Every payload kind of a record. */
export type RecordKind = ${v.recordKinds.map(quote).join(' | ')};

/** How a run ended (\`run_ended.outcome.status\`, read by one rule). */
export type RunStatus = ${v.statuses.map(quote).join(' | ')};

/** Why a generated run stopped. */
export type StopReason = ${v.stopReasons.map(quote).join(' | ')};

/** Whose doing a run's end was. */
export type Verdict = ${v.verdicts.map(quote).join(' | ')};
`;
}

/** The Markdown table of docs/errors.md. */
export function errorTable(v) {
  return ['| code | when |', '|---|---|', ...v.errorCodes.map((c) => `| \`${c.code}\` | ${c.when} |`)].join('\n');
}

const START = '<!-- error-codes:start -->';
const END = '<!-- error-codes:end -->';

/** `text` with the part between the error-code markers replaced by the table. */
export function withErrorTable(text, v, where = 'docs/errors.md') {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${where}: no ${START} … ${END} markers`);
  return `${text.slice(0, a + START.length)}\n${errorTable(v)}\n${text.slice(b)}`;
}

/** The vocabulary of a built package directory (loads its module). */
export async function vocabularyOf(pkgDir) {
  const glue = await import(pathToFileURL(join(pkgDir, 'agent_trajectories.js')).href);
  glue.initSync({ module: readFileSync(join(pkgDir, 'agent_trajectories_bg.wasm')) });
  return glue.__vocabulary();
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [pkgDir, flag] = process.argv.slice(2);
  const root = resolve(fileURLToPath(import.meta.url), '../..');
  const file = join(root, 'docs', 'errors.md');
  const v = await vocabularyOf(resolve(pkgDir ?? join(root, 'pkg')));
  const text = readFileSync(file, 'utf8');
  const next = withErrorTable(text, v);
  if (flag === '--check') {
    if (next !== text) {
      console.error('docs/errors.md: the error table is not the core\'s; run node scripts/vocabulary.mjs pkg');
      process.exit(1);
    }
  } else if (next !== text) {
    writeFileSync(file, next);
  }
}
