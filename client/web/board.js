import { h } from "./dom.js";
import { slide, snapshot } from "./motion.js";

// A pure renderer of one view (docs/protocol.md 6.2): it draws the piles the server sent and
// reports what the player does — "card clicked" (a pile and how many cards from its top),
// "stock clicked", "dropped on pile" — to the callbacks it was given. It holds no rules and
// no network: the page decides what to send, and a refused move is undone simply by drawing
// the same view again (the dragged card snaps back).

const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const RANKS = { T: "10" };
const GROUPS = [
  ["f", "Foundations"], ["r", "Reserve"], ["c", "Cells"], ["t", "Tableau"],
];

/** A face-up card, a face-down back, or a masked card (a spectator's "??" / null). */
export function cardNode(code, extra = {}) {
  if (!code || code.length !== 2 || !SUITS[code[1]]) {
    return h("div", { class: "card masked", role: "img", "aria-label": "masked card", ...extra }, h("span", { text: "?" }));
  }
  const rank = RANKS[code[0]] || code[0];
  const suit = SUITS[code[1]];
  const red = code[1] === "D" || code[1] === "H";
  return h("div", {
    class: `card face ${red ? "red" : "black"}`, "data-card": code, role: "img",
    "aria-label": `${rank}${suit}`, ...extra,
  },
  h("span", { class: "corner", text: `${rank}${suit}` }),
  h("span", { class: "pip", text: suit }),
  h("span", { class: "corner bottom", text: `${rank}${suit}` }));
}

export function backNode(extra = {}) {
  return h("div", { class: "card back", role: "img", "aria-label": "face-down card", ...extra });
}

function sortedIds(piles, letter) {
  return Object.keys(piles).filter((p) => p[0] === letter)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
}

/**
 * Draw `view` into `root`. `opts`: {interactive, onCard(pile, n), onStock(), onDrop(pile, n,
 * target), targets(pile, n) -> Set of pile ids to light up while dragging, compact,
 * onKey(event) -> true when the page handled a key pressed on the board, motion: false to
 * redraw without sliding the cards}.
 * Returns nothing; call again to redraw.
 */
export function renderBoard(root, view, opts = {}) {
  const before = opts.motion === false ? null : snapshot(root);  // where the cards were
  document.querySelectorAll(".drag-layer").forEach((n) => n.remove());
  root.replaceChildren();
  root.classList.add("board");
  root.classList.toggle("compact", !!opts.compact);
  const piles = view.piles;
  const top = h("div", { class: "row top-row" });
  if (piles.s) top.append(stockPile(piles.s, view, opts));
  if (piles.w) top.append(wastePile(piles.w, view, opts));
  root.append(top);
  for (const [letter, title] of GROUPS) {
    const ids = sortedIds(piles, letter);
    if (!ids.length) continue;
    const row = h("div", { class: `row group-${letter}`, "aria-label": title });
    for (const id of ids) row.append(pileNode(id, piles[id], letter, opts));
    (letter === "f" ? top : root).append(letter === "f" ? h("div", { class: "foundations" }, row) : row);
  }
  // the widest row, so that a phone scales the cards to fit it (style.css, max-width 560px)
  root.style.setProperty("--cols", String(Math.max(...[...root.querySelectorAll(".row")].map((r) => r.querySelectorAll(":scope > .pile, :scope .pile").length), 1)));
  if (opts.interactive) enableDrag(root, opts);
  slide(root, before);  // the cards that changed place travel there (motion.js)
}

function label(id) {
  return h("div", { class: "pile-label", text: id });
}

function stockPile([count], view, opts) {
  const more = view.redeals_left === null || view.redeals_left > 0;
  const pile = h("div", {
    class: "pile stock", "data-pile": "s", role: opts.interactive ? "button" : null,
    "aria-label": count ? `stock, ${count} cards` : "stock, empty",
    tabindex: opts.interactive ? "0" : null,
  }, label("s"));
  if (count) pile.append(backNode(), h("div", { class: "count", text: String(count) }));
  else pile.append(h("div", { class: `slot ${more ? "redeal" : ""}`, text: more ? "↻" : "" }));
  if (opts.interactive) {
    pile.addEventListener("click", () => opts.onStock && opts.onStock(count));
  }
  return pile;
}

function wastePile([, cards], view, opts) {
  const draw = view.options && view.options.draw === "3" ? 3 : 1;
  const pile = h("div", { class: "pile waste", "data-pile": "w", role: "group", "aria-label": cards.length ? `waste w: ${pileWords("w", 0, cards.slice(-1), "w").split(": ")[1]} on top (${cards.length})` : "waste w: empty" }, label("w"));
  if (!cards.length) pile.append(h("div", { class: "slot" }));
  const shown = cards.slice(-draw);
  shown.forEach((code, i) => {
    const last = i === shown.length - 1;
    const node = cardNode(code, { style: `--fan:${i}` });
    node.classList.add("fan");
    if (last) markMovable(node, "w", 1, opts);
    pile.append(node);
  });
  return pile;
}

function markMovable(node, pile, n, opts) {
  if (!opts.interactive) return;
  node.dataset.src = pile;
  node.dataset.n = String(n);
  node.setAttribute("role", "button");
  node.tabIndex = 0;
}

const KINDS = { f: "foundation", t: "column", r: "reserve", c: "cell" };

/** A pile as a screen reader says it: "column t3: 2 face-down, 5♠ 4♥" (face-down cards as a
 * count only: their faces are not known here). */
export function pileWords(id, hidden, cards, letter) {
  const faces = cards.map((c) => (c && c.length === 2 && SUITS[c[1]] ? `${RANKS[c[0]] || c[0]}${SUITS[c[1]]}` : "masked"));
  const parts = [];
  if (hidden) parts.push(`${hidden} face-down`);
  if (faces.length) parts.push(letter === "f" || letter === "r" ? `${faces[faces.length - 1]} on top (${faces.length})` : faces.join(" "));
  return `${KINDS[letter] || "pile"} ${id}: ${parts.length ? parts.join(", ") : "empty"}`;
}

