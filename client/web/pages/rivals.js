// The racers' rows beside one's board while a race runs: cards home as a bar, moves, each
// racer's clock, who leads, and a cue when a rival puts a card home. Only what every racer is
// told (docs/protocol.md 7.1 `progress`: cards home, moves, elapsed, result): never a rival's
// cards or moves — it is the same deal, so a rival's card would be a card of one's own game.
//
// Who leads is section 11's standings rule applied to the progress so far (liveStandings in
// racestate.js). The cue: the rival's row lights up with "+N" for CUE_MS, the polite live
// region says "bob: 5 cards home" (the announcer holds a rival to one sentence per 1.5 s, and
// says nothing for a move that put no card home), and the `rival` tone plays when sounds are on.
import { clock, h, nameTag } from "../dom.js";
import { sound } from "../sound.js";
import { leader } from "./racestate.js";

const CUE_MS = 1600;

export class Rivals {
  /** `node`: the list's container; `conn`: the connection (the player, presence, the race
   * clock); `say(text, source)`: the page's announcer. */
  constructor(node, conn, rid, say) {
    this.node = node;
    this.conn = conn;
    this.rid = rid;
    this.me = conn.player;
    this.say = say;
    this.homes = null; // player -> cards home last drawn (null until the first draw)
    this.cues = new Map(); // player -> {until, gained}
  }

  /** Redraw the rows for race state `s`; `own` is {home, moves} from the player's own board. */
  draw(s, own) {
    if (s.state === "lobby" || !s.start) { this.node.replaceChildren(); return; }
    const total = (s.start && s.start.total) || 52;
    const lead = s.state === "running" ? leader(s) : null;
    const now = Date.now();
    const seen = new Map();
    const rows = [];
    for (const r of s.racers.values()) {
      const p = s.progress.get(r.player) || { home: s.start.home, moves: 0, elapsed: null, result: null, progress_at: null };
      const mine = r.player === this.me;
      const home = mine && own ? own.home : p.home;
      const moves = mine && own ? own.moves : p.moves;
      const end = s.end && s.end.standings.find((x) => x.player === r.player);
      const result = p.result || (end && end.result) || null;
      seen.set(r.player, home);
      const before = this.homes && this.homes.get(r.player);
      if (!mine && before !== undefined && before !== null && home > before) this.cue(r, home, home - before, lead === r.player);
      const cue = this.cues.get(r.player);
      const cued = cue && cue.until > now;
      rows.push(h("li", { class: `rival ${mine ? "me" : ""} ${cued ? "gain" : ""} ${lead === r.player ? "leading" : ""}`, "data-player": r.player },
        h("span", { class: "rname" }, nameTag(r.name, r.title, mine ? " (you)" : ""), this.presence(s, r, mine)),
        h("span", { class: "bar", role: "progressbar", "aria-valuemin": "0", "aria-valuemax": String(total), "aria-valuenow": String(home), "aria-label": `${r.name}: ${home} of ${total} cards home` },
          h("span", { class: "fill", style: `width:${(100 * home) / total}%` })),
        h("span", { class: "rstat" }, `${home}/${total} home · ${moves} move${moves === 1 ? "" : "s"}`,
          h("span", { class: "cue", "aria-hidden": "true", text: cued ? ` +${cue.gained}` : "" })),
        h("span", { class: "rclock", title: "this racer's clock: the race's time while they play, their finishing time once their game is over", text: this.clockText(s, p, result, end) }),
        h("span", { class: "rtags" },
          lead === r.player ? h("span", { class: "badge lead", text: "leading" }) : null,
          result ? h("span", { class: `badge result-${result}`, text: result }) : null,
          p.progress_at !== null && p.progress_at !== undefined ? h("span", { class: "muted small last-home", text: `last card home at ${clock(p.progress_at)}` }) : null)));
    }
    this.homes = seen;
    this.node.replaceChildren(h("ul", {}, rows));
  }

  presence(s, r, mine) {
    // a rival's connection (presence frames; none for bots), while the race is on
    const online = mine || s.end ? undefined : this.conn.online(this.rid, r.player);
    if (online === undefined) return null;
    return h("span", { class: `presence ${online ? "online" : "offline"}`, title: online ? "connected" : "disconnected: their clock runs on", "aria-label": `${r.name} is ${online ? "connected" : "disconnected"}`, text: online ? " ● online" : " ○ offline" });
  }

  /** The row's clock: the race's running time while the racer plays; the time their game
   * ended once it did (the result's progress event; a timeout: the standings' time). */
  clockText(s, p, result, end) {
    if (result) {
      const at = end ? end.elapsed : p.elapsed;
      return at === null || at === undefined ? "" : `${result === "won" ? "won in" : "ended at"} ${clock(at)}`;
    }
    if (s.state !== "running" || !s.started_at) return "";
    const limit = s.ends_at ? s.ends_at - s.started_at : Infinity;
    return clock(Math.min(limit, this.conn.now() - s.started_at));
  }

  cue(r, home, gained, leads) {
    this.cues.set(r.player, { until: Date.now() + CUE_MS, gained });
    // the tone with the sentence: both held to one per rival every 1.5 s (the announcer's gap)
    if (this.say(`${r.name}: ${home} card${home === 1 ? "" : "s"} home${leads ? ", leading" : ""}`, r.player)) sound("rival");
    setTimeout(() => this.expire(), CUE_MS + 20);
  }

  /** Take the light off cues whose time is over (without redrawing the rows). */
  expire() {
    const now = Date.now();
    for (const [pid, cue] of this.cues) {
      if (cue.until > now) continue;
      this.cues.delete(pid);
      const row = this.node.querySelector(`li[data-player="${pid}"]`);
      if (row) {
        row.classList.remove("gain");
        const mark = row.querySelector(".cue");
        if (mark) mark.textContent = "";
      }
    }
  }

  /** Advance the running clocks (called by the page's timer; rows are not rebuilt). */
  tick(s) {
    if (!s || s.state !== "running") return;
    for (const row of this.node.querySelectorAll("li[data-player]")) {
      const p = s.progress.get(row.dataset.player);
      const c = row.querySelector(".rclock");
      if (c && !(p && p.result)) c.textContent = this.clockText(s, p || {}, null, null);
    }
  }
}
