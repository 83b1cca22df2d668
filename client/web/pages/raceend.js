// The end of a race on the race page: standings, the verdict, the deal checked in the browser,
// a ranked daily's streak and badge, and what to do next (rematch, next deal, bracket); and the
// rematch offer another racer's request pops up on any page.
import { verify } from "../deals.js";
import { button, h, nameTag, section, seconds, toast } from "../dom.js";
import { reportButton } from "../report.js";
import { youNode } from "../stats.js";
import { verdictText } from "./racestate.js";

/** The end of a ranked daily: the streak and month's badge it earned (counted just after the
 * end, so asked twice), or why it does not count yet (a result under review). */
async function dailyYou(conn, node, variant, difficulty) {
  for (const wait of [400, 1500]) {
    await new Promise((ok) => setTimeout(ok, wait));
    let d;
    try { d = await conn.shared("daily", { variant, ...(difficulty ? { difficulty } : {}) }); } catch { return; }
    const review = d.attempt_review && d.attempt_review !== "clear";
    node.replaceChildren(...[review ? h("p", { class: "muted", text: "Your streak and badge count this result once the fair-play check clears it." }) : null, youNode(d.you)].filter(Boolean));
  }
}

/** The race page's end section (``page.nodes.end``), drawn once per end and verdict. */
export function renderEnding(page, s) {
  const n = page.nodes.end;
  if (!s.end) { n.replaceChildren(); return; }
  const shown = `${s.end.v}|${s.verdict ? s.verdict.outcome : ""}`;
  if (n.dataset.v === shown) return;
  n.dataset.v = shown;
  const rated = s.end.standings.some((r) => r.rating);
  const canReport = page.conn.account && s.kind === "race" && s.end.standings.length > 1;
  const table = h("table", { class: "standings" },
    h("thead", {}, h("tr", {}, ["#", "racer", "result", "home", "moves", "time", rated ? "rating" : null, canReport ? "" : null].filter((x) => x !== null).map((t) => h("th", { text: t })))),
    h("tbody", {}, s.end.standings.map((r) => h("tr", { class: r.player === page.conn.player ? "me" : "" },
      h("td", { text: String(r.rank) }), h("td", {}, nameTag(r.name, r.title)), h("td", { text: r.result }),
      h("td", { text: String(r.home) }), h("td", { text: String(r.moves) }), h("td", { text: seconds(r.elapsed) }),
      rated ? h("td", { text: r.rating ? `${Math.round(r.rating.before)} → ${Math.round(r.rating.after)} (${r.rating.after >= r.rating.before ? "+" : ""}${Math.round(r.rating.after - r.rating.before)})` : "" }) : null,
      canReport ? h("td", {}, r.player !== page.conn.player && !r.title ? reportButton(page.conn, r.name, page.rid) : null) : null))));
  const check = h("p", { class: "verify", text: s.end.seed !== undefined ? "Checking the deal in your browser…"
    : s.kind === "arena" || s.kind === "knockout" ? "This deal's seed is revealed with the tournament's master seed when the tournament is over."
      : "This deal's seed is revealed tomorrow (daily)." });
  const seed = s.end.seed !== undefined ? h("p", {}, "Seed ", h("code", { text: String(s.end.seed) }), " · commitment ", h("code", { class: "hash", text: s.end.commitment })) : null;
  if (s.end.seed !== undefined) {
    verify(String(s.end.seed), s.end.commitment || s.commitment, s.start).then(({ commitmentOk, dealOk }) => {
      check.textContent = `${commitmentOk ? "✓" : "✗"} sha256(seed) ${commitmentOk ? "matches" : "does NOT match"} the commitment published before the start · ${dealOk === null ? "deal not checked" : dealOk ? "✓ the deal recomputed in your browser matches the one you played" : "✗ the recomputed deal differs"}`;
      check.classList.add(commitmentOk && dealOk !== false ? "ok" : "error");
    });
  }
  const you = s.kind === "daily" && s.end.standings.some((r) => r.player === page.conn.player) ? h("div", { class: "daily-you", "aria-live": "polite" }) : null;
  if (you) dailyYou(page.conn, you, s.variant, s.difficulty);
  n.replaceChildren(section("Race over",
    h("p", { class: "result-line", text: endLine(s.end, page.conn.player) }),
    table,
    h("p", { class: "muted small order", text: "Order: who won, by time; then more cards home, then who got those cards home first, then more moves." }),
    s.verdict ? h("p", { class: `verdict verdict-${s.verdict.outcome}`, "aria-live": "polite", text: verdictText(s.verdict) }) : null,
    you, seed, check,
    h("div", { class: "actions" },
      s.kind === "race" ? button("Rematch", async () => {
        const r = await page.request("race.rematch", { race: page.rid });
        if (r) location.hash = `#/race/${r.race.race}`;
      }, { class: "primary" }) : null,
      s.kind === "race" ? h("a", { class: "button", href: `#/replay/${page.rid}`, text: "Replay" }) : null,
      s.kind === "arena" ? button("Next deal", async () => {
        const r = await page.request("tournament.play", { tournament: s.tournament });
        if (r) location.hash = `#/race/${r.race.race}`;
      }, { class: "primary" }) : null,
      s.tournament ? h("a", { class: "button", href: `#/tournament/${s.tournament}`, text: s.kind === "knockout" ? "Bracket" : "Standings" }) : null,
      h("a", { class: "button", href: "#/", text: "Lobby" }))));
}

/** How the race ended, in a player's words ("alice wins in 31.2 s", "time is up", …). */
export function endLine(end, me) {
  const rows = end.standings || [];
  const winner = rows[0];
  if (winner && winner.result === "won") return `${winner.name} wins in ${seconds(winner.elapsed)}${winner.player === me ? " — well played!" : ""}`;
  if (end.reason === "time") return "Time is up: nobody won; the order is by cards home.";
  if (rows.length && rows.every((r) => r.result === "resigned")) return rows.length > 1 ? "Everyone resigned: nobody won; the order is by cards home." : "You resigned.";
  return "Every game is over and nobody won; the order is by cards home.";
}

/** Another racer asked for a rematch: offer to join it (one click). */
export function offerRematch(conn, msg) {
  const old = document.querySelector(".rematch-offer");
  if (old) old.remove();
  const by = msg.by || "A rival";
  const node = h("div", { class: "rematch-offer", role: "dialog", "aria-label": "rematch offer" },
    h("span", { text: `${by} offers a rematch` }),
    button("Join rematch", async () => {
      node.remove();
      try {
        const r = await conn.request("race.join", { race: msg.race.race });
        location.hash = `#/race/${r.race.race}`;
      } catch (err) { toast(err.message, "error"); }
    }, { class: "primary" }),
    button("No thanks", () => node.remove()));
  document.body.append(node);
}
