// The closest word to a slip, for the command line and the reports (the
// tool entries): their words are checked here, where the module is not
// loaded; the main entries' options are checked by the core's rule.

/**
 * The closest of `names` to `word` by edit distance, if close enough to be a slip.
 * @param {string} word
 * @param {string[]} names
 * @returns {string | undefined}
 */
export function nearest(word, names) {
  /** @param {string} a @param {string} b */
  const distance = (a, b) => {
    let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1)));
      prev = row;
    }
    return prev[b.length];
  };
  const w = word.toLowerCase();
  // A name cut short (--out for --output) is a slip too.
  const prefixed = names.find((n) => w.length >= 3 && n.startsWith(w));
  const ranked = names.map((n) => ({ n, d: distance(w, n) })).sort((x, y) => x.d - y.d);
  return prefixed ?? (ranked.length && ranked[0].d <= Math.max(2, Math.floor(w.length / 3)) ? ranked[0].n : undefined);
}
