// The `agent-trajectories` command (Node only; the package's cli.mjs):
// report, compare and view over record JSONL, step exports and saved batch
// results. It decides nothing itself: runs are judged by
// agent-trajectories/report (checkRun, in the core), batches compared by
// compareBatches, and the viewer written by agent-trajectories/viewer, each
// imported by the package's own name so the command shares their one
// loaded instance.
// Exit status: 0 all passed, 1 something failed (or regressed), 2 the
// command could not do its work (bad usage or input), said in words with
// the error's code.

import * as main from 'agent-trajectories';
import { writeViewerHtml } from 'agent-trajectories/viewer';
import { judgeRuns, junitReport, githubReport, markdownReport, textReport } from 'agent-trajectories/report';
import { fail, ours, why, utf8 } from './util.js';
import { nearest } from './nearest.js';
import { read, write, notData, kindOf, fileKind, recordsOf } from './cli-files.js';

// toJSONL and stepsToJsonl are the glue's: the type check maps the package to the JS layer, which does not list them.
const glue = /** @type {{ toJSONL(result: unknown): string[], stepsToJsonl(steps: unknown[]): string }} */ (/** @type {unknown} */ (main));

/** @typedef {import('./report-types').JudgedRun} JudgedRun */
/** @typedef {{ type: 'string' | 'boolean', short?: string, multiple?: boolean, value?: string, about: string }} Option */
/** @typedef {{ kind: string, name?: string, rawName?: string, value?: string, inlineValue?: boolean }} Token */
/** @typedef {{ summary: string, args: string, min: number, max: number, options: Record<string, Option>, more: string }} Command */
/**
 * The parts of Node this command uses. src/js is type-checked without
 * Node's types (see ambient.d.ts), and its modules are loaded by a
 * specifier bundlers leave alone, as the viewer loads node:fs.
 * @typedef {{
 *   util: { parseArgs(config: object): { values: Record<string, any>, positionals: string[], tokens: Token[] } },
 *   fs: { readFile(path: string | URL): Promise<Uint8Array>, writeFile(path: string, data: string): Promise<void>, appendFile(path: string, data: string): Promise<void>, mkdir(path: string): Promise<unknown>, stat(path: string): Promise<unknown>, open(path: string, flags: string): Promise<{ read(buffer: Uint8Array, offset: number, length: number, position: number): Promise<{ bytesRead: number }>, close(): Promise<void> }> },
 *   path: { dirname(path: string): string, basename(path: string): string },
 *   os: { hostname(): string },
 * }} Node
 * @typedef {{ argv: string[], env: Record<string, string | undefined>, stdout: { write(s: string): unknown }, stderr: { write(s: string): unknown } }} Process
 */

/** @param {string} name @returns {Promise<any>} */
const importNode = (name) => import(/* webpackIgnore: true */ /* @vite-ignore */ name);
/** @type {Process} */
const proc = /** @type {any} */ (globalThis).process;
const NAME = 'agent-trajectories';

