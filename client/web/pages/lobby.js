// The lobby: your name, the five variants (options, a line on each, how often deals can be
// won), quick pairing, creating a race (seats, time limit, rated) with an invite link, your
// unfinished races, live races to watch and today's dailies. Also #/join/CODE (invite links).
import { button, h, optionsText, section, toast, variants } from "../dom.js";
import { badgeNode, streakText } from "../stats.js";
import { signIn } from "./account.js";

// How often deals can be won, from docs/solver.md (the solver's measured figures).
const WINNABLE = {
  "sixes-and-sevens": "Hard: about 1 deal in 5 can be won.",
  "seven-by-five": "With its defaults (no cells, kings only in spaces) practically never winnable — try the preset cells=5, empty_fill=any: 9 deals in 10 can be won.",
  "double-aces-and-kings": "About 2 deals in 5 can be won; with reserve_to_space=yes nearly all.",
  unlimited: "Klondike with unlimited redeals: most deals can be won.",
  "forty-and-eight": "Hard: about 1 deal in 3 can be won.",
};
const PRESETS = { "seven-by-five": { cells: "5", empty_fill: "any" } };
// "Play now": a quick pair on the most played game, Klondike with unlimited redeals.
const PLAY_NOW = "unlimited";
const TIME_LIMITS = [[120, "2 min"], [300, "5 min"], [600, "10 min"], [1200, "20 min"], [3600, "1 hour"]];

export async function mount(app, conn) {
  const you = signIn(conn, () => mount(app.replaceChildren() || app, conn));
  const settings = raceSettings(conn);
  const waiting = h("div", { class: "waiting", role: "status" });
  const daily = h("div", { class: "you-daily" });
  const list = h("div", { class: "variants" });
  for (const v of await variants()) list.append(variantCard(v, conn, settings, waiting));
  const mine = h("ul", { class: "rows", "aria-label": "your races" });
  const live = h("ul", { class: "rows", "aria-label": "live races" });
  const all = await variants();
  const first = all.find((v) => v.name === PLAY_NOW) || all[0];
  app.append(
    h("div", { class: "hero" }, h("h1", { text: "Race your friends at solitaire" }),
      h("p", { text: "Everyone plays the identical deal. Fastest to clear it wins; the deal is committed before the start and revealed at the end, so anyone can check it." }),
      h("div", { class: "play-now" }, playNow(conn, first, waiting),
        h("span", { class: "muted small", text: `A quick race of ${first.title} against the next player who asks${conn.name ? "" : ", as a guest with a made-up name (you can register later)"}.` }))),
    section("You", you, daily), waiting,
    section("Play", settings.node, list),
    section("Your races", mine), section("Live races", live),
    section("Today's dailies", h("p", { text: "Three certified-winnable deals per variant per day — easy, medium and hard — the same for everyone, one ranked attempt at each." }),
      h("div", { class: "actions" }, (await variants()).map((v) => h("a", { class: "button", href: `#/daily/${v.name}`, text: `${v.title} daily` })))),
  );
  if (conn.name) {
    conn.request("races.mine").then((r) => fillMine(mine, r.races)).catch(() => {});
    conn.request("profile").then((p) => fillStreak(daily, p)).catch(() => {});
  } else mine.append(h("li", { class: "muted", text: "Play as a guest or log in first." }));
  conn.request("races.live", { limit: 10 }).then((r) => fillLive(live, r.races)).catch(() => {});
  return () => { if (waiting.dataset.queued) conn.request("quick.cancel").catch(() => {}); };
}

/** Your best live daily streak and this month's badge, linked to your profile. */
function fillStreak(node, p) {
  const live = Object.values(p.streaks || {});
  const best = live.reduce((a, st) => (st.current > a.current ? st : a), { current: 0, best: 0 });
  const longest = live.reduce((a, st) => Math.max(a, st.best), 0);
  node.replaceChildren(...[h("span", { class: "streak", text: streakText(best.current, longest) }),
    badgeNode(p.badges && p.badges.current), h("a", { href: "#/profile", text: "your statistics" })].filter(Boolean));
}

