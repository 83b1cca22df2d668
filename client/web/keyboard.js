// Playing without a mouse, and being told what happens (docs/accessibility.md).
//
// Keyboard: the board's movable cards and its piles take the focus; arrows move it (left and
// right: to the neighbouring pile; up and down: deeper or shallower in a fanned pile's face-up
// run); Enter or Space plays the focused card to its best place (the server's pointing move,
// as a click does); M picks the focused card up, the arrows then choose a pile and Enter puts
// it there (Escape drops the pick); S draws; F plays the safe cards home; ? lists the keys.
// Nothing here knows a rule: a pick is sent as a move and the server says yes or no.
//
// Announcements: a polite live region, rate-limited per source, so that a fast rival does not
// drown the player's own moves and refusals.
import { h } from "./dom.js";

export const KEYS = [
  ["← →", "move the focus to the previous or next pile"],
  ["↑ ↓", "in a column: take more or fewer of its face-up cards"],
  ["Enter or Space", "play the focused card to its best place (or put a picked card on the focused pile)"],
  ["M", "pick the focused card up; then choose a pile with the arrows and press Enter"],
  ["Escape", "drop the pick, close this list"],
  ["S", "draw from the stock"],
  ["F", "send the safe cards home"],
  ["?", "show or hide this list"],
  ["a letter or digit elsewhere", "type a move in notation (t3f1, t3, sw) in the Move box"],
];

/** The board's piles in reading order, and where a pile's movable cards are. */
function piles(root) {
  return [...root.querySelectorAll(".pile[data-pile]")];
}

function movable(pile) {
  return [...pile.querySelectorAll(".card[data-src]")];
}

/** The focus target of a pile: its top movable card, else the pile itself. */
function target(pile) {
  const cards = movable(pile);
  if (cards.length) return cards[cards.length - 1];
  pile.tabIndex = -1;
  return pile;
}

/**
 * Keyboard play on the board `root` (redrawn by renderBoard: call `restore()` after each
 * draw). `acts`: {play(src, n), move(src, n, dst), draw(), home(), say(text)}.
 */
export class BoardKeys {
  constructor(root, acts) {
    this.root = root;
    this.acts = acts;
    this.picked = null; // {src, n, label}
    this.focusPile = null; // pile id and depth to restore after a redraw
    this.focusDepth = 0;
  }

  /** Whether a key event belongs to the board (its focus is inside it). */
  owns(ev) {
    return this.root.contains(ev.target);
  }

  restore() {
    if (!this.focusPile) return;
    const pile = this.root.querySelector(`.pile[data-pile="${this.focusPile}"]`);
    if (!pile) return;
    const cards = movable(pile);
    const node = cards.length ? cards[Math.max(0, cards.length - 1 - this.focusDepth)] : target(pile);
    if (this.picked) this.markPicked();
    if (document.activeElement === document.body || !document.activeElement || this.root.contains(document.activeElement)) node.focus();
  }

  current() {
    const el = document.activeElement;
    const pile = el && el.closest && el.closest(".pile[data-pile]");
    return pile && this.root.contains(pile) ? { el, pile } : null;
  }

  /** Handle one key; true when it was the board's. */
  key(ev) {
    const at = this.current();
    const k = ev.key;
    if (k === "Escape" && this.picked) {
      this.acts.say(`${this.picked.label} put back`);
      this.unpick();
      return true;
    }
    if (!at) return false;
    const list = piles(this.root);
    const i = list.indexOf(at.pile);
    if (k === "ArrowRight" || k === "ArrowLeft") {
      const next = list[(i + (k === "ArrowRight" ? 1 : list.length - 1)) % list.length];
      this.focus(next, 0);
      return true;
    }
    if (k === "ArrowUp" || k === "ArrowDown") {
      const cards = movable(at.pile);
      if (cards.length) {
        const j = Math.max(0, cards.indexOf(at.el));
        const nj = Math.min(cards.length - 1, Math.max(0, j + (k === "ArrowUp" ? -1 : 1)));
        this.focus(at.pile, cards.length - 1 - nj);
      }
      return true;
    }
    if (k === "Enter" || k === " ") {
      if (this.picked) {
        const dst = at.pile.dataset.pile;
        const { src, n } = this.picked;
        this.unpick();
        if (dst !== src) this.acts.move(src, n, dst);
        return true;
      }
      const card = at.el.closest(".card[data-src]");
      if (card) this.acts.play(card.dataset.src, Number(card.dataset.n));
      else if (at.pile.dataset.pile === "s" || k === " ") this.acts.draw();  // Space draws
      return true;
    }
    if (k === "m" || k === "M") {
      const card = at.el.closest(".card[data-src]");
      if (!card) { this.acts.say("nothing to pick up here"); return true; }
      this.picked = { src: card.dataset.src, n: Number(card.dataset.n), label: describeCard(card) };
      this.markPicked();
      this.acts.say(`${this.picked.label} picked up: choose a pile with the arrows, then Enter`);
      return true;
    }
    if (k === "s" || k === "S") { this.acts.draw(); return true; }
    if (k === "f" || k === "F") { this.acts.home(); return true; }
    return false;
  }