const help = { type: 'boolean', short: 'h', about: 'show this help' };
/** @type {Record<string, Command>} */
const COMMANDS = {
  report: {
    summary: 'judge runs (record JSONL, step exports or saved batch results) and report them for CI',
    args: '<files…>',
    min: 1,
    max: Infinity,
    options: {
      junit: { type: 'string', value: 'FILE', about: 'write JUnit XML to FILE (a testsuite per file, a testcase per run)' },
      github: { type: 'boolean', about: 'print ::error annotations; append the summary table to $GITHUB_STEP_SUMMARY (else print it)' },
      markdown: { type: 'string', value: 'FILE', about: 'write the markdown report to FILE' },
      'fail-on': { type: 'string', multiple: true, value: 'WORD', about: 'also fail runs that ended with this stop reason (max-turns, ...) or have a finding at or above this severity (info, caution, warning); repeatable' },
      help: /** @type {Option} */ (help),
    },
    more: `Each run is held to checkRun's default (it ended with verdict pass) and to every --fail-on;
when the run was judged, its last judgement must not fail. Prints a line per run and the count.

A batch result is the JSON of what runTrajectories resolves:
  writeFileSync('batch.json', JSON.stringify(await runTrajectories(items, { repeat: 3 })))

Exit status: 0 every run passed, 1 a run failed, 2 bad usage or input.`,
  },
  compare: {
    summary: 'compare two batches item by item: regressions, improvements, added, removed',
    args: '<baseline> <current>',
    min: 2,
    max: 2,
    options: {
      json: { type: 'boolean', about: 'print the comparison as JSON instead of markdown' },
      github: { type: 'boolean', about: 'print ::error annotations for regressions; append the table to $GITHUB_STEP_SUMMARY' },
      help: /** @type {Option} */ (help),
    },
    more: `Each side is a saved batch result or record JSONL. An item passes when every run of it passed.
Exit status: 0 nothing regressed, 1 an item regressed or a judge criterion newly fails, 2 bad usage or input (or sides with no item in common).`,
  },
  view: {
    summary: 'write the one-file run viewer with the runs in it',
    args: '<files…>',
    min: 1,
    max: Infinity,
    options: {
      output: { type: 'string', short: 'o', value: 'FILE', about: 'where to write the page (default runs.html)' },
      title: { type: 'string', value: 'TEXT', about: 'the page title' },
      help: /** @type {Option} */ (help),
    },
    more: `Record JSONL and step exports (toJSONL's lines, as writeArtifacts' conversation.jsonl, or a stepTraces.json) go in as they are; each run of a saved batch result as its step export.
The page opens from file:// with no server. Exit status: 0 written, 2 bad usage or input.`,
  },
};

/** @param {string} name @param {Command} c */
function usage(name, c) {
  const flag = (/** @type {string} */ k, /** @type {Option} */ o) => `${o.short ? `-${o.short}, ` : ''}--${k}${o.value ? ` ${o.value}` : ''}`;
  const width = Math.max(...Object.entries(c.options).map(([k, o]) => flag(k, o).length));
  const lines = Object.entries(c.options).map(([k, o]) => `  ${flag(k, o).padEnd(width)}  ${o.about}`);
  return `Usage: ${NAME} ${name} ${c.args} [options]\n\n${c.summary[0].toUpperCase()}${c.summary.slice(1)}.\n\nOptions:\n${lines.join('\n')}\n\n${c.more}\n`;
}

const MAIN_HELP = `Usage: ${NAME} <command> [options]

Commands:
${Object.entries(COMMANDS).map(([k, c]) => `  ${k.padEnd(8)} ${c.summary}`).join('\n')}

${NAME} <command> --help shows a command's options; ${NAME} --version its version.
Exit status: 0 all passed, 1 something failed (or regressed), 2 bad usage or input.
`;

/**
 * A command's arguments read by util.parseArgs, checked here so every refusal is in words: an
 * unknown option names the nearest one, a value left out or given to a flag is named.
 * @param {Node} node
 * @param {string} name
 * @param {Command} c
 * @param {string[]} args
 */
function parse(node, name, c, args) {
  const options = Object.fromEntries(Object.entries(c.options).map(([k, o]) => [k, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.multiple ? { multiple: true } : {}) }]));
  const { values, positionals, tokens } = node.util.parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const more = ` (${NAME} ${name} --help lists the options)`;
  const seen = new Set();
  for (const t of tokens) {
    if (t.kind !== 'option' || t.name === undefined) continue;
    const o = c.options[t.name];
    if (!o) {
      const near = nearest(t.name, Object.keys(c.options));
      throw fail('INVALID_ARGUMENT', `unknown option ${t.rawName}${near ? `; did you mean --${near}?` : ''}${more}`);
    }
    const flag = `--${t.name}${o.value ? ` ${o.value}` : ''}`;
    if (o.type === 'boolean' && t.value !== undefined) throw fail('INVALID_ARGUMENT', `--${t.name} takes no value, got ${JSON.stringify(t.value)}`);
    // parseArgs takes the next argument as the value even when it is an option.
    if (o.type === 'string' && (t.value === undefined || (!t.inlineValue && t.value.startsWith('-') && t.value.length > 1))) {
      throw fail('INVALID_ARGUMENT', `${t.rawName} needs a value: ${flag}${t.value === undefined ? '' : ` (got the option ${t.value}; for a value starting with "-", write --${t.name}=${t.value})`}`);
    }
    if (o.type === 'string' && t.value === '') throw fail('INVALID_ARGUMENT', `${t.rawName} needs a value: ${flag} (got an empty one)`);
    if (!o.multiple && o.type === 'string' && seen.has(t.name)) throw fail('INVALID_ARGUMENT', `--${t.name} is given twice; give it once`);
    seen.add(t.name);
  }
  // One file twice would be judged (or shown) twice: a slip, said as one.
  const twice = c.max === Infinity && !values.help ? positionals.find((f, i) => positionals.indexOf(f) !== i) : undefined;
  if (twice !== undefined) throw fail('INVALID_ARGUMENT', `${twice} is given twice; give each file once`);
  if (!values.help && (positionals.length < c.min || positionals.length > c.max)) {
    const n = c.min === c.max ? `${c.min}` : `at least ${c.min}`;
    throw fail('INVALID_ARGUMENT', `expected ${n} file argument(s) (${c.args}), got ${positionals.length}${positionals.length ? `: ${positionals.join(' ')}` : ''}${more}`);
  }
  return { values, files: positionals };
}