/** A made-up guest name: "guest-" and four hex digits (as the CLI makes them). */
export function guestName() {
  return `guest-${Math.floor(Math.random() * 0x10000).toString(16).padStart(4, "0")}`;
}

/** Wait in the quick-pair queue (the answer may be the race at once). */
async function queue(conn, waiting, v, fields) {
  const r = await conn.request("quick", { variant: v.name, ...fields });
  if (r.t === "race") { location.hash = `#/race/${r.race.race}`; return; }
  waiting.dataset.queued = "1";
  waiting.replaceChildren(h("p", { text: `Waiting for a rival for ${v.title}…` }), button("Cancel", async () => {
    await conn.request("quick.cancel").catch(() => {});
    delete waiting.dataset.queued;
    waiting.replaceChildren();
  }));
}

/** One button from the first screen to a race: a guest name if there is none, then a quick
 * pair on `v` with its default options. */
function playNow(conn, v, waiting) {
  return button("Play now", async () => {
    try {
      for (let tries = 0; !conn.name; tries++) {
        try { await conn.claimName(guestName()); } catch (err) { if (err.code !== "name_taken" || tries > 4) throw err; }
      }
      const options = Object.fromEntries(v.options.map((o) => [o.name, o.default]));
      await queue(conn, waiting, v, { options, winnable: false });
    } catch (err) { toast(err.message, "error"); }
  }, { class: "primary", id: "play-now", "aria-label": `Play now: a quick race of ${v.title}` });
}

function raceSettings(conn) {
  const seats = h("input", { id: "seats", type: "number", min: "2", max: "8", value: "2" });
  const time = h("select", { id: "time-limit" }, TIME_LIMITS.map(([s, t]) => h("option", { value: String(s), selected: s === 600, text: t })));
  const rated = h("input", { id: "rated", type: "checkbox" });
  const winnable = h("input", { id: "winnable", type: "checkbox" });
  // a difficulty deals a certified deal rated so: it implies winnable (docs/leaderboards.md)
  const level = h("select", { id: "difficulty", title: "A deal the solver has won and rated so; quick pairs only with players asking the same" },
    [["", "any"], ["easy", "easy"], ["medium", "medium"], ["hard", "hard"]].map(([x, t]) => h("option", { value: x, text: t })));
  level.addEventListener("change", () => { if (level.value) winnable.checked = true; });
  const node = h("div", { class: "settings" },
    h("label", { for: "seats", text: "Seats" }), seats,
    h("label", { for: "time-limit", text: "Time limit" }), time,
    h("label", { class: "check" }, rated, " Rated"),
    h("label", { class: "check", title: "Deal only a deal the server's solver has won (race and quick pair)" }, winnable, " Winnable deals only"),
    h("label", { for: "difficulty", text: "Difficulty" }), level,
    conn.account ? null : h("span", { id: "rated-note", class: "muted small", text: "Rated races need an account: register or log in above." }));
  if (!conn.account) rated.setAttribute("aria-describedby", "rated-note");
  const pairing = () => ({ winnable: winnable.checked || Boolean(level.value), ...(level.value ? { difficulty: level.value } : {}) });
  return { node, pairing, read: () => ({ seats: Number(seats.value), time_limit: Number(time.value), rated: rated.checked, ...pairing() }) };
}

