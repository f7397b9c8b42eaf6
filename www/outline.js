// The turns outline in the side panel. Its entries are one line each, so it
// is a fixed-height virtual list: an <ol> as tall as all of them, holding
// only the entries near the side panel's viewport. A run of 25,000 turns
// then costs a few dozen <li> per search or filter, not 25,000.
const H = 20; // px per entry (one line, cut with an ellipsis: see style.css)
const ALL = 400; // up to this many entries, all are rendered
const OVERSCAN = 40; // entries rendered beyond each edge of the viewport

export class Outline {
  /** `scroller` is the element that scrolls (the side panel); `item(k)` gives entry k's inner HTML (an <a data-row=k>). */
  constructor(el, scroller, item) {
    Object.assign(this, { el, scroller, item, n: 0, current: -1, a: -1, b: -1 });
    scroller.addEventListener('scroll', () => this.update());
    new ResizeObserver(() => this.update()).observe(scroller);
  }

  set(n) {
    this.n = n;
    this.current = -1;
    this.el.innerHTML = n ? '<h2>Outline</h2><ol></ol>' : '';
    this.ol = this.el.querySelector('ol');
    if (this.ol) this.ol.style.height = `${n * H}px`;
    this.update(true);
  }

  clear() { this.set(0); }

  /** Marks entry k as the current one (aria-current) and scrolls the side panel to it when it is out of view. */
  mark(k) {
    this.current = k;
    if (this.ol && k >= 0 && k < this.n) {
      const y = this.ol.offsetTop + k * H;
      const s = this.scroller;
      if (y < s.scrollTop || y + H > s.scrollTop + s.clientHeight) s.scrollTop = y - s.clientHeight / 2; // its scroll event renders the window
    }
    this.show();
  }

  show() {
    for (const a of this.el.querySelectorAll('[aria-current="true"]')) a.removeAttribute('aria-current');
    this.el.querySelector(`a[data-row="${this.current}"]`)?.setAttribute('aria-current', 'true');
  }

  update(force = false) {
    if (!this.ol) return;
    let a = 0;
    let b = this.n;
    if (this.n > ALL) {
      const top = this.scroller.scrollTop - this.ol.offsetTop;
      a = Math.max(0, Math.floor(top / H) - OVERSCAN);
      b = Math.min(this.n, Math.ceil((top + this.scroller.clientHeight) / H) + OVERSCAN);
      a = Math.min(a, b);
    }
    if (!force && a === this.a && b === this.b) return;
    Object.assign(this, { a, b });
    let html = '';
    for (let k = a; k < b; k++) html += `<li>${this.item(k)}</li>`;
    this.ol.style.paddingTop = `${a * H}px`;
    this.ol.innerHTML = html;
    this.show();
  }
}