/** @param {Node} node @param {string} summary */
async function stepSummary(node, summary) {
  const file = proc.env.GITHUB_STEP_SUMMARY;
  if (file) await write(node, file, `${summary}\n`, true);
  else proc.stdout.write(summary);
}

/**
 * @param {Node} node
 * @param {Record<string, any>} values
 * @param {string[]} files
 */
async function report(node, values, files) {
  if (values.junit) await notData(node, '--junit', values.junit);
  if (values.markdown) await notData(node, '--markdown', values.markdown);
  /** @type {JudgedRun[]} */
  const runs = [];
  for (const file of files) {
    const bytes = await read(node, file);
    const input = recordsOf(file, bytes, fileKind(file, bytes));
    let judged;
    try {
      judged = judgeRuns(input, { source: file, failOn: values['fail-on'] ?? [] });
    } catch (e) {
      // A bad --fail-on word is named as the flag it was given by.
      if (!ours(e) || !e.message.startsWith('judgeRuns: options.failOn')) throw e;
      throw fail(e.code, e.message.replace('judgeRuns: options.failOn', '--fail-on'), e);
    }
    runs.push(...judged);
  }
  proc.stdout.write(textReport(runs));
  if (values.junit) await write(node, values.junit, junitReport(runs, { hostname: node.os.hostname() || 'localhost' }));
  if (values.markdown) await write(node, values.markdown, markdownReport(runs));
  if (values.github) {
    const gh = githubReport(runs);
    proc.stdout.write(gh.annotations);
    await stepSummary(node, gh.summary);
  }
  return runs.every((r) => r.pass) ? 0 : 1;
}

/**
 * One side of a comparison: a saved batch as it is, or record JSONL's runs with their facts.
 * @param {Node} node
 * @param {string} file
 */
async function side(node, file) {
  const bytes = await read(node, file);
  const kind = fileKind(file, bytes);
  if (kind && 'batch' in kind) return kind.batch;
  // judgeRuns refuses a file with no runs in it.
  const runs = judgeRuns(recordsOf(file, bytes, kind), { source: file });
  return { runs: runs.map((r) => ({ id: r.id, item: r.item, verdict: r.verdict, turns: r.turns ?? 0, tokens: r.tokens ?? 0, judgements: r.judgements })) };
}

/**
 * @param {Node} node
 * @param {Record<string, any>} values
 * @param {string[]} files
 */