function variantCard(v, conn, settings, waiting) {
  const selects = {};
  const opts = h("div", { class: "options" });
  for (const o of v.options) {
    const id = `${v.name}-${o.name}`;
    selects[o.name] = h("select", { id, title: o.help }, o.values.map((x) => h("option", { value: x, selected: x === o.default, text: x })));
    opts.append(h("label", { for: id, text: o.name.replace(/_/g, " ") }), selects[o.name]);
  }
  const options = () => Object.fromEntries(Object.entries(selects).map(([k, s]) => [k, s.value]));
  const preset = PRESETS[v.name] && button("Use cells=5, empty_fill=any", () => {
    for (const [k, x] of Object.entries(PRESETS[v.name])) selects[k].value = x;
  }, { class: "link" });
  const need = () => { if (!conn.name) { toast("Pick a name first"); return false; } return true; };
  const create = button("Create race", async () => {
    if (!need()) return;
    // the pool may make a winnable create wait: say so until the answer comes, not over the board
    const finding = settings.read().winnable ? toast("Finding a deal the solver has won…") : null;
    try {
      const r = await conn.request("race.create", { variant: v.name, options: options(), ...settings.read() });
      location.hash = `#/race/${r.race.race}`;
    } catch (err) { toast(err.message, "error"); } finally { if (finding) finding(); }
  }, { class: "primary", "aria-label": `Create a ${v.title} race` });
  const quick = button("Quick pair", async () => {
    if (!need()) return;
    try {
      await queue(conn, waiting, v, { options: options(), ...settings.pairing() });
    } catch (err) { toast(err.message, "error"); }
  }, { "aria-label": `Quick pair for ${v.title}` });
  const botId = `${v.name}-bot`;
  const bot = h("select", { id: botId }, [["", "alone"], ["weak", "weak bot"], ["medium", "medium bot"], ["strong", "strong bot"]]
    .map(([x, t]) => h("option", { value: x, text: t })));
  const practice = button("Practice", async () => {
    if (!need()) return;
    try {
      const r = await conn.request("practice.start", { variant: v.name, options: options(), bots: bot.value ? [bot.value] : [], time_limit: Math.min(3600, settings.read().time_limit) });
      location.hash = `#/race/${r.race.race}`;
    } catch (err) { toast(err.message, "error"); }
  }, { "aria-label": `Practice ${v.title}` });
  return h("article", { class: "variant" }, h("h3", { text: v.title }), h("p", { text: v.summary }),
    h("p", { class: "winnable", text: WINNABLE[v.name] || "" }), opts, preset,
    h("div", { class: "actions" }, quick, create),
    h("div", { class: "actions practice" }, practice, h("label", { for: botId, class: "muted small", text: "against" }), bot));
}

function fillMine(ul, races) {
  if (!races.length) ul.append(h("li", { class: "muted", text: "No unfinished races." }));
  for (const r of races) {
    ul.append(h("li", {}, h("span", { text: `${r.variant} · ${r.state} · ${r.racers.map((x) => x.name).join(" vs ")}` }),
      h("a", { class: "button", href: `#/race/${r.race}`, text: "Resume" })));
  }
}

function fillLive(ul, races) {
  if (!races.length) ul.append(h("li", { class: "muted", text: "Nobody is racing right now." }));
  for (const r of races) {
    ul.append(h("li", {}, h("span", { text: `${r.variant} (${optionsText(r.options)}) · ${r.racers} racers · ${r.spectators} watching${r.rated ? " · rated" : ""}` }),
      h("a", { class: "button", href: `#/watch/${r.race}`, text: "Watch" })));
  }
}

/** #/join/CODE: an invite link. Join (after picking a name), then go to the race. */
export async function mountJoin(app, conn, code) {
  const go = async () => {
    try {
      const r = await conn.request("race.join", { code: code.toUpperCase() });
      location.replace(`#/race/${r.race.race}`);
    } catch (err) {
      // a rated race: a guest may register (or log in) here and join then
      const again = err.code === "account_required" ? signIn(conn, go) : null;
      app.replaceChildren(section("Invite", h("p", { class: "error", role: "alert", text: `Cannot join ${code}: ${err.message}` }), again, h("a", { href: "#/", text: "Back to the lobby" })));
    }
  };
  if (conn.name) return go();
  app.append(section(`You are invited to race ${code.toUpperCase()}`, h("p", { text: "Pick a name, or log in, to join." }), signIn(conn, go)));
}
