// Moderator pages (docs/fairplay.md): the review queue and reported players (#/mod), one case
// with its evidence and the decisions (#/mod/case/ID), the audit log for admins (#/mod/audit).
// Shown only to accounts whose welcome lists the role; the server checks it on every request.
import { button, h, nameTag, section, seconds, toast } from "../dom.js";

function refuse(app, conn, role = "moderator") {
  if (conn.roles.includes(role)) return false;
  app.append(section("Moderation", h("p", { class: "muted", text: `This page is for ${role}s.` })));
  return true;
}

const when = (ms) => (ms ? new Date(ms).toISOString().slice(0, 19).replace("T", " ") : "–");

export async function mountQueue(app, conn) {
  if (refuse(app, conn)) return null;
  const [q, rep] = await Promise.all([conn.request("mod.queue", { limit: 100 }), conn.request("mod.reports", { limit: 100 })]);
  const cases = q.cases.length ? h("table", { class: "standings queue" },
    h("thead", {}, h("tr", {}, ["score", "player", "variant", "day", "result", "signals", "reports", ""].map((t) => h("th", { text: t })))),
    h("tbody", {}, q.cases.map((c) => h("tr", {},
      h("td", { text: c.score.toFixed(2) }), h("td", { text: c.name }), h("td", { text: c.variant }), h("td", { text: c.day || "" }),
      h("td", { text: `${c.result.result} in ${seconds(c.result.elapsed)}` }), h("td", { text: c.fired.join(", ") }),
      h("td", { text: String(c.reports) }),
      h("td", {}, h("a", { class: "button", href: `#/mod/case/${c.case}`, text: "Review", "aria-label": `Review ${c.name}'s result` }))))))
    : h("p", { class: "muted", text: "No held results: the queue is empty." });
  const reported = rep.players.length ? h("table", { class: "standings" },
    h("thead", {}, h("tr", {}, ["player", "open reports", "categories", "last"].map((t) => h("th", { text: t })))),
    h("tbody", {}, rep.players.map((p) => h("tr", {}, h("td", { text: p.name || p.player }), h("td", { text: String(p.reports) }),
      h("td", { text: p.categories.join(", ") }), h("td", { text: when(p.last_at) })))))
    : h("p", { class: "muted", text: "No open reports." });
  app.append(h("div", { class: "hero" }, h("h1", { text: "Moderation" }),
    h("p", { class: "muted", text: "Held results wait here, highest suspicion first. Every decision needs a reason and goes into the audit log." }),
    conn.roles.includes("admin") ? h("a", { class: "button", href: "#/mod/audit", text: "Audit log" }) : null),
    section("Review queue", cases), section("Reported players", reported));
  return null;
}

/** Think times between actions as inline SVG bars on a log scale from 1 ms to 10 s (a
 * script's milliseconds and a person's seconds both show; longer gaps are capped, marked). */
// The worker pool's analysis of the line (docs/fairplay.md), or why there is none.
export function analysisText(a) {
  if (a == null) return "Not analysed (only top results and rated-race winners are).";
  if (a === "pending") return "Queued in the worker pool.";
  const decided = a.samples - a.undecided;
  const share = a.agreement == null ? "–" : `${Math.round(100 * a.agreement)} %`;
  return `Played the solver's move at ${a.agreed} of ${decided} decided positions (${share}; ${a.undecided} undecided at ${a.nodes} nodes) · ${a.wasted} moves back to an earlier position.`;
}

