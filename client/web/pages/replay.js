// A finished race, step by step, for every racer: `watch` with `full: true` gives every event
// from the first (the start view, each move with its delta, the end with the seed). Step N is
// the position after the first N moves of the race, whoever made them. URL: #/replay/ID?step=N.
import { renderBoard } from "../board.js";
import { verify } from "../deals.js";
import { button, h, optionsText, section, variantTitle } from "../dom.js";
import { applyDelta, verdictText } from "./racestate.js";

export async function mount(app, conn, rid) {
  let reply;
  try {
    reply = await conn.request("watch", { race: rid, full: true });
  } catch (err) {
    app.append(section("Replay", h("p", { class: "error", text: err.message })));
    return null;
  }
  if (reply.race.state !== "finished") {
    app.append(section("Replay", h("p", { text: "This race is not over yet." }), h("a", { class: "button", href: `#/watch/${rid}`, text: "Watch it live" })));
    return () => conn.request("unwatch", { race: rid }).catch(() => {});
  }
  const names = new Map(reply.race.racers.map((r) => [r.player, r.name]));
  const start = reply.events.find((e) => e.k === "start");
  const end = reply.events.find((e) => e.k === "end");
  const moves = reply.events.filter((e) => e.k === "progress" && e.delta);
  // frames[i]: every racer's view after i moves of the race
  const frames = [];
  let cur = new Map([...names.keys()].map((p) => [p, start.view]));
  frames.push(cur);
  for (const m of moves) {
    cur = new Map(cur);
    cur.set(m.player, applyDelta(cur.get(m.player), m.delta));
    frames.push(cur);
  }
  const title = await variantTitle(reply.race.variant);
  const params = new URLSearchParams(location.hash.split("?")[1] || "");
  let step = Math.min(Number(params.get("step") || 0), moves.length);
  const label = h("span", { class: "step", "aria-live": "polite" });
  const slider = h("input", { type: "range", min: "0", max: String(moves.length), value: String(step), "aria-label": "step", oninput: () => go(Number(slider.value)) });
  const grid = h("div", { class: "watch-grid" });
  const check = h("p", { class: "verify" });
  // The move that lost it (docs/protocol.md 5.25): asked of the server per racer, on a click
  const lost = h("div", { class: "analysis", "aria-live": "polite" });
  const stepOf = (pid, ply) => {  // the replay's step just before the racer's move number ply
    let seen = 0;
    for (let i = 0; i < moves.length; i++) {
      if (moves[i].player !== pid) continue;
      if (seen === ply) return i;
      seen++;
    }
    return moves.length;
  };
  const analyse = async (pid) => {
    lost.replaceChildren(h("p", { class: "muted", text: `Looking for where ${names.get(pid)}'s game was lost… (the solver, a few seconds)` }));
    let a;
    try { a = await conn.request("analysis", { race: rid, player: pid }); } catch (err) { lost.replaceChildren(h("p", { class: "error", text: err.message })); return; }
    const who = a.name;
    const line = (a.continuation || []).join(" ");
    const parts = {
      found: () => [h("p", { class: "lost-move", text: `${who}'s game was lost at move ${a.ply + 1}: ${a.move}. Before it, ${a.claim}; the solver's winning line from there: ${line}` }),
        button("Go to that move", () => go(stepOf(pid, a.ply)))],
      winnable_at_end: () => [h("p", { text: `${who}'s last position could still be won (${a.claim}): ${line}` }), button("Go to the end", () => go(stepOf(pid, a.ply)))],
      lost_from_start: () => [h("p", { text: `No move lost it: ${a.claim}.` })],
      undecided: () => [h("p", { text: "The solver could not decide within its budget where the game was lost; nothing is claimed." })],
      won: () => [h("p", { text: `${who} won in ${a.moves} moves${a.par !== null ? `, ${a.over_par} over the solver's par of ${a.par}` : ""}${a.detour ? `; the longest detour ran from move ${a.detour.from + 1} to ${a.detour.to} (${a.detour.moves} moves that came back to the same position)` : ""}.` })],
    };
    lost.replaceChildren(...(parts[a.result] || parts.undecided)());
  };
  const askers = h("div", { class: "actions" }, [...names.entries()].map(([pid, name]) =>
    button(`Where was it lost? (${name})`, () => analyse(pid))));
  const go = (n) => {
    step = Math.max(0, Math.min(moves.length, n));
    slider.value = String(step);
    const m = moves[step - 1];
    label.textContent = `step ${step} of ${moves.length}${m ? ` · ${names.get(m.player)} played ${m.move}` : " · the deal"}`;
    history.replaceState(null, "", `#/replay/${rid}?step=${step}`);
    grid.replaceChildren();
    for (const [pid, view] of frames[step]) {
      const node = h("div", { class: "board", "aria-label": `board of ${names.get(pid)}` });
      renderBoard(node, view, { compact: true });
      grid.append(h("div", { class: `watch-pane ${m && m.player === pid ? "active" : ""}` }, h("h3", { text: `${names.get(pid)} · ${view.home}/${view.total} home · ${view.moves} moves` }), node));
    }
  };
  // (the DOM's append writes null as the text "null": the absent parts are filtered out)
  app.append(...[h("div", { class: "race-head" }, h("h1", {}, `Replay · ${title}`, h("span", { class: "muted small", text: ` ${optionsText(reply.race.options)}` }))),
    h("div", { class: "replay-bar" }, button("« First", () => go(0), { "aria-label": "first" }), button("◀ Back", () => go(step - 1)), slider, button("Next ▶", () => go(step + 1)), button("Last »", () => go(moves.length), { "aria-label": "last" }), label),
    end ? h("p", { class: "muted", text: `Result: ${end.standings.map((r) => `${r.rank}. ${r.name} ${r.result} (${r.home} home, ${r.moves} moves)`).join(" · ")}` }) : null,
    verdictText(reply.race.verdict) ? h("p", { class: "verdict", text: verdictText(reply.race.verdict) }) : null,
    check, askers, lost, grid].filter(Boolean));
  if (end && end.seed !== undefined) {
    verify(String(end.seed), end.commitment, start.view).then(({ commitmentOk, dealOk }) => {
      check.textContent = `Seed ${end.seed}: ${commitmentOk ? "✓ matches its commitment" : "✗ does not match its commitment"}, ${dealOk ? "✓ deal recomputed in your browser" : "✗ deal differs"}`;
      check.classList.add(commitmentOk && dealOk ? "ok" : "error");
    });
  }
  const onKey = (ev) => { if (ev.key === "ArrowRight") go(step + 1); if (ev.key === "ArrowLeft") go(step - 1); };
  document.addEventListener("keydown", onKey);
  go(step);
  return () => document.removeEventListener("keydown", onKey);
}
