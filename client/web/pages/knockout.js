// A knockout's page (#/tournament/ID of a knockout): entry until the start, the bracket as
// one table per round (who met whom, the winner and how), updated live by the server's
// `bracket` frames, the player's own match played on this page (the race board mounted below
// the bracket), then the podium and the master seed checked in this browser.
// The rules: docs/tournaments.md ("Knockout"); the messages: docs/protocol.md section 22.6.
import { commitment } from "../deals.js";
import { button, clock, h, optionsText, section, toast } from "../dom.js";
import { mount as mountRace } from "./race.js";

const HOW = {
  race: "won the race", tie: "tie: the higher seed", walkover: "walkover",
  no_show: "neither came: the higher seed", bye: "bye", forfeit: "forfeit",
};

function when(ms) {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

export class KnockoutPage {
  constructor(app, conn, t) {
    this.app = app;
    this.conn = conn;
    this.t = t;
    this.b = null;
    this.race = null; // {rid, stop}: the match being played on this page
    this.nodes = {};
  }

  async start() {
    const n = this.nodes;
    n.head = h("div", { class: "hero" });
    n.status = h("p", { class: "t-status", role: "status" });
    n.actions = h("div", { class: "actions" });
    n.match = h("div", { class: "ko-match" });
    n.bracket = h("div", { class: "t-bracket", "aria-live": "polite" });
    n.podium = h("div");
    n.verify = h("div");
    this.app.append(n.head, n.status, n.actions, n.match, n.podium, section("Bracket", n.bracket), n.verify);
    this.renderHead();
    this.onBracket = (ev) => { if (ev.detail.tournament === this.t.tournament) this.show(ev.detail); };
    this.conn.addEventListener("bracket", this.onBracket);
    this.offResume = this.conn.onResume(() => this.follow().catch(() => {}));
    await this.follow();
    this.timer = setInterval(() => this.tick(), 1000);
  }

  stop() {
    clearInterval(this.timer);
    if (this.race && this.race.stop) this.race.stop();
    if (this.onBracket) this.conn.removeEventListener("bracket", this.onBracket);
    if (this.offResume) this.offResume();
    this.conn.request("tournament.bracket", { tournament: this.t.tournament, follow: false }).catch(() => {});
  }

  async follow() {
    this.show(await this.conn.request("tournament.bracket", { tournament: this.t.tournament, follow: true }));
  }

  renderHead() {
    const t = this.t;
    this.nodes.head.replaceChildren(h("h1", { text: t.name }),
      h("p", { class: "muted", text: `Knockout of up to ${t.max_entrants} · ${t.variant}${Object.keys(t.options || {}).length ? ` (${optionsText(t.options)})` : ""} · starts ${when(t.starts_at)} · ${t.deal_seconds} s per match · ${t.show_seconds} s to show up` }),
      t.code ? h("p", {}, "Invite: ", h("code", { class: "t-code", text: t.code }), " · link ", h("a", { href: `#/tournament/${t.code}`, text: `${location.origin}/#/tournament/${t.code}` })) : null,
      h("p", { class: "muted small" }, "commitment ", h("code", { class: "hash", text: t.commitment.slice(0, 16) + "…" }), " (the master seed is revealed when it is over)"));
  }

  name(pid) {
    const e = this.b.entrants.find((x) => x.player === pid);
    if (!e) return "—";
    return `${e.seed ? `(${e.seed}) ` : ""}${e.name}${e.banned ? " (banned)" : ""}`;
  }

  mine() {
    const b = this.b;
    if (!b || !b.my_match) return null;
    return b.matches.find((m) => m.round === b.my_match.round && m.index === b.my_match.index) || null;
  }

  entered() { return Boolean(this.b && this.b.entrants.some((e) => e.player === this.conn.player)); }

  show(b) {
    const before = this.b;
    this.b = b;
    const n = this.nodes;
    if (!b.round) {
      n.bracket.replaceChildren(h("p", { class: "muted", text: `${b.entrants.length} entered${this.entered() ? " · you are in" : ""}. The bracket is drawn at the start, seeded by rating.` }),
        b.entrants.length ? h("ul", { class: "rows", "aria-label": "entrants" }, b.entrants.map((e) => h("li", { text: e.name }))) : null);
    } else {
      const tables = [];
      for (let r = 1; r <= b.round; r += 1) tables.push(this.roundTable(r));
      n.bracket.replaceChildren(...tables);
    }
    this.renderPodium();
    const changed = !before || before.state !== b.state || before.round !== b.round || JSON.stringify(this.mine()) !== JSON.stringify(before && before.my_match ? before.matches.find((m) => m.round === before.my_match.round && m.index === before.my_match.index) : null);
    if (changed) this.renderActions();
    this.tick();
    if ((b.state === "finished" || b.state === "cancelled") && this.t.master_seed === undefined) this.reveal().catch(() => {});
  }

  roundTable(r) {
    const b = this.b;
    const me = this.conn.player;
    const entered = b.entrants.some((e) => e.player === me);
    const label = r === b.rounds ? "Final" : r === b.rounds - 1 ? "Semi-finals" : `Round ${r}`;
    const rows = b.matches.filter((m) => m.round === r).sort((x, y) => x.index - y.index).map((m) => {
      const how = m.winner ? HOW[m.how] + (m.review === "held" ? " · under review" : "")
        : this.conn.now() < m.show_by ? `to play · start window closes ${new Date(m.show_by).toISOString().slice(11, 19)} UTC` : "playing";
      return h("tr", { class: m.high === me || m.low === me ? "me" : "" },
        h("td", { text: String(m.index + 1) }), h("td", { text: this.name(m.high) }),
        h("td", { text: m.low ? this.name(m.low) : "— (bye)" }),
        h("td", { text: m.winner ? this.name(m.winner) : "—" }),
        h("td", { class: "ko-how" }, how, m.race && !entered
          // a match being played: a spectator (never an entrant) may watch it, masked
          ? h("a", { href: `#/watch/${m.race}`, "aria-label": `Watch ${this.name(m.high)} against ${this.name(m.low)}`, text: " · watch" }) : null));
    });
    return h("table", { class: "standings bracket", "aria-label": label },
      h("caption", { text: label }),
      h("thead", {}, h("tr", {}, ["match", "higher seed", "lower seed", "winner", "how"].map((x) => h("th", { scope: "col", text: x })))),
      h("tbody", {}, rows));
  }

  renderPodium() {
    const p = this.b.podium;
    if (!p) { this.nodes.podium.replaceChildren(); return; }
    const name = (pid) => (pid ? this.name(pid) : "(disqualified)");
    this.nodes.podium.replaceChildren(section("Podium", h("ol", { class: "podium", "aria-label": "podium" },
      h("li", { text: `Winner: ${name(p.winner)}` }), h("li", { text: `Finalist: ${name(p.finalist)}` }),
      h("li", { text: `Semi-finalists: ${p.semi_finalists.map(name).join(", ")}` }))));
  }

  tick() {
    const b = this.b;
    if (!b) return;
    const now = this.conn.now();
    const m = this.mine();
    let text;
    if (b.state === "open") text = now < this.t.starts_at ? `Starts in ${clock(this.t.starts_at - now)}: the bracket is drawn then.` : "Starting…";
    else if (b.state === "cancelled") text = "Cancelled: fewer than 8 entrants at the start.";
    else if (b.state === "finished") text = "Over: the podium below.";
    else {
      text = `Round ${b.round} of ${b.rounds}.`;
      if (m && !m.winner) text += now < m.show_by ? ` Your match: be ready within ${clock(m.show_by - now)}, or it is a walkover.` : " Your match is on.";
      else if (m && m.winner === this.conn.player) text += " You advance: your next match opens when this round is complete.";
      else if (this.entered()) text += " You are out.";
    }
    if (this.nodes.status.textContent !== text) this.nodes.status.textContent = text;
  }

  renderActions() {
    const a = this.nodes.actions;
    const b = this.b;
    if (!this.conn.account) {
      a.replaceChildren(h("p", { class: "muted" }, "Entering needs an account: ", h("a", { href: "#/", text: "register or log in" }), "."));
      return;
    }
    if (b.state === "open") {
      a.replaceChildren(this.entered() ? h("p", { class: "muted", text: "You are in. Your first match comes when it starts." })
        : button("Enter", () => this.enter(), { class: "primary" }));
      return;
    }
    const m = this.mine();
    const playing = this.race && m && this.race.round === m.round;
    if (b.state === "running" && m && !m.winner && !playing) a.replaceChildren(button("Play my match", () => this.play(), { class: "primary" }));
    else a.replaceChildren();
  }

  async enter() {
    try {
      this.t = (await this.conn.request("tournament.join", { tournament: this.t.tournament })).tournament;
      await this.follow();
    } catch (err) { toast(err.message, "error"); }
  }

  async play() {
    try {
      const r = await this.conn.request("tournament.play", { tournament: this.t.tournament });
      if (this.race && this.race.stop) this.race.stop();
      const holder = h("div");
      this.nodes.match.replaceChildren(section(`Your match · round ${r.deal}`, holder));
      this.race = { rid: r.race.race, round: r.deal, stop: null };
      this.race.stop = await mountRace(holder, this.conn, r.race.race);
      this.renderActions();
    } catch (err) { toast(err.message, "error"); }
  }

  async reveal() {
    this.t = (await this.conn.request("tournament.info", { tournament: this.t.tournament })).tournament;
    if (this.t.master_seed === undefined) return;
    const ok = (await commitment(this.t.master_seed)) === this.t.commitment;
    this.nodes.verify.replaceChildren(section("Verify the deals",
      h("p", { class: ok ? "verified" : "error", text: ok ? `Master seed ${this.t.master_seed}: its SHA-256 is the commitment published before the start — checked in this browser. Round r was dealt from it as deal r.` : "The revealed master seed does NOT match the commitment." })));
  }
}
