// A virtualised list: only the rows near the viewport are in the DOM. Rows
// start at an estimated height and keep their measured height once rendered;
// spacers above and below stand in for the rest, so a run of thousands of
// turns scrolls like a short one.
const OVERSCAN = 700; // px rendered beyond each edge of the viewport

export class VirtualList {
  /** `render(k)` gives row k's HTML; `decorate(el, k)` marks it (selection, hits) after each render. */
  constructor(el, render, decorate) {
    Object.assign(this, { el, render, decorate, rows: [], h: [], off: [0], a: 0, b: 0, els: new Map() });
    this.top = el.appendChild(document.createElement('div'));
    this.body = el.appendChild(document.createElement('div'));
    this.bottom = el.appendChild(document.createElement('div'));
    el.addEventListener('scroll', () => this.update());
    new ResizeObserver(() => this.update(true)).observe(el);
  }

  set(rows, estimate, keepScroll = false) {
    this.rows = rows;
    this.h = rows.map(estimate);
    this.sum();
    this.refresh(keepScroll);
  }

  /** Renders the visible rows anew (after a change of what they show). */
  refresh(keepScroll = true) {
    this.els.clear();
    this.body.textContent = '';
    if (!keepScroll) this.el.scrollTop = 0;
    this.update(true);
  }

  sum() {
    this.off = [0];
    for (const h of this.h) this.off.push(this.off.at(-1) + h);
  }

  /** The last row starting at or above y. */
  find(y) {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.off[mid] <= y) lo = mid; else hi = mid - 1;
    }
    return Math.max(0, lo);
  }

  /** Rows [first, last] intersecting the viewport. */
  visible() {
    const y = this.el.scrollTop;
    return [this.find(y), this.find(y + this.el.clientHeight - 1)];
  }

  update(force = false) {
    const y = this.el.scrollTop;
    const a = this.find(y - OVERSCAN);
    const b = Math.min(this.rows.length, this.find(y + this.el.clientHeight + OVERSCAN) + 1);
    if (force || a !== this.a || b !== this.b) {
      // Keep the row at the top of the viewport where it is while heights above it get measured.
      const anchor = this.find(y);
      const into = y - this.off[anchor];
      const els = new Map();
      const list = [];
      for (let k = a; k < b; k++) {
        let row = this.els.get(k);
        if (!row) {
          row = document.createElement('article');
          row.className = 'row';
          row.dataset.row = k;
          row.innerHTML = this.render(k);
          this.decorate(row, k);
        }
        els.set(k, row);
        list.push(row);
      }
      this.body.replaceChildren(...list);
      this.els = els;
      let changed = false;
      for (const [k, row] of els) {
        const h = row.offsetHeight;
        if (h && h !== this.h[k]) { this.h[k] = h; changed = true; }
      }
      if (changed) this.sum();
      Object.assign(this, { a, b });
      this.top.style.height = `${this.off[a]}px`;
      this.bottom.style.height = `${this.off.at(-1) - this.off[b]}px`;
      if (changed && anchor > a) this.el.scrollTop = this.off[anchor] + into;
    }
    this.onView?.();
  }

  /** Scrolls row k to the top; a second pass settles it once the rows around it are measured. */
  scrollTo(k) {
    for (let pass = 0; pass < 3; pass++) {
      this.el.scrollTop = this.off[k] ?? 0;
      this.update(true);
      if (Math.abs(this.el.scrollTop - (this.off[k] ?? 0)) < 2) break;
    }
  }

  row(k) { return this.els.get(k); }
}