  focus(pile, depth) {
    this.focusPile = pile.dataset.pile;
    this.focusDepth = depth;
    const cards = movable(pile);
    const node = cards.length ? cards[Math.max(0, cards.length - 1 - depth)] : target(pile);
    node.focus();
  }

  markPicked() {
    this.root.querySelectorAll(".picked").forEach((c) => c.classList.remove("picked"));
    if (!this.picked) return;
    const pile = this.root.querySelector(`.pile[data-pile="${this.picked.src}"]`);
    const card = pile && pile.querySelector(`.card[data-src][data-n="${this.picked.n}"]`);
    if (card) card.classList.add("picked");
  }

  unpick() {
    this.picked = null;
    this.markPicked();
  }
}

/** "5♠, 3 cards" for a card with its run above it. */
export function describeCard(card) {
  const n = Number(card.dataset.n || 1);
  return `${card.getAttribute("aria-label")}${n > 1 ? ` and the ${n - 1} card${n > 2 ? "s" : ""} on it` : ""}`;
}

/** A polite live region that says at most one thing per `gap` ms per source. */
export class Announcer {
  constructor(gap = 1500) {
    this.node = h("div", { class: "sr-only", role: "status", "aria-live": "polite", "aria-atomic": "true" });
    this.gap = gap;
    this.last = new Map();
  }

  say(text, source = "me") {
    const now = Date.now();
    if (source !== "me" && now - (this.last.get(source) || 0) < this.gap) return false;
    this.last.set(source, now);
    this.node.textContent = "";
    // a fresh text node each time, so a repeated sentence is read again
    setTimeout(() => { this.node.textContent = text; }, 20);
    return true;
  }
}

/** The list of keys, as a dialog that `?` and Escape open and close. */
export function helpDialog(onClose) {
  const close = h("button", { type: "button", text: "Close", onclick: () => onClose() });
  const node = h("div", { class: "help-keys", role: "dialog", "aria-modal": "true", "aria-label": "Keyboard keys" },
    h("h2", { text: "Keyboard keys" }),
    h("dl", {}, ...KEYS.flatMap(([k, what]) => [h("dt", { text: k }), h("dd", { text: what })])),
    close);
  setTimeout(() => close.focus(), 0);
  return node;
}

// ----------------------------------------------------------------- display settings

export const SETTINGS = [
  ["four-colour", "Four-colour deck (♣ green, ♦ blue)"],
  ["large-cards", "Large cards"],
  ["high-contrast", "High contrast"],
  ["left-handed", "Left-handed layout (foundations on the left)"],
  ["reduce-motion", "Reduce motion (cards jump instead of sliding)"],
  ["sounds", "Sounds (a move, a card home, a refusal, a rival's card home or finish)"],
];
const STORE = "solrace.display";

export function readDisplay() {
  try { return JSON.parse(localStorage.getItem(STORE) || "{}"); } catch { return {}; }
}

/** Apply the stored display settings to the page (a class per setting on <body>). */
export function applyDisplay(settings = readDisplay()) {
  for (const [key] of SETTINGS) document.body.classList.toggle(key, !!settings[key]);
}

/** Checkboxes for the display settings, kept in local storage. */
export function displayControls() {
  const current = readDisplay();
  return h("fieldset", { class: "display-settings" }, h("legend", { text: "Display" }),
    ...SETTINGS.map(([key, text]) => {
      const box = h("input", { type: "checkbox", id: `display-${key}`, checked: !!current[key], onchange: () => {
        const next = { ...readDisplay(), [key]: box.checked };
        localStorage.setItem(STORE, JSON.stringify(next));
        applyDisplay(next);
      } });
      return h("label", { class: "check", for: `display-${key}` }, box, ` ${text}`);
    }));
}
