// Dailies (#/daily): per variant today's three certified deals (easy, medium, hard; the day's
// first daily is one of them), a ranked attempt at each, practice after it; and a leaderboard
// page (#/leaderboard/VARIANT[/DIFFICULTY]): top, around me, par.
import { button, h, nameTag, optionsText, section, seconds, toast, variants } from "../dom.js";
import { youNode } from "../stats.js";

const LEVELS = ["easy", "medium", "hard"];

export async function mount(app, conn, variant = "unlimited") {
  if (!conn.name) {
    app.append(section("Daily challenges", h("p", {}, "Play as a guest or log in in the ", h("a", { href: "#/", text: "lobby" }), " to play the dailies.")));
    return null;
  }
  const all = await variants();
  const v = all.find((x) => x.name === variant) || all[0];
  const tabs = h("nav", { class: "tabs", "aria-label": "variants" },
    all.map((x) => h("a", { class: `button ${x.name === v.name ? "primary" : ""}`, href: `#/daily/${x.name}`, text: x.title, "aria-current": x.name === v.name ? "page" : null })));
  const you = h("div", { class: "daily-streak" });
  const cards = Object.fromEntries(LEVELS.map((level) => [level, h("article", { class: `variant daily level-${level}`, "aria-label": `${v.title}, ${level}` },
    h("h3", {}, v.title, " ", levelBadge(level)), h("p", { class: "muted", text: `Loading today's ${level} deal… (the server certifies it winnable and rates it first)` }))]));
  app.append(h("div", { class: "hero" }, h("h1", { text: "Daily challenges" }), h("p", { text: "Three deals per variant per day — easy, medium and hard — the same for everyone, each certified winnable by the solver. One ranked attempt at each; practice as often as you like after it." })),
    tabs, you, h("div", { class: "dailies" }, LEVELS.map((level) => cards[level])));
  let first;
  try {
    first = await conn.shared("daily", { variant: v.name });  // the day's first daily, as ever
  } catch (err) {
    cards.medium.replaceChildren(h("h3", { text: v.title }), h("p", { class: "error", text: err.message }));
    return null;
  }
  you.replaceChildren(youNode(first.you));
  const own = first.difficulty || "medium";
  fillDaily(cards[own], conn, v, first, null);
  await Promise.all(LEVELS.filter((level) => level !== own).map(async (level) => {
    try {
      fillDaily(cards[level], conn, v, await conn.shared("daily", { variant: v.name, difficulty: level }), level);
    } catch (err) {
      cards[level].replaceChildren(h("h3", {}, v.title, " ", levelBadge(level)), h("p", { class: "error", text: err.message }));
    }
  }));
  return null;
}

function levelBadge(level) {
  return h("span", { class: `badge level-${level}`, text: level });
}

/** A daily's card. ``asked``: the difficulty it was asked with — null for the day's first
 * daily, whose buttons keep their names and which counts for the streak. */
function fillDaily(card, conn, v, d, asked) {
  const level = d.difficulty || asked;
  const start = (practice) => async () => {
    try {
      const r = await conn.request("daily.start", { variant: v.name, practice, ...(asked ? { difficulty: asked } : {}) });
      location.hash = `#/race/${r.race.race}`;
    } catch (err) { toast(err.message, "error"); } // e.g. account_required, the server's reason
  };
  const named = (what) => asked ? `${what} ${asked}` : what;  // "Ranked hard attempt: …"
  const rating = d.rating || {};
  const players = rating.players
    ? `${rating.attempts} ranked results: ${Math.round(rating.players.win_rate * 100)}% won${rating.now !== level ? ` — players find it ${rating.now} so far` : ""}`
    : "Rated by the solver's effort";
  card.replaceChildren(...[h("h3", {}, v.title, " ", levelBadge(level)),
    asked ? null : h("p", { class: "small", text: "The day's first daily: it counts for your streak." }),
    h("p", { class: "muted", text: `${d.date} · ${optionsText(d.options)} · par ${d.par} moves` }),
    h("p", { class: "muted small", text: players }),
    h("p", { class: "muted small" }, "commitment ", h("code", { class: "hash", text: d.commitment.slice(0, 16) + "…" })),
    d.yesterday ? h("p", { class: "muted small", text: `Yesterday's seed: ${d.yesterday.seed}` }) : null,
    d.attempt_review === "held" ? h("p", { class: "review held", role: "status", text: "Your ranked result is under review: it appears on the leaderboard once a moderator clears it." }) : null,
    d.attempt_review === "pending" ? h("p", { class: "review pending", role: "status", text: "Your ranked result is being checked: it appears on the leaderboard in a few seconds when the check clears it." }) : null,
    d.attempt_review === "removed" ? h("p", { class: "review removed", role: "status", text: "Your ranked result was removed by a moderator." }) : null,
    !conn.account && !d.attempt && !asked ? h("p", { class: "muted small" }, "The ranked attempt needs an account: ", h("a", { href: "#/", text: "register or log in in the lobby" }), ".") : null,
    h("div", { class: "actions" },
      d.attempt ? h("a", { class: "button", href: `#/race/${d.attempt}`, text: asked ? `Your ${asked} attempt` : "Your attempt" })
        : button("Ranked attempt", start(false), { class: "primary", "aria-label": `${named("Ranked")} attempt: ${v.title}` }),
      d.attempt ? button("Practice", start(true), { "aria-label": `${named("Practice")}: ${v.title}` }) : null,
      h("a", { class: "button", href: `#/leaderboard/${v.name}${asked ? `/${asked}` : ""}`, text: "Leaderboard", "aria-label": `${named("Leaderboard")}: ${v.title}` }))].filter(Boolean));
}