export function thinkChart(thinkMs) {
  const NS = "http://www.w3.org/2000/svg";
  const cap = 10000, w = Math.max(200, Math.min(900, thinkMs.length * 6)), hgt = 120;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt + 14}`);
  svg.setAttribute("class", "chart");
  svg.setAttribute("role", "img");
  const median = [...thinkMs].sort((a, b) => a - b)[Math.floor(thinkMs.length / 2)] || 0;
  svg.setAttribute("aria-label", `think times of ${thinkMs.length} actions, median ${median} ms`);
  const bw = w / Math.max(1, thinkMs.length);
  thinkMs.forEach((t, i) => {
    const r = document.createElementNS(NS, "rect");
    const bh = Math.max(2, (Math.log10(1 + Math.min(t, cap)) / Math.log10(1 + cap)) * hgt);
    r.setAttribute("x", String(i * bw)); r.setAttribute("width", String(Math.max(1, bw - 1)));
    r.setAttribute("y", String(hgt - bh)); r.setAttribute("height", String(bh));
    r.setAttribute("class", t >= cap ? "bar capped" : "bar");
    const tip = document.createElementNS(NS, "title");
    tip.textContent = `action ${i + 2}: ${t} ms after the one before`;
    r.append(tip);
    svg.append(r);
  });
  const label = document.createElementNS(NS, "text");
  label.setAttribute("x", "0"); label.setAttribute("y", String(hgt + 12));
  label.textContent = `${thinkMs.length} gaps · median ${median} ms · height: log scale, 1 ms to 10 s`;
  svg.append(label);
  return svg;
}

export async function mountCase(app, conn, id) {
  if (refuse(app, conn)) return null;
  const c = (await conn.request("mod.case", { case: id })).case;
  const ev = c.evidence, sc = c.score;
  const reason = h("textarea", { id: "mod-reason", rows: "2", maxlength: "500", placeholder: "Why (required; it goes into the audit log)" });
  const newName = h("input", { id: "mod-newname", placeholder: "new name", maxlength: "20" });
  const status = h("p", { class: "case-status", role: "status", text: `Status: ${c.status}${c.decided_by ? ` (by ${c.decided_by})` : ""}` });
  const act = (label, t, fields) => button(label, async () => {
    if (!reason.value.trim()) { toast("Write the reason first.", "error"); reason.focus(); return; }
    try {
      const r = await conn.request(t, { ...fields(), reason: reason.value });
      status.textContent = `Done: ${t.slice(4)}${r.status ? ` — status ${r.status}` : ""}${r.removed !== undefined ? ` — ${r.removed} results taken off the boards` : ""}`;
      toast(status.textContent);
    } catch (err) { toast(err.message, "error"); }
  }, { "aria-label": `${label}: ${c.name}` });
  const signals = h("table", { class: "standings signals" },
    h("thead", {}, h("tr", {}, ["signal", "value", "threshold", "weight", "fired", "why"].map((t) => h("th", { text: t })))),
    h("tbody", {}, sc.signals.map((s) => h("tr", { class: s.fired ? "fired" : "" },
      h("td", { text: s.name }), h("td", { text: s.value === -1 ? "–" : String(s.value) }), h("td", { text: String(s.threshold) }),
      h("td", { text: String(s.weight) }), h("td", { text: s.fired ? "yes" : "" }), h("td", { class: "small", text: s.why })))));
  app.append(h("div", { class: "hero" }, h("h1", {}, "Case: ", nameTag(c.name)),
    h("p", { class: "muted", text: `${c.kind} · ${c.variant} · ${c.day || ""} · race ${c.race}` }),
    h("p", { text: `${c.result.result} in ${seconds(c.result.elapsed)} · ${ev.moves} moves in ${ev.actions} actions (par ${ev.par ?? "–"}) · first action after ${seconds(ev.first_ms)} with ${ev.face_up_at_start} cards face up` }),
    h("p", { class: "score", text: `Score ${sc.total.toFixed(2)} (held at ${sc.threshold})` }), status),
    section("Signals", signals),
    section("Think times", ev.think_ms.length ? thinkChart(ev.think_ms) : h("p", { class: "muted", text: "Fewer than two actions." })),
    section("Solver's view", h("p", { class: "analysis", text: analysisText(c.analysis) })),
    section("History", h("p", { text: `Account ${c.history.account_age_days.toFixed(1)} days old · ${c.history.ranked_games} earlier ranked games · recent scores ${c.history.recent_scores.slice(-10).map((x) => x.toFixed(2)).join(", ") || "–"}${c.history.pair_games ? ` · ${c.history.pair_games} rated races against one opponent (${Math.round(100 * c.history.pair_share)} % one way)` : ""}` })),
    section(`Open reports (${c.reports.length})`, c.reports.length
      ? h("ul", { class: "rows" }, c.reports.map((r) => h("li", {}, h("span", { text: `${r.name}: ${r.category}` }), h("span", { class: "muted small", text: `${r.note || ""} · ${when(r.at)}` }))))
      : h("p", { class: "muted", text: "None." })),
    section("Decide",
      h("label", { for: "mod-reason", class: "block", text: "Reason" }), reason,
      h("div", { class: "actions" },
        act("Clear", "mod.clear", () => ({ case: c.case })),
        act("Ban", "mod.ban", () => ({ player: c.name })),
        act("Unban", "mod.unban", () => ({ player: c.name })),
        act("Warn", "mod.warn", () => ({ player: c.name })),
        act("Annul race", "mod.annul", () => ({ race: c.race })),
        h("label", { for: "mod-newname", class: "sr-only", text: "New name" }), newName,
        act("Rename", "mod.rename", () => ({ player: c.name, name: newName.value })))));
  return null;
}

export async function mountAudit(app, conn) {
  if (refuse(app, conn, "admin")) return null;
  const r = await conn.request("mod.audit", { limit: 200 });
  app.append(section("Audit log", r.entries.length ? h("table", { class: "standings" },
    h("thead", {}, h("tr", {}, ["when (UTC)", "by", "action", "target", "reason", "details"].map((t) => h("th", { text: t })))),
    h("tbody", {}, r.entries.map((e) => h("tr", {}, h("td", { text: when(Number(e.id.split("-")[0])) }), h("td", { text: e.by }),
      h("td", { text: e.action }), h("td", { text: e.target }), h("td", { text: e.reason }), h("td", { class: "small", text: e.details || "" })))))
    : h("p", { class: "muted", text: "No decisions yet." })));
  return null;
}
