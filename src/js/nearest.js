// The closest word to a slip, for the command line, the reports and the
// OpenTelemetry entry, which check their words without the module's internals.
// It is the core's rule (`options::nearest`) written again in JS, step for
// step (lengths in UTF-16 units where the core counts bytes: the same for
// the ASCII words of options and commands); tests/js/nearest.test.mjs
// holds the two to the same answers.

/**
 * The one of `names` closest to `word`: the same letters ignoring ASCII
 * case, or a prefix of one another (`observer` / `observers`), or forms of
 * one word (`retry` / `retries`), or within an edit distance of a third of
 * the word's length (at least 2); on a tie the first listed.
 * @param {string} word
 * @param {readonly string[]} names
 * @returns {string | undefined}
 */
export function nearest(word, names) {
  /** @param {string} s */
  const lower = (s) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const w = lower(word);
  const same = names.find((n) => lower(n) === w);
  if (same !== undefined) return same;
  const limit = Math.max(2, Math.floor([...word].length / 3));
  let best;
  let bestDistance = Infinity;
  for (const n of names) {
    const l = lower(n);
    let common = 0;
    while (common < w.length && common < l.length && w[common] === l[common]) common++;
    const d = l.length >= 3 && w.length >= 3 && (l.startsWith(w) || w.startsWith(l)) ? 1
      : common >= 4 && common + 1 >= Math.min(w.length, l.length) ? 2
      : distance(w, l);
    if (d <= limit && d < bestDistance) [best, bestDistance] = [n, d];
  }
  return best;
}

/**
 * Levenshtein distance over code points.
 * @param {string} a
 * @param {string} b
 */
function distance(a, b) {
  const bs = [...b];
  let prev = bs.map((_, j) => j).concat(bs.length);
  for (const [i, ca] of [...a].entries()) {
    const row = [i + 1];
    for (const [j, cb] of bs.entries()) row.push(Math.min(prev[j] + (ca === cb ? 0 : 1), prev[j + 1] + 1, row[j] + 1));
    prev = row;
  }
  return prev[bs.length];
}

/**
 * What an unknown option key is told: the nearest of `keys`, and the list.
 * @param {readonly string[]} keys
 * @returns {(key: string) => string}
 */
export const optionAdvice = (keys) => (key) => {
  const near = nearest(key, keys);
  return `${near ? `; did you mean ${JSON.stringify(near)}?` : ''} (options: ${keys.join(', ')})`;
};