export async function mountLeaderboard(app, conn, variant, difficulty = null) {
  if (!conn.name) {
    app.append(section("Leaderboard", h("p", {}, "Play as a guest or log in in the ", h("a", { href: "#/", text: "lobby" }), " first.")));
    return null;
  }
  const all = await variants();
  const v = all.find((x) => x.name === variant) || { title: variant, name: variant };
  const body = h("div");
  const show = async (aroundMe) => {
    tabs.querySelectorAll("button").forEach((b, i) => {
      b.setAttribute("aria-selected", String(i === (aroundMe ? 1 : 0)));
      b.classList.toggle("primary", i === (aroundMe ? 1 : 0));
    });
    try {
      const r = await conn.request("leaderboard", { variant, limit: 20, around_me: aroundMe, ...(difficulty ? { difficulty } : {}) });
      body.replaceChildren(...[
        h("p", { class: "muted", text: `${r.date}${r.difficulty ? ` · ${r.difficulty} deal` : ""} · ${r.total} entries · par ${r.par ?? "–"} moves${r.my_rank ? ` · you are #${r.my_rank}` : ""}` }),
        r.provisional ? h("p", { class: "provisional small", text: `Provisional until ${new Date(r.review_until).toISOString().slice(0, 16).replace("T", " ")} UTC: results under review may still be added, banned ones removed.` }) : null,
        r.my_review === "pending" && r.my_row ? h("p", { class: "review pending", role: "status", text: `Your result (${r.my_row.result}, ${seconds(r.my_row.time)}) is being checked: it is listed in a few seconds when the check clears it.` }) : null,
        r.my_review === "held" && r.my_row ? h("p", { class: "review held", role: "status", text: `Your result (${r.my_row.result}, ${seconds(r.my_row.time)}) is under review: it is listed once a moderator clears it.` }) : null,
        r.rows.length ? h("table", { class: "standings" },
          h("thead", {}, h("tr", {}, ["#", "player", "result", "time", "moves", "vs par", "home"].map((t) => h("th", { text: t })))),
          h("tbody", {}, r.rows.map((x) => h("tr", { class: x.player === conn.player ? "me" : "" },
            h("td", { text: String(x.rank) }), h("td", {}, h("a", { href: `#/profile/${x.name}` }, nameTag(x.name, x.title))), h("td", { text: x.result }),
            h("td", { text: seconds(x.time) }), h("td", { text: String(x.moves) }),
            h("td", { text: r.par && x.result === "won" ? `${x.moves - r.par >= 0 ? "+" : ""}${x.moves - r.par}` : "" }),
            h("td", { text: String(x.home) })))))
          : h("p", { class: "muted", text: "Nobody has finished today's deal yet." })].filter(Boolean));
    } catch (err) { body.replaceChildren(h("p", { class: "error", text: err.message })); }
  };
  const tabs = h("div", { class: "tabs", role: "tablist" },
    button("Top", () => show(false), { role: "tab" }), button("Around me", () => show(true), { role: "tab" }));
  const go = () => { location.hash = `#/leaderboard/${pick.value}${level.value ? `/${level.value}` : ""}`; };
  const pick = h("select", { id: "lb-variant", onchange: go },
    all.map((x) => h("option", { value: x.name, selected: x.name === variant, text: x.title })));
  const level = h("select", { id: "lb-level", onchange: go },
    [h("option", { value: "", selected: !difficulty, text: "the day's first daily" }),
      ...LEVELS.map((x) => h("option", { value: x, selected: x === difficulty, text: x }))]);
  app.append(section(`Leaderboard · ${v.title}${difficulty ? ` · ${difficulty}` : ""}`, h("label", { for: "lb-variant", text: "Variant " }), pick,
    h("label", { for: "lb-level", text: " Daily " }), level, tabs, body));
  await show(false);
  return null;
}
