// Cards that travel instead of jumping (docs/accessibility.md): the board is redrawn from each
// view, so a card's move is shown by FLIP — its old place is read before the redraw, its new
// one after, and the new node slides from the old place to the new one (the Web Animations
// API on `transform`, 180 ms). Nothing waits for it: the next input, the ack and the next
// redraw never do (a redraw drops the running animations with their nodes). Only cards whose
// code is on the board once before and once after move (a double deck's twins stay put), and
// `prefers-reduced-motion: reduce` or the "Reduce motion" setting turns it off.

export const DURATION = 180;

/** Whether motion is off: the system's reduced-motion wish, or the page's setting. */
export function reduced() {
  return (window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches)
    || document.body.classList.contains("reduce-motion");
}

function unique(root) {
  const seen = new Map();
  for (const node of root.querySelectorAll(".card.face[data-card]")) {
    const code = node.dataset.card;
    seen.set(code, seen.has(code) ? null : node);
  }
  return seen;
}

/** Where each card of `root` is now (code -> rect), before a redraw; null when motion is off. */
export function snapshot(root) {
  if (reduced() || !root.isConnected) return null;
  const out = new Map();
  for (const [code, node] of unique(root)) if (node) out.set(code, node.getBoundingClientRect());
  return out;
}

/** After the redraw: slide every card that changed place from where it was. Returns how many
 * cards were set moving. */
export function slide(root, before) {
  if (!before || !before.size) return 0;
  let moved = 0;
  for (const [code, node] of unique(root)) {
    const old = node && before.get(code);
    if (!old) continue;
    const now = node.getBoundingClientRect();
    const dx = old.left - now.left;
    const dy = old.top - now.top;
    if (Math.abs(dx) < 2 && Math.abs(dy) < 2) continue;
    node.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }],
      { duration: DURATION, easing: "ease-out" });
    node.classList.add("moving");
    setTimeout(() => node.classList.remove("moving"), DURATION);
    moved += 1;
  }
  return moved;
}
