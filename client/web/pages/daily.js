// Dailies (#/daily): per variant today's certified deal, the one ranked attempt, practice
// after it; and a leaderboard page (#/leaderboard/VARIANT): top, around me, par.
import { button, h, nameTag, optionsText, section, seconds, toast, variants } from "../dom.js";
import { youNode } from "../stats.js";

export async function mount(app, conn, variant = "unlimited") {
  if (!conn.name) {
    app.append(section("Daily challenges", h("p", {}, "Play as a guest or log in in the ", h("a", { href: "#/", text: "lobby" }), " to play the dailies.")));
    return null;
  }
  const all = await variants();
  const v = all.find((x) => x.name === variant) || all[0];
  const tabs = h("nav", { class: "tabs", "aria-label": "variants" },
    all.map((x) => h("a", { class: `button ${x.name === v.name ? "primary" : ""}`, href: `#/daily/${x.name}`, text: x.title, "aria-current": x.name === v.name ? "page" : null })));
  const card = h("article", { class: "variant daily" }, h("h3", { text: v.title }), h("p", { class: "muted", text: "Loading today's deal… (the server certifies it winnable first)" }));
  app.append(h("div", { class: "hero" }, h("h1", { text: "Daily challenges" }), h("p", { text: "One deal per variant per day, the same for everyone, certified winnable by the solver. One ranked attempt; practice as often as you like after it." })), tabs, card);
  try {
    fillDaily(card, conn, v, await conn.request("daily", { variant: v.name }));
  } catch (err) {
    card.replaceChildren(h("h3", { text: v.title }), h("p", { class: "error", text: err.message }));
  }
  return null;
}

function fillDaily(card, conn, v, d) {
  const start = (practice) => async () => {
    try {
      const r = await conn.request("daily.start", { variant: v.name, practice });
      location.hash = `#/race/${r.race.race}`;
    } catch (err) { toast(err.message, "error"); } // e.g. account_required, the server's reason
  };
  card.replaceChildren(...[h("h3", { text: v.title }),
    h("p", { class: "muted", text: `${d.date} · ${optionsText(d.options)} · par ${d.par} moves` }),
    youNode(d.you),
    h("p", { class: "muted small" }, "commitment ", h("code", { class: "hash", text: d.commitment.slice(0, 16) + "…" })),
    d.yesterday ? h("p", { class: "muted small", text: `Yesterday's seed: ${d.yesterday.seed}` }) : null,
    d.attempt_review === "held" ? h("p", { class: "review held", role: "status", text: "Your ranked result is under review: it appears on the leaderboard once a moderator clears it." }) : null,
    d.attempt_review === "pending" ? h("p", { class: "review pending", role: "status", text: "Your ranked result is being checked: it appears on the leaderboard in a few seconds when the check clears it." }) : null,
    d.attempt_review === "removed" ? h("p", { class: "review removed", role: "status", text: "Your ranked result was removed by a moderator." }) : null,
    !conn.account && !d.attempt ? h("p", { class: "muted small" }, "The ranked attempt needs an account: ", h("a", { href: "#/", text: "register or log in in the lobby" }), ".") : null,
    h("div", { class: "actions" },
      d.attempt ? h("a", { class: "button", href: `#/race/${d.attempt}`, text: "Your attempt" }) : button("Ranked attempt", start(false), { class: "primary", "aria-label": `Ranked attempt: ${v.title}` }),
      d.attempt ? button("Practice", start(true), { "aria-label": `Practice: ${v.title}` }) : null,
      h("a", { class: "button", href: `#/leaderboard/${v.name}`, text: "Leaderboard", "aria-label": `Leaderboard: ${v.title}` }))].filter(Boolean));
}

export async function mountLeaderboard(app, conn, variant) {
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
      const r = await conn.request("leaderboard", { variant, limit: 20, around_me: aroundMe });
      body.replaceChildren(...[
        h("p", { class: "muted", text: `${r.date} · ${r.total} entries · par ${r.par ?? "–"} moves${r.my_rank ? ` · you are #${r.my_rank}` : ""}` }),
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
  const pick = h("select", { id: "lb-variant", onchange: () => { location.hash = `#/leaderboard/${pick.value}`; } },
    all.map((x) => h("option", { value: x.name, selected: x.name === variant, text: x.title })));
  app.append(section(`Leaderboard · ${v.title}`, h("label", { for: "lb-variant", text: "Variant " }), pick, tabs, body));
  await show(false);
  return null;
}
