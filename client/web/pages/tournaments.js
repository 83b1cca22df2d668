// Tournaments: the list (#/tournaments: upcoming with a countdown, live, finished) with a form
// to create a private arena, event or knockout, and one tournament (#/tournament/ID-OR-CODE):
// its window, entry, the next deal (berserk or not), the live standings, and once it is over
// the master seed checked against its commitment in this browser (a knockout's page is
// knockout.js). The rules: docs/tournaments.md.
import { commitment } from "../deals.js";
import { button, clock, h, optionsText, section, toast, variants } from "../dom.js";
import { KnockoutPage } from "./knockout.js";

function when(ms) {
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

function row(t, now) {
  const status = t.state === "open" ? `starts in ${clock(t.starts_at - now)}`
    : t.state === "running" ? `ends in ${clock(t.ends_at - now)}` : `ended ${when(t.ends_at)}`;
  return h("li", {}, h("a", { href: `#/tournament/${t.tournament}`, text: t.name }),
    h("span", { class: "muted small", text: ` · ${t.variant}${Object.keys(t.options || {}).length ? ` (${optionsText(t.options)})` : ""} · ${t.entrants} entered · ${status}` }),
    leaders(t));
}

const MEDALS = ["🥇", "🥈", "🥉"];

/** A live tournament's leader, a finished one's podium (points in an arena, wins in an event). */
function leaders(t) {
  if (!t.leaders || !t.leaders.length) return null;
  const score = (r) => (t.format === "event" ? `${r.won} won` : `${r.points} pts`);
  if (t.state === "running") {
    const r = t.leaders[0];
    return h("span", { class: "t-leader small", text: ` · leader: ${r.name} (${score(r)})` });
  }
  return h("span", { class: "t-podium small", "aria-label": "podium" },
    t.leaders.map((r, i) => h("span", { text: ` ${MEDALS[i]} ${r.name} (${score(r)})` })));
}

export async function mountList(app, conn) {
  const lists = h("div");
  const show = async () => {
    const r = await conn.request("tournaments", { limit: 20 });
    const now = conn.now();
    lists.replaceChildren(...["upcoming", "live", "finished"].map((k) => section(
      { upcoming: "Upcoming", live: "Live", finished: "Finished" }[k],
      r[k].length ? h("ul", { class: "rows", "aria-label": `${k} tournaments` }, r[k].map((t) => row(t, now)))
        : h("p", { class: "muted", text: "None." }))));
  };
  app.append(h("div", { class: "hero" }, h("h1", { text: "Tournaments" }),
    h("p", {}, "Arenas: everyone plays the same deals, one after another, for points. ",
      "A win scores 4, +1 if fast, +1 if berserk; three wins in a row score double; a deal not won scores 0–2 for the cards you brought home."),
    h("p", {}, "Knockouts: 8 to 64 players seeded by rating, head-to-head races on a fresh deal each round; the winner advances.")),
  await createForm(conn), lists);
  await show();
  const timer = setInterval(() => show().catch(() => {}), 5000);
  return () => clearInterval(timer);
}

async function createForm(conn) {
  if (!conn.account) {
    return section("Create an arena", h("p", { class: "muted" }, "Creating and entering tournaments needs an account: ", h("a", { href: "#/", text: "register or log in in the lobby" }), "."));
  }
  const all = await variants();
  const name = h("input", { id: "t-name", value: "Friends' arena", maxlength: "40" });
  const variant = h("select", { id: "t-variant" }, all.map((v) => h("option", { value: v.name, text: v.title })));
  const minutes = h("input", { id: "t-minutes", type: "number", min: "10", max: "120", value: "30" });
  const deal = h("input", { id: "t-deal", type: "number", min: "30", max: "1800", value: "300" });
  const format = h("select", { id: "t-format" }, h("option", { value: "arena", text: "Arena: deal after deal for points" }),
    h("option", { value: "event", text: "Event: a few deals, everyone starting together" }),
    h("option", { value: "knockout", text: "Knockout: a bracket of head-to-head races" }));
  const deals = h("input", { id: "t-deals", type: "number", min: "1", max: "5", value: "3" });
  const most = h("input", { id: "t-max", type: "number", min: "8", max: "64", value: "16" });
  const startsIn = h("input", { id: "t-starts", type: "number", min: "1", max: "10080", value: "10" });
  const create = async () => {
    try {
      const r = await conn.request("tournament.create", {
        name: name.value, variant: variant.value, minutes: Number(minutes.value),
        deal_seconds: Number(deal.value), format: format.value, deals: Number(deals.value),
        max_entrants: Number(most.value),
        starts_in: format.value === "event" ? 60 : format.value === "knockout" ? 60 * Number(startsIn.value) : 0,
        options: variant.value === "seven-by-five" ? { cells: "5", empty_fill: "any" } : {},
      });
      location.hash = `#/tournament/${r.tournament.tournament}`;
    } catch (err) { toast(err.message, "error"); }
  };
  return section("Create a private tournament",
    h("div", { class: "form" },
      h("label", { for: "t-name", text: "Name " }), name,
      h("label", { for: "t-format", text: "Format " }), format,
      h("label", { for: "t-deals", text: "Deals (event) " }), deals,
      h("label", { for: "t-max", text: "Most entrants (knockout) " }), most,
      h("label", { for: "t-starts", text: "Knockout starts after (min) " }), startsIn,
      h("label", { for: "t-variant", text: "Game " }), variant,
      h("label", { for: "t-minutes", text: "Minutes " }), minutes,
      h("label", { for: "t-deal", text: "Seconds per deal " }), deal),
    h("div", { class: "actions" }, button("Create", create, { class: "primary" })));
}

export async function mount(app, conn, ref) {
  const info = (await conn.request("tournament.info", { tournament: ref })).tournament;
  const page = info.format === "knockout" ? new KnockoutPage(app, conn, info) : new TournamentPage(app, conn, ref);
  await page.start();
  return () => page.stop();
}

class TournamentPage {
  constructor(app, conn, ref) {
    this.app = app;
    this.conn = conn;
    this.ref = ref;
    this.t = null;
    this.standings = null;
    this.nodes = {};
  }

  async start() {
    const n = this.nodes;
    n.head = h("div", { class: "hero" });
    n.status = h("p", { class: "t-status", role: "status" });
    n.actions = h("div", { class: "actions" });
    n.table = h("div", { class: "t-standings", "aria-live": "polite" });
    n.verify = h("div");
    this.app.append(n.head, n.status, n.actions, section("Standings", n.table), n.verify);
    const r = await this.conn.request("tournament.info", { tournament: this.ref });
    this.t = r.tournament;
    this.onStandings = (ev) => { if (ev.detail.tournament === this.t.tournament) this.showStandings(ev.detail); };
    this.conn.addEventListener("standings", this.onStandings);
    this.offResume = this.conn.onResume(() => this.follow().catch(() => {}));
    await this.follow();
    this.render();
    this.timer = setInterval(() => this.tick(), 1000);
  }

  stop() {
    clearInterval(this.timer);
    if (this.onStandings) this.conn.removeEventListener("standings", this.onStandings);
    if (this.offResume) this.offResume();
    if (this.t) this.conn.request("tournament.standings", { tournament: this.t.tournament, follow: false }).catch(() => {});
  }

  now() { return this.conn.now(); }

  async follow() {
    this.showStandings(await this.conn.request("tournament.standings", { tournament: this.t.tournament, follow: true }));
  }

  render() {
    const t = this.t;
    this.nodes.head.replaceChildren(h("h1", { text: t.name }),
      h("p", { class: "muted", text: `${t.format === "event" ? `Event of ${t.deals} deals` : "Arena"} · ${t.variant}${Object.keys(t.options || {}).length ? ` (${optionsText(t.options)})` : ""} · ${when(t.starts_at)} – ${when(t.ends_at).slice(11)} · ${t.deal_seconds} s per deal` }),
      t.code ? h("p", {}, "Invite: ", h("code", { class: "t-code", text: t.code }), " · link ", h("a", { href: `#/tournament/${t.code}`, text: `${location.origin}/#/tournament/${t.code}` })) : null,
      h("p", { class: "muted small" }, "commitment ", h("code", { class: "hash", text: t.commitment.slice(0, 16) + "…" }), " (the master seed is revealed when it is over)"));
    this.tick();
    this.renderActions();
    if (t.master_seed !== undefined) this.showVerification();
  }

  tick() {
    const t = this.t;
    if (!t) return;
    const now = this.now();
    const state = now < t.starts_at ? "open" : now < t.ends_at ? "running" : t.state;
    const text = state === "open" ? `Starts in ${clock(t.starts_at - now)}.`
      : state === "running" ? `Running: ${clock(t.ends_at - now)} left${now < t.cutoff ? ` · entries close in ${clock(t.cutoff - now)}` : " · entries closed"}.`
        : state === "final" ? "Over: the results are final."
          : "Over: the results are provisional until the last deals are recorded and the fair-play review has cleared the top places.";
    if (this.nodes.status.textContent !== text) this.nodes.status.textContent = text;
    if (state !== this.shownState) { this.shownState = state; this.renderActions(); }
  }

  entered() { return Boolean(this.standings && this.standings.my_rank); }

  renderActions() {
    const t = this.t;
    const now = this.now();
    const a = this.nodes.actions;
    if (!this.conn.account) {
      a.replaceChildren(h("p", { class: "muted" }, "Entering needs an account: ", h("a", { href: "#/", text: "register or log in" }), "."));
      return;
    }
    if (!this.entered()) {
      a.replaceChildren(now < t.cutoff ? button("Enter", () => this.enter(), { class: "primary" }) : h("p", { class: "muted", text: "Entries are closed." }),
        now < t.ends_at ? h("p", { class: "muted small", text: "Watching a leader's deal (in the standings) bars you from entering this tournament." }) : null);
      return;
    }
    if (now < t.starts_at || now >= t.ends_at) {
      a.replaceChildren(h("p", { class: "muted", text: now < t.starts_at ? "You are in. Your first deal comes when it starts." : "You played. The standings below are the result." }));
      return;
    }
    const berserk = h("input", { type: "checkbox", id: "t-berserk" });
    a.replaceChildren(button("Play your next deal", () => this.play(berserk.checked), { class: "primary" }),
      t.format === "event" ? null : h("label", { for: "t-berserk" }, berserk, " Berserk: half the time, +1 point if won"));
  }

  async enter() {
    try {
      this.t = (await this.conn.request("tournament.join", { tournament: this.t.tournament })).tournament;
      await this.follow();
      this.render();
    } catch (err) { toast(err.message, "error"); }
  }

  async play(berserk) {
    try {
      const r = await this.conn.request("tournament.play", { tournament: this.t.tournament, berserk });
      location.hash = `#/race/${r.race.race}`;
    } catch (err) { toast(err.message, "error"); }
  }

  showStandings(s) {
    const before = this.entered();
    this.standings = s;
    const me = this.conn.player;
    let last = 0;
    const rows = [];
    const isEvent = s.rows.some((r) => r.time !== undefined);
    for (const r of s.rows) {
      if (r.rank > last + 1) rows.push(h("tr", {}, h("td", { colspan: "5", text: "…" })));
      last = r.rank;
      // a leader's live deal: watchable by a non-entrant (who then may not enter)
      const watch = r.race && !this.entered() && r.player !== me
        ? h("a", { class: "watch", href: `#/watch/${r.race}`, "aria-label": `Watch ${r.name}'s deal ${r.deal}`, text: ` · watch deal ${r.deal}` }) : null;
      rows.push(h("tr", { class: r.player === me ? "me" : "" },
        h("td", { text: String(r.rank) }), h("td", {}, r.name + (r.fire ? " 🔥" : ""), watch),
        isEvent ? [h("td", { text: String(r.won) }), h("td", { text: clock(r.time) }), h("td", { text: String(r.home) })]
          : [h("td", { text: String(r.points) }), h("td", { text: `${r.won}/${r.played}` })]));
    }
    this.nodes.table.replaceChildren(h("p", { class: "muted", text: `${s.entrants} entered${s.my_rank ? ` · you are #${s.my_rank}` : ""}` }),
      rows.length ? h("table", { class: "standings" },
        h("thead", {}, h("tr", {}, (isEvent ? ["#", "player", "won", "time", "home"] : ["#", "player", "points", "won"]).map((x) => h("th", { text: x })))),
        h("tbody", {}, rows)) : h("p", { class: "muted", text: "Nobody has entered yet." }));
    if (before !== this.entered()) this.renderActions();
  }

  async showVerification() {
    const t = this.t;
    const ok = (await commitment(t.master_seed)) === t.commitment;
    this.nodes.verify.replaceChildren(section("Verify the deals",
      h("p", { class: ok ? "verified" : "error", text: ok ? `Master seed ${t.master_seed}: its SHA-256 is the commitment published before the start — checked in this browser.` : "The revealed master seed does NOT match the commitment." })));
  }
}
