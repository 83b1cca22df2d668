// Streaks, monthly badges, statistics and the 30-day chart, as the server computes them
// (docs/leaderboards.md, "Badges" and "Statistics"): pure renderers, no requests, no rules.
import { h, seconds } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const MEDAL = { bronze: "B", silver: "S", gold: "G", diamond: "D" };

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  for (const c of children.flat()) if (c) node.append(c);
  return node;
}

/** "December 2026" from "2026-12". */
export function monthName(month) {
  const [y, m] = month.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleString("en", { month: "long", year: "numeric", timeZone: "UTC" });
}

/** One month's badge (`{month, days_won, days, badge, next, next_at}`) as a medal and a line. */
export function badgeNode(m) {
  if (!m) return null;
  const tier = m.badge || "none";
  const label = m.badge ? `${m.badge[0].toUpperCase()}${m.badge.slice(1)} badge` : "No badge yet";
  const next = m.next ? ` · ${m.next} at ${m.next_at}` : "";
  return h("span", { class: `medal medal-${tier}`, role: "img", "aria-label": `${label} for ${monthName(m.month)}: ${m.days_won} of ${m.days} days with a won daily${next}` },
    h("span", { class: "medal-icon", "aria-hidden": "true", text: MEDAL[m.badge] || "–" }),
    h("span", { "aria-hidden": "true", text: `${label} · ${monthName(m.month)} · ${m.days_won}/${m.days} days${next}` }));
}

/** "Daily streak: 3 days (best 7)". */
export function streakText(current, best) {
  return `Daily streak: ${current} ${current === 1 ? "day" : "days"} (best ${best})`;
}

/** The `daily` reply's `you`: the caller's streak in that variant and the month's badge. */
export function youNode(you) {
  if (!you) return null;
  return h("div", { class: "you-daily" }, h("span", { class: "streak", text: streakText(you.streak, you.best_streak) }), badgeNode(you.badge));
}

/** Games played (light) and won (gold) per day, oldest first: an inline SVG bar chart. */
export function chart(days) {
  const W = 600, H = 140, top = 14, bottom = 22, left = 26;
  const max = Math.max(1, ...days.map((d) => d.played));
  const step = (W - left) / Math.max(1, days.length);
  const y = (n) => H - bottom - (n / max) * (H - top - bottom);
  const played = days.reduce((a, d) => a + d.played, 0), won = days.reduce((a, d) => a + d.won, 0);
  const bars = days.map((d, i) => {
    const x = left + i * step + step * 0.15, w = step * 0.7;
    return svg("g", {}, svg("title", {}, `${d.date}: ${d.played} played, ${d.won} won`),
      d.played ? svg("rect", { class: "bar-played", x, y: y(d.played), width: w, height: y(0) - y(d.played), rx: 2 }) : null,
      d.won ? svg("rect", { class: "bar-won", x: x + w * 0.2, y: y(d.won), width: w * 0.6, height: y(0) - y(d.won), rx: 2 }) : null);
  });
  const label = (text, x, yy, anchor = "start") => { const t = svg("text", { x, y: yy, "text-anchor": anchor }); t.textContent = text; return t; };
  const node = svg("svg", { class: "chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": `Last ${days.length} days: ${played} games played, ${won} won` },
    svg("line", { class: "axis", x1: left, y1: y(0), x2: W, y2: y(0) }),
    svg("line", { class: "grid", x1: left, y1: y(max), x2: W, y2: y(max) }),
    label(String(max), left - 4, y(max) + 4, "end"), label("0", left - 4, y(0) + 4, "end"),
    days.length ? label(days[0].date.slice(5), left, H - 6) : null,
    days.length ? label(days[days.length - 1].date.slice(5), W, H - 6, "end") : null,
    bars);
  return h("figure", { class: "chart-box" }, node,
    h("figcaption", { class: "muted small" }, h("span", { class: "key key-played", "aria-hidden": "true" }), ` played (${played}) `,
      h("span", { class: "key key-won", "aria-hidden": "true" }), ` won (${won}) · ranked games per UTC day`));
}

/** Statistics per variant and options (`games` of the profile reply). */
export function statsTable(games, title) {
  if (!games.length) return h("p", { class: "muted", text: "No ranked game counted yet: ranked dailies and rated races count here once fair play clears them." });
  return h("table", { class: "standings stats" },
    h("thead", {}, h("tr", {}, ["variant", "options", "played", "won", "best", "median", "avg home", "win run"].map((t) => h("th", { text: t })))),
    h("tbody", {}, games.map((g) => h("tr", {},
      h("td", { text: title(g.variant) }), h("td", { class: "small", text: g.options || "–" }),
      h("td", { text: String(g.played) }), h("td", { text: `${g.win_pct}%` }),
      h("td", { text: seconds(g.best_time) }), h("td", { text: seconds(g.median_time) }),
      h("td", { text: String(g.avg_home) }), h("td", { text: `${g.run} (best ${g.best_run})` })))));
}
