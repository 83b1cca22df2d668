// A second, independent implementation of docs/deals.md, so a browser can check a revealed
// deal itself: the commitment is sha256 of the seed's 8 bytes, and the deal recomputed from
// (variant, options, seed) must show exactly the cards the race's start view showed.
// Written from the document, not from the Python code; `node --test tests/web/` runs it
// against the document's test vectors. Seeds are BigInt (unsigned 64-bit), or decimal strings.

const RANKS = "A23456789TJQK";
const SUITS = "CDHS";

// docs/deals.md section 6: decks, prefilled foundations, piles dealt (face-down, face-up).
const LAYOUTS = {
  "sixes-and-sevens": {
    decks: 2, foundations: 16, prefilled: [6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7],
    tableau: Array(9).fill([0, 1]), reserve: [], stock: true,
  },
  "seven-by-five": {
    decks: 1, foundations: 4, prefilled: [],
    tableau: [8, 8, 8, 7, 7, 7, 7].map((n) => [0, n]), reserve: [], stock: false,
  },
  "double-aces-and-kings": {
    decks: 4, foundations: 16, prefilled: [],
    tableau: Array(8).fill([0, 1]), reserve: Array(4).fill([0, 13]), stock: true,
  },
  unlimited: {
    decks: 1, foundations: 4, prefilled: [],
    tableau: [0, 1, 2, 3, 4, 5, 6].map((k) => [k, 1]), reserve: [], stock: true,
  },
  "forty-and-eight": {
    decks: 2, foundations: 8, prefilled: [],
    tableau: Array(8).fill([0, 5]), reserve: [], stock: true,
  },
};

export function cardText(face) {
  return RANKS[face % 13] + SUITS[Math.floor(face / 13)];
}

export function seedBytes(seed) {
  let s = BigInt(seed);
  if (s < 0n || s >= 1n << 64n) throw new RangeError("a seed is an unsigned 64-bit integer");
  const out = new Uint8Array(8);
  for (let i = 7; i >= 0; i--) { out[i] = Number(s & 0xffn); s >>= 8n; }
  return out;
}

function hex(bytes) {
  return [...new Uint8Array(bytes)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** sha256 of the seed's 8 big-endian bytes, lowercase hex (section 8). */
export async function commitment(seed) {
  return hex(await sha256(seedBytes(seed)));
}

/** The context string of section 2: "<variant>|" + every option, sorted by name. */
export function context(variant, options) {
  const parts = Object.keys(options).sort().map((k) => `${k}=${options[k]}`);
  return `${variant}|${parts.join(",")}`;
}

export function keyBytes(seed, ctx) {
  const head = new TextEncoder().encode(`solrace-deal-v1\u0000${ctx}\u0000`);
  const key = new Uint8Array(head.length + 8);
  key.set(head);
  key.set(seedBytes(seed), head.length);
  return key;
}

/** The stream of big-endian u32 words of section 3, read one at a time (async). */
export class WordStream {
  constructor(key) {
    this.key = key;
    this.counter = 0n;
    this.words = [];
    this.blocks = [];
  }

  async block(i) {
    const buf = new Uint8Array(this.key.length + 8);
    buf.set(this.key);
    let c = BigInt(i);
    for (let k = 7; k >= 0; k--) { buf[this.key.length + k] = Number(c & 0xffn); c >>= 8n; }
    return await sha256(buf);
  }

  async next() {
    if (!this.words.length) {
      const block = await this.block(this.counter);
      this.blocks.push(block);
      this.counter += 1n;
      const view = new DataView(block.buffer);
      for (let k = 0; k < 32; k += 4) this.words.push(view.getUint32(k, false));
    }
    return this.words.shift();
  }

  /** A uniform integer in 0..n-1 by rejection (section 4). */
  async below(n) {
    const limit = 2 ** 32 - (2 ** 32 % n);
    for (;;) {
      const x = await this.next();
      if (x < limit) return x % n;
    }
  }
}

/** The shuffled card ids (faces 0..51 per deck) and foundations of section 6, steps 1-3. */
export async function shuffled(seed, variant, options) {
  const layout = LAYOUTS[variant];
  if (!layout) throw new Error(`unknown variant ${variant}`);
  const cards = [];
  for (let i = 0; i < 52 * layout.decks; i++) cards.push(i);
  const foundations = [];
  for (const rank of layout.prefilled) {
    const at = cards.findIndex((c) => (c % 13) + 1 === rank);
    foundations.push(cards[at] % 52);
    cards.splice(at, 1);
  }
  const stream = new WordStream(keyBytes(seed, context(variant, options)));
  for (let i = cards.length - 1; i >= 1; i--) {
    const j = await stream.below(i + 1);
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return { faces: cards.map((c) => c % 52), foundations, stream };
}

/**
 * The deal as a view-like object: piles id -> [hidden, visible cards bottom to top], plus
 * the hidden cards themselves (`down`: id -> cards, `stock`: bottom to top).
 */
export async function deal(seed, variant, options) {
  const layout = LAYOUTS[variant];
  const { faces, foundations } = await shuffled(seed, variant, options);
  const piles = {};
  const down = {};
  for (let i = 0; i < layout.foundations; i++) {
    piles[`f${i + 1}`] = [0, i < foundations.length ? [cardText(foundations[i])] : []];
  }
  let at = 0;
  const dealRow = (letter, sizes) => sizes.forEach(([hidden, up], i) => {
    const id = `${letter}${i + 1}`;
    down[id] = faces.slice(at, at + hidden).map(cardText);
    piles[id] = [hidden, faces.slice(at + hidden, at + hidden + up).map(cardText)];
    at += hidden + up;
  });
  dealRow("t", layout.tableau);
  dealRow("r", layout.reserve);
  const cells = Number(options.cells || 0);
  for (let i = 0; i < cells; i++) piles[`c${i + 1}`] = [0, []];
  let stock = [];
  if (layout.stock) {
    stock = faces.slice(at).reverse().map(cardText);
    piles.s = [stock.length, []];
    piles.w = [0, []];
  }
  return { piles, down, stock };
}

/** Position text of a fresh deal (docs/deals.md section 10). */
export async function positionText(seed, variant, options) {
  const { piles, down, stock } = await deal(seed, variant, options);
  const group = (letter) => Object.keys(piles).filter((p) => p[0] === letter)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)))
    .map((id) => {
      const text = (down[id] || []).map((c) => c.toLowerCase()).join("") + piles[id][1].join("");
      return text || "-";
    }).join("/");
  const out = [];
  for (const letter of ["f", "t", "r", "c"]) {
    const g = group(letter);
    if (g) out.push(`${letter}:${g}`);
  }
  if (piles.s) {
    out.push(`s:${stock.map((c) => c.toLowerCase()).join("") || "-"}`);
    out.push("w:-");
  }
  out.push("n:0");
  return out.join(" ");
}

/**
 * Check a revealed race: `commitment` must be sha256(seed) and the recomputed deal must show
 * exactly what the start `view` showed (every visible card, every face-down and stock count).
 */
export async function verify(seed, expectedCommitment, view) {
  const commitmentOk = (await commitment(seed)) === expectedCommitment;
  let dealOk = null;
  if (view) {
    const { piles } = await deal(seed, view.variant, view.options);
    const ids = new Set([...Object.keys(piles), ...Object.keys(view.piles)]);
    dealOk = [...ids].every((id) => JSON.stringify(piles[id]) === JSON.stringify(view.piles[id]));
  }
  return { commitmentOk, dealOk };
}
