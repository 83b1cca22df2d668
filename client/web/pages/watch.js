// Spectating: the live races list (#/watch), and one race's boards side by side (#/watch/ID)
// exactly as the server sends them to spectators — a snapshot, then progress events with
// their deltas (and reveals). Masked cards ("??": not every racer has seen them yet) are
// drawn as masked cards; the end event's boards replace them with the whole truth.
import { renderBoard } from "../board.js";
import { clock, h, optionsText, section, variantTitle } from "../dom.js";
import { applyDelta, verdictText } from "./racestate.js";

export async function mountList(app, conn) {
  const ul = h("ul", { class: "rows", "aria-label": "live races" });
  const code = h("input", { id: "watch-code", placeholder: "race id or invite code" });
  app.append(section("Live races", ul),
    section("Watch by code", h("form", { class: "inline", onsubmit: (ev) => { ev.preventDefault(); if (code.value.trim()) location.hash = `#/watch/${code.value.trim()}`; } },
      h("label", { for: "watch-code", text: "Race" }), code, h("button", { type: "submit", text: "Watch" }))));
  const r = await conn.request("races.live", { limit: 50 });
  if (!r.races.length) ul.append(h("li", { class: "muted", text: "Nobody is racing right now." }));
  for (const x of r.races) {
    ul.append(h("li", {}, h("span", { text: `${await variantTitle(x.variant)} (${optionsText(x.options)}) · ${x.racers} racers · ${clock(x.elapsed)} in · ${x.spectators} watching${x.rated ? " · rated (delayed)" : ""}` }),
      h("a", { class: "button", href: `#/watch/${x.race}`, text: "Watch" })));
  }
}

export async function mount(app, conn, target) {
  const byCode = /^[A-Za-z2-9]{6}$/.test(target) && !/^[a-z0-9]{8,}$/.test(target);
  let reply;
  try {
    reply = await conn.request("watch", byCode ? { code: target.toUpperCase() } : { race: target });
  } catch (err) {
    app.append(section("Watch", h("p", { class: "error", text: err.message })));
    return null;
  }
  const rid = reply.race.race;
  const names = new Map(reply.race.racers.map((r) => [r.player, r.name]));
  const boards = new Map(Object.entries(reply.boards || {}));
  let v = reply.v;
  const head = h("div", { class: "race-head" });
  const grid = h("div", { class: "watch-grid" });
  const info = h("p", { class: "muted" });
  app.append(head, info, grid);
  const title = await variantTitle(reply.race.variant);
  let spectators = reply.spectators;
  let state = reply.race.state;
  let verdict = reply.race.verdict || null;
  const over = () => info.replaceChildren("Race over · ", h("a", { href: `#/replay/${rid}`, text: "replay it" }),
    verdict ? h("span", { class: "verdict", text: ` · ${verdictText(verdict)}` }) : "");
  const draw = () => {
    head.replaceChildren(h("h1", {}, `Watching ${title}`, h("span", { class: "muted small", text: ` ${optionsText(reply.race.options)}` })),
      h("div", { class: "race-meta" }, h("span", { class: `badge state-${state}`, text: state }),
        h("span", { class: "spectators", text: `${spectators} watching` }),
        reply.delay ? h("span", { class: "badge", text: `${Math.round(reply.delay)} s behind live` }) : null));
    grid.replaceChildren();
    for (const [pid, board] of boards) {
      const pane = h("div", { class: "watch-pane" }, h("h3", { text: `${names.get(pid) || pid} · ${board.view.home}/${board.view.total} home · ${board.view.moves} moves` }));
      const node = h("div", { class: "board", "aria-label": `board of ${names.get(pid) || pid}` });
      renderBoard(node, board.view, { compact: true });
      pane.append(node);
      grid.append(pane);
    }
    if (state !== "finished") info.textContent = !boards.size && (state === "lobby" || state === "countdown") ? "The race has not started yet." : "";
  };
  const onEvent = (ev) => {
    const e = ev.detail;
    if (e.race !== rid || e.v <= v) return;
    v = e.v;
    if (e.k === "join") names.set(e.player, e.name);
    if (e.k === "start") for (const pid of names.keys()) boards.set(pid, { seq: 0, view: e.view });
    if (e.k === "progress" && e.delta && boards.has(e.player)) {
      const b = boards.get(e.player);
      boards.set(e.player, { seq: b.seq + 1, view: applyDelta(b.view, e.delta) });
    }
    // fair spectating (docs/protocol.md 13.1): cards that just became shown, on any board
    for (const [pid, piles] of Object.entries((e.k === "progress" && e.reveal) || {})) {
      const b = boards.get(pid);
      if (b) boards.set(pid, { seq: b.seq, view: { ...b.view, piles: { ...b.view.piles, ...piles } } });
    }
    if (e.k === "end" && e.boards) for (const [pid, b] of Object.entries(e.boards)) boards.set(pid, b);
    if (e.k === "start") state = "running";
    if (e.k === "end" || e.k === "verdict") verdict = e.verdict || verdict;
    if (e.k === "end" || e.k === "verdict") {
      state = "finished";
      over();
    }
    draw();
  };
  conn.addEventListener("race-event", onEvent);
  // the spectator count is a frame of its own, not an event (docs/protocol.md 7.4)
  const onCount = (ev) => { if (ev.detail.race === rid) { spectators = ev.detail.count; draw(); } };
  conn.addEventListener("spectators", onCount);
  for (const e of conn.events(rid)) onEvent({ detail: e });
  if (reply.end) { state = "finished"; verdict = reply.race.verdict || reply.end.verdict || null; over(); }
  draw();
  const offResume = conn.onResume(async () => {
    try {
      const again = await conn.request("watch", { race: rid, since: v });
      for (const e of again.events || []) onEvent({ detail: { ...e, race: rid } });
    } catch (err) { /* the race is gone */ }
  });
  return () => {
    conn.removeEventListener("race-event", onEvent);
    conn.removeEventListener("spectators", onCount);
    offResume();
    if (state !== "finished") conn.request("unwatch", { race: rid }).catch(() => {});
  };
}
