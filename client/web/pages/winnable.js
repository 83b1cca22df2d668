// Practice only, opt-in: "still winnable?" next to the board (docs/protocol.md 5.26). With the
// checkbox on, the page asks the server after each of its moves whether a win still exists
// from its position; the server's solver answers winnable, lost (a proof) or undecided, and
// refuses anywhere but a practice game. One check at a time: moves made meanwhile are checked
// together once the answer is in, and an answer for an older position is never shown.
//
// The verdict sits in a polite live region that changes only when the answer changes, so a
// screen reader hears "lost" once, not after every move; "checking…" is shown, not said.
import { h } from "../dom.js";

const KEY = "solrace.winnable";

export function words(reply) {
  switch (reply.outcome) {
    case "winnable": return `Still winnable: yes — ${reply.claim}.`;
    case "lost": return `Still winnable: no — ${reply.claim} (proved).`;
    default: return `Still winnable: undecided — no answer within ${reply.nodes} positions searched; nothing is claimed.`;
  }
}

export class StillWinnable {
  /** `seq()`: the number of moves of the page's board now (null: no board yet). */
  constructor(conn, rid, seq) {
    this.conn = conn;
    this.rid = rid;
    this.seq = seq;
    this.on = localStorage.getItem(KEY) === "1";
    this.asking = false;
    this.again = false;
    this.shown = null; // the sentence in the live region
    this.verdict = h("span", { class: "verdict", "aria-live": "polite", "aria-atomic": "true" });
    this.pending = h("span", { class: "muted small pending" });
    this.node = h("div", { class: "still-winnable", hidden: !this.on }, this.verdict, this.pending);
  }

  /** The checkbox for the controls (practice games only: the page offers it nowhere else). */
  checkbox() {
    const box = h("input", { type: "checkbox", id: "still-winnable", checked: this.on, onchange: () => {
      this.on = box.checked;
      localStorage.setItem(KEY, this.on ? "1" : "0");
      this.node.hidden = !this.on;
      if (this.on) this.check();
    } });
    return h("label", { class: "check", for: "still-winnable" }, box, " Still winnable? (the solver checks after each move)");
  }

  /** Ask about the current position (when on); called after each acknowledged move. */
  async check() {
    if (!this.on || this.seq() === null) return;
    if (this.asking) { this.again = true; return; }
    this.asking = true;
    this.pending.textContent = " checking…";
    try {
      do {
        this.again = false;
        let reply;
        try {
          reply = await this.conn.request("winnable", { race: this.rid });
        } catch (err) {
          if (["already_finished", "not_running"].includes(err.code)) return;
          this.say(err.code, err.message);
          return;
        }
        if (reply.seq === this.seq()) this.say(reply.outcome, words(reply));
      } while (this.again && this.on);
    } finally {
      this.asking = false;
      this.pending.textContent = "";
    }
  }

  say(outcome, text) {
    if (text === this.shown) return;
    this.shown = text;
    this.node.dataset.outcome = outcome;
    this.verdict.textContent = text;
  }
}