function pileNode(id, [hidden, cards], letter, opts) {
  const fanned = letter === "t" || (letter === "r" && cards.length > 1 && opts.fanReserve);
  const pile = h("div", {
    class: `pile ${fanned ? "fanned" : "stacked"} kind-${letter}`, "data-pile": id,
    role: "group", "aria-label": pileWords(id, hidden, cards, letter),
  }, label(id));
  if (opts.highlight && opts.highlight.has(id)) pile.classList.add("target");
  if (!hidden && !cards.length) pile.append(h("div", { class: "slot" }));
  if (!fanned) {
    if (hidden) pile.append(backNode());
    if (cards.length) {
      const node = cardNode(cards[cards.length - 1]);
      if (letter !== "f" || opts.foundationMoves !== false) markMovable(node, id, 1, opts);
      pile.append(node);
      if (cards.length > 1 || hidden) {
        pile.append(h("div", { class: "count", text: String(cards.length + hidden) }));
      }
    }
    return pile;
  }
  let i = 0;
  for (let k = 0; k < hidden; k++) pile.append(backNode({ style: `--i:${i++}` }));
  cards.forEach((code, k) => {
    const node = cardNode(code, { style: `--i:${i++}` });
    markMovable(node, id, cards.length - k, opts);
    pile.append(node);
  });
  pile.style.setProperty("--n", String(i));
  return pile;
}

// ----------------------------------------------------------------- pointer: click and drag

function enableDrag(root, opts) {
  let drag = null;
  root.onpointerdown = (ev) => {
    const card = ev.target.closest(".card[data-src]");
    if (!card || ev.button > 0) return;
    drag = { card, x: ev.clientX, y: ev.clientY, moved: false, ghost: null };
  };
  root.onpointermove = (ev) => {
    if (!drag) return;
    const dx = ev.clientX - drag.x;
    const dy = ev.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < 6) return;
    if (!drag.moved) {
      drag.moved = true;
      drag.ghost = dragGhost(drag.card);
      const targets = opts.targets ? opts.targets(drag.card.dataset.src, Number(drag.card.dataset.n)) : new Set();
      root.querySelectorAll(".pile[data-pile]").forEach((p) => p.classList.toggle("target", targets.has(p.dataset.pile)));
      root.setPointerCapture?.(ev.pointerId);
    }
    drag.ghost.style.transform = `translate(${dx}px, ${dy}px)`;
    const over = pileAt(root, ev.clientX, ev.clientY);
    root.querySelectorAll(".pile.over").forEach((p) => p.classList.remove("over"));
    if (over) over.classList.add("over");
  };
  const finish = (ev) => {
    if (!drag) return;
    const { card, moved, ghost } = drag;
    drag = null;
    root.querySelectorAll(".pile.over, .pile.target").forEach((p) => p.classList.remove("over", "target"));
    const src = card.dataset.src;
    const n = Number(card.dataset.n);
    if (!moved) {
      opts.onCard && opts.onCard(src, n);
      return;
    }
    const target = pileAt(root, ev.clientX, ev.clientY);
    const dst = target && target.dataset.pile;
    if (dst && dst !== src && opts.onDrop) {
      ghost.classList.add("pending");
      opts.onDrop(src, n, dst);
    } else {
      ghost.remove(); // dropped nowhere: snap back
      card.parentElement.querySelectorAll(".dragging").forEach((c) => c.classList.remove("dragging"));
    }
  };
  root.onpointerup = finish;
  root.onpointercancel = () => { if (drag && drag.ghost) drag.ghost.remove(); drag = null; };
  root.onkeydown = (ev) => {
    if (opts.onKey && opts.onKey(ev)) { ev.preventDefault(); return; }  // the page's own keys
    if (ev.key !== "Enter" && ev.key !== " ") return;
    const card = ev.target.closest && ev.target.closest(".card[data-src]");
    if (card) { ev.preventDefault(); opts.onCard && opts.onCard(card.dataset.src, Number(card.dataset.n)); }
    else if (ev.target.dataset && ev.target.dataset.pile === "s") { ev.preventDefault(); ev.target.click(); }
  };
}

/** The dragged card and those above it, lifted into a layer that follows the pointer. */
function dragGhost(card) {
  const pile = card.parentElement;
  const cards = [...pile.querySelectorAll(".card")];
  const moving = cards.slice(cards.indexOf(card)).filter((c) => !c.classList.contains("back"));
  const layer = h("div", { class: "drag-layer" });
  const box = pile.getBoundingClientRect();
  layer.style.left = `${box.left}px`;
  layer.style.top = `${box.top}px`;
  layer.style.width = `${box.width}px`;
  for (const c of moving) {
    const r = c.getBoundingClientRect();
    const copy = c.cloneNode(true);
    copy.style.position = "absolute";
    copy.style.left = `${r.left - box.left}px`;
    copy.style.top = `${r.top - box.top}px`;
    copy.style.width = `${r.width}px`;
    copy.style.height = `${r.height}px`;
    layer.append(copy);
    c.classList.add("dragging");
  }
  document.body.append(layer);
  return layer;
}

function pileAt(root, x, y) {
  for (const pile of root.querySelectorAll(".pile[data-pile]")) {
    const r = pile.getBoundingClientRect();
    const bottom = Math.max(r.bottom, ...[...pile.children].map((c) => c.getBoundingClientRect().bottom));
    if (x >= r.left && x <= r.right && y >= r.top && y <= bottom) return pile;
  }
  return null;
}