async function compare(node, values, [baseline, current]) {
  const [b, c] = [await side(node, baseline), await side(node, current)];
  let cmp;
  try {
    cmp = main.compareBatches(/** @type {any} */ (b), /** @type {any} */ (c));
  } catch (e) {
    if (!ours(e)) throw e;
    throw fail(e.code, `compare: ${e.message.replace(/^compareBatches: /, '')} (baseline: ${baseline}, current: ${current})`, e);
  }
  // Two sides with no item in common compared nothing: a gate that passed so would pass anything.
  if (cmp.added.length > 0 && cmp.removed.length > 0 && cmp.items.every((i) => i.status === 'added' || i.status === 'removed')) {
    const some = (/** @type {string[]} */ ids) => ids.slice(0, 3).map((id) => JSON.stringify(id)).join(', ');
    throw fail('INVALID_ARGUMENT', `compare: the two sides share no item, so nothing was compared (baseline: ${some(cmp.removed)}...; current: ${some(cmp.added)}...). Compare a batch with a batch, or runs with runs: a batch's items are its trajectories; record JSONL's and step exports' are their run ids (a saved stepTraces.json's, its file)`);
  }
  proc.stdout.write(values.json ? `${JSON.stringify(cmp, null, 2)}\n` : `${cmp.markdown}\n`);
  // With --json, stdout is the JSON alone (for jq, or a file): the annotations, and the table outside Actions, go to stderr.
  const say = values.json ? proc.stderr : proc.stdout;
  if (values.github) {
    /** @param {import('./judge-types').BatchItemSide | null} s */
    const said = (s) => (s ? `${s.passed ? 'pass' : 'fail'} (${s.passes}/${s.runs})` : 'none');
    const esc = (/** @type {string} */ s) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
    const title = (/** @type {string} */ s) => esc(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
    for (const it of cmp.items.filter((i) => i.status === 'regressed')) {
      say.write(`::error title=${title(`item ${it.id} regressed`)}::${esc(`item ${JSON.stringify(it.id)}: baseline ${said(it.baseline)}, current ${said(it.current)}`)}\n`);
    }
    for (const j of cmp.newlyFailedJudges) {
      say.write(`::error title=${title(`judge criterion newly fails on ${j.id}`)}::${esc(`item ${JSON.stringify(j.id)}: criterion ${JSON.stringify(j.criterion)} did not fail in the baseline and fails now`)}\n`);
    }
    if (proc.env.GITHUB_STEP_SUMMARY) await stepSummary(node, `${cmp.markdown}\n`);
    else if (values.json) say.write(`${cmp.markdown}\n`);
  }
  return cmp.regressed.length > 0 || cmp.newlyFailedJudges.length > 0 ? 1 : 0;
}

/**
 * @param {Node} node
 * @param {Record<string, any>} values
 * @param {string[]} files
 */
async function view(node, values, files) {
  const { toJSONL, stepsToJsonl } = glue;
  const out = values.output ?? 'runs.html';
  await notData(node, '--output', out);
  /** @type {{ name: string, text: string }[]} */
  const docs = [];
  let skipped = 0;
  // Runs shown, as the page lists them: a record file's every run (its
  // children too), a step export's one, a batch's runs that have a result.
  let shown = 0;
  for (const file of files) {
    const bytes = await read(node, file);
    // Never with replacement characters: the page would show changed data unsaid.
    const text = utf8(bytes, file);
    const kind = kindOf(text, file);
    if (kind && 'steps' in kind) {
      // A step export goes in as it is: the page reads it into records
      // (stepsToJsonl) as it reads a file opened there. Read here first,
      // so that a file with no step in it is refused, not shown empty.
      const { steps, bad } = kind;
      const more = bad.length > 1 ? ` (and ${bad.length - 1} more bad line(s))` : '';
      if (steps.length === 0) {
        throw fail(bad.length ? 'JSONL_PARSE' : 'INVALID_ARGUMENT', bad.length ? `${file}: line ${bad[0].line}: ${bad[0].message}${more}` : `${file} holds no steps`);
      }
      try {
        stepsToJsonl(steps);
      } catch (e) {
        throw fail(ours(e) ? e.code : 'INVALID_ARGUMENT', `${file}: not a step export: ${why(e)}`, e);
      }
      if (bad.length) proc.stderr.write(`${NAME} view: warning JSONL_PARSE: ${file}: line ${bad[0].line}: ${bad[0].message}${more}; the page lists them\n`);
      docs.push({ name: node.path.basename(file), text });
      shown++;
      continue;
    }
    const batch = kind && 'batch' in kind ? kind.batch : null;
    if (!batch) {
      // Records, read as the viewer will. A file with no run is refused
      // here, not shown empty; one with runs and bad lines is shown (the
      // page lists the lines it could not read: a broken run is when the
      // viewer is wanted most), and the lines are said on stderr.
      const index = main.TrajectoryIndex.fromJsonl(text);
      const errors = index.errors();
      const runs = index.runs().length;
      index.free();
      const [bad] = errors;
      const more = errors.length > 1 ? ` (and ${errors.length - 1} more bad line(s))` : '';
      if (bad && runs === 0) throw Object.assign(fail(bad.code, `${file}: line ${bad.line}: ${bad.message}${more}`), { line: bad.line });
      if (runs === 0) throw fail('INVALID_ARGUMENT', `${file} holds no runs: expected record JSONL, a step export or a saved batch result`);
      if (bad) proc.stderr.write(`${NAME} view: warning ${bad.code}: ${file}: line ${bad.line}: ${bad.message}${more}; the page lists them\n`);
      docs.push({ name: node.path.basename(file), text });
      shown += runs;
      continue;
    }
    for (const [i, r] of batch.runs.entries()) {
      if (r === null || typeof r !== 'object' || r.result === null || typeof r.result !== 'object') {
        skipped++;
        continue;
      }
      let steps;
      try {
        steps = toJSONL(r.result);
      } catch (e) {
        throw fail(ours(e) ? e.code : 'INVALID_ARGUMENT', `${file}: runs[${i}].result is not a run's result: ${why(e)}`, e);
      }
      docs.push({ name: `${node.path.basename(file)} ${typeof r.id === 'string' ? r.id : `#${i + 1}`}`, text: steps.join('\n') });
      shown++;
    }
  }
  if (docs.length === 0) throw fail('INVALID_ARGUMENT', `${files.join(', ')}: no run to show (a batch whose runs have no result, or no runs)`);
  await writeViewerHtml(out, docs, values.title === undefined ? undefined : { title: values.title });
  const plural = (/** @type {number} */ n, /** @type {string} */ one) => `${n} ${one}${n === 1 ? '' : 's'}`;
  proc.stdout.write(`wrote ${out} with ${plural(shown, 'run')} from ${plural(files.length, 'file')}${skipped ? ` (${plural(skipped, 'batch run')} without a result left out)` : ''}\n`);
  return 0;
}

/**
 * Runs the command line `args` (default: the process's); resolves with the exit status.
 * @param {string[]} [args]
 * @returns {Promise<number>}
 */
export async function cli(args = proc.argv.slice(2)) {
  const [command, ...rest] = args;
  let name = command ?? '';
  try {
    /** @type {Node} */
    const node = { util: await importNode('node:util'), fs: await importNode('node:fs/promises'), path: await importNode('node:path'), os: await importNode('node:os') };
    if (command === '--help' || command === '-h' || (command === 'help' && rest.length === 0)) {
      proc.stdout.write(MAIN_HELP);
      return 0;
    }
    if (command === '--version' || command === '-v') {
      const pkg = JSON.parse(new TextDecoder().decode(await node.fs.readFile(new URL('./package.json', import.meta.url))));
      proc.stdout.write(`${pkg.version}\n`);
      return 0;
    }
    if (command === 'help') name = rest[0];
    const c = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!c) {
      if (command === undefined) throw fail('INVALID_ARGUMENT', `a command is required: ${Object.keys(COMMANDS).join(', ')} (${NAME} --help)`);
      // A slipped flag (--versoin) is matched against the flags, a slipped command against the commands.
      const near = nearest(name, name.startsWith('-') ? ['--help', '--version'] : Object.keys(COMMANDS));
      throw fail('INVALID_ARGUMENT', `unknown command ${JSON.stringify(name)}${near ? `; did you mean ${near}?` : ''} (commands: ${Object.keys(COMMANDS).join(', ')})`);
    }
    const { values, files } = command === 'help' ? { values: { help: true }, files: [] } : parse(node, name, c, rest);
    if (values.help) {
      proc.stdout.write(usage(name, c));
      return 0;
    }
    return await { report, compare, view }[/** @type {'report' | 'compare' | 'view'} */ (name)](node, values, files);
  } catch (e) {
    const err = ours(e) ? e : fail('INTERNAL', `${why(e)}${e instanceof Error && e.stack ? `\n${e.stack}` : ''}`, e);
    proc.stderr.write(`${NAME}${Object.hasOwn(COMMANDS, name) ? ` ${name}` : ''}: error ${err.code}: ${err.message}\n`);
    return 2;
  }
}
