// The fuzz's randomness: mulberry32, a small seeded PRNG; the seed of each
// input of a run (so any input can be rebuilt alone from the run's seed and
// its number); and Rng, the draws the generators make (int, chance, pick,
// weighted). No dependencies.

/** mulberry32: a small, fast, seeded 32-bit PRNG. */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The seed of input `i` of a run seeded `seed` (splitmix-style mixing). */
export function caseSeed(seed, i) {
  let h = (Math.imul(seed >>> 0, 0x9e3779b1) ^ Math.imul(i + 1, 0x85ebca77)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

export class Rng {
  constructor(seed) { this.next = mulberry32(seed); }
  float() { return this.next(); }
  /** An integer in [lo, hi]. */
  int(lo, hi) { return lo + Math.floor(this.next() * (hi - lo + 1)); }
  chance(p) { return this.next() < p; }
  pick(list) { return list[Math.floor(this.next() * list.length)]; }
  /** `list` of [weight, value]; returns a value. */
  weighted(list) {
    let total = 0;
    for (const [w] of list) total += w;
    let x = this.next() * total;
    for (const [w, v] of list) {
      if ((x -= w) < 0) return v;
    }
    return list[list.length - 1][1];
  }
}
