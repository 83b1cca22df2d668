// A player's profile (#/profile, #/profile/NAME): ratings per variant, streaks, best times,
// the month's badge, tournament trophies, statistics per variant and options, the last 30
// days as a chart.
import { h, nameTag, section, seconds, variants as allVariants, variantTitle } from "../dom.js";
import { reportButton } from "../report.js";
import { badgeNode, chart, statsTable, streakText } from "../stats.js";

export async function mount(app, conn, name) {
  if (!conn.name) {
    app.append(section("Profile", h("p", {}, "Play as a guest or log in in the ", h("a", { href: "#/", text: "lobby" }), " first.")));
    return null;
  }
  let p;
  try {
    p = await conn.request("profile", name ? { name } : {});
  } catch (err) {
    app.append(section("Profile", h("p", { class: "error", text: err.message })));
    return null;
  }
  const variants = [...new Set([...Object.keys(p.ratings), ...Object.keys(p.stats)])];
  const rows = [];
  for (const v of variants) {
    const r = p.ratings[v];
    const s = p.stats[v] || {};
    rows.push(h("tr", {}, h("td", { text: await variantTitle(v) }),
      h("td", { text: r ? `${Math.round(r.rating)} ±${Math.round(r.rd)}${r.provisional ? "?" : ""} (${r.games} games)` : "–" }),
      h("td", { text: String(s.races_won ?? 0) }), h("td", { text: String(s.wins ?? 0) }),
      h("td", { text: seconds(s.best_time) }),
      h("td", { text: `${s.dailies ?? 0} played, ${s.daily_wins ?? 0} won` }),
      h("td", { text: `${s.streak ?? 0} (best ${s.best_streak ?? 0})` })));
  }
  const other = p.player !== conn.player;
  app.append(h("div", { class: "hero" }, h("h1", {}, nameTag(p.name, p.title)), h("p", { class: "muted", text: `player ${p.player}` }),
    other && conn.account && !p.title ? h("div", { class: "actions" }, reportButton(conn, p.name)) : null),
    section("Ratings and records", rows.length ? h("table", { class: "standings" },
      h("thead", {}, h("tr", {}, ["variant", "rating", "races won", "wins", "best time", "dailies", "daily streak"].map((t) => h("th", { text: t })))),
      h("tbody", {}, rows)) : h("p", { class: "muted", text: "No games on record yet: race or play a daily." })));
  const all = await allVariants();
  const title = (n) => (all.find((x) => x.name === n) || { title: n }).title;
  const streaks = Object.entries(p.streaks || {});
  if (p.badges) {
    app.append(section("Streaks and badges",
      streaks.length ? h("ul", { class: "rows" }, streaks.map(([v, st]) => h("li", {}, h("span", { text: title(v) }), h("span", { class: "streak", text: streakText(st.current, st.best) }))))
        : h("p", { class: "muted", text: "No ranked daily played yet." }),
      h("p", {}, "This month: ", badgeNode(p.badges.current)),
      p.badges.past.length ? h("div", { class: "badges", "aria-label": "earlier months" }, p.badges.past.map(badgeNode)) : null,
      h("p", { class: "muted small", text: "A month's badge counts the UTC days with a won ranked daily (any variant): bronze 5, silver 10, gold 20, diamond every day of the month." })));
  }
  if (p.trophies) app.append(section("Trophies", trophies(p.trophies)));
  if (p.games) app.append(section("Statistics", statsTable(p.games, title)));
  if (p.days) app.append(section("Last 30 days", chart(p.days)));
  return null;
}

const PLACES = ["1st", "2nd", "3rd"];

/** Podium places in final public tournaments, the latest ones linked, and the best arena score. */
function trophies(t) {
  const best = t.best_arena;
  const count = t.first + t.second + t.third;
  return h("div", {},
    h("p", { text: count ? `${t.first} × 1st, ${t.second} × 2nd, ${t.third} × 3rd` : "No podium place yet in a public tournament." }),
    t.recent.length ? h("ul", { class: "rows", "aria-label": "latest podium places" }, t.recent.map((r) => h("li", {},
      h("span", { class: `trophy place${r.place}`, text: PLACES[r.place - 1] }),
      h("a", { href: `#/tournament/${r.tournament}`, text: r.name }),
      h("span", { class: "muted", text: new Date(r.ended_at).toISOString().slice(0, 10) })))) : null,
    h("p", {}, best ? ["Best arena score: ", h("strong", { text: `${best.points} points` }), " in ", h("a", { href: `#/tournament/${best.tournament}`, text: best.name })]
      : h("span", { class: "muted", text: "No arena score yet." })));
}
