// A player's profile (#/profile, #/profile/NAME): ratings per variant, streaks, best times.
import { h, nameTag, section, seconds, variantTitle } from "../dom.js";
import { reportButton } from "../report.js";

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
  return null;
}
