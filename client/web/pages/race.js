// A race seen by one of its racers: the lobby (invite link, ready), the countdown, the board
// (click a card: the server's best move; drag it: a full move; click the stock; type a move),
// the rivals' progress, the clock, and at the end the standings, the seed checked in this
// browser and a rematch. The board is whatever the server last said: a sync, then acks.
import { renderBoard } from "../board.js";
import { button, clock, h, nameTag, optionsText, section, toast, variantTitle } from "../dom.js";
import { Announcer, BoardKeys, displayControls, helpDialog } from "../keyboard.js";
import { sound } from "../sound.js";
import { endLine, renderEnding } from "./raceend.js";
import { applyDelta, fold } from "./racestate.js";
import { Rivals } from "./rivals.js";
import { StillWinnable } from "./winnable.js";

export async function mount(app, conn, rid) {
  if (!conn.name) {
    app.append(section("Race", h("p", {}, "Play as a guest or log in in the ", h("a", { href: "#/", text: "lobby" }), " first, or ", h("a", { href: `#/watch/${rid}`, text: "watch this race" }), ".")));
    return null;
  }
  const page = new RacePage(app, conn, rid);
  await page.start();
  return () => page.stop();
}

class RacePage {
  constructor(app, conn, rid) {
    this.app = app;
    this.conn = conn;
    this.rid = rid;
    this.summary = null;
    this.board = null; // {seq, view}: the server's word on my game
    this.legal = null;
    this.busy = false;
    this.auto = localStorage.getItem("solrace.auto") === "1";
    this.verified = null;
    this.nodes = {};
    // my own progress, from my acks: the server does not send a racer the progress event of
    // its own move (its ack has the same facts), and who leads needs them
    this.acked = new Map();
  }

  async start() {
    const n = this.nodes;
    n.head = h("div", { class: "race-head" });
    n.lobby = h("div", { class: "race-lobby" });
    n.rivals = h("div", { class: "rivals", "aria-label": "racers" });
    n.board = h("div", { class: "board", role: "region", "aria-label": "your board" });
    n.msg = h("p", { class: "move-msg" });  // the announcer reads it out (politely)
    this.announcer = new Announcer();
    this.still = new StillWinnable(this.conn, this.rid, () => (this.board ? this.board.seq : null));
    this.rivalRows = new Rivals(n.rivals, this.conn, this.rid, (text, source) => this.announcer.say(text, source));
    this.keys = new BoardKeys(n.board, {
      play: (src, n) => this.send(src[0] === "t" ? `${src}:${n}` : src),
      move: (src, n, dst) => this.send(`${src}${dst}${n > 1 ? `:${n}` : ""}`),
      draw: () => this.send("s"),
      home: () => this.homeSafe(),
      say: (text) => this.announcer.say(text),
    });
    n.controls = h("div", { class: "controls" });
    n.end = h("div", { class: "race-end" });
    n.countdown = h("div", { class: "countdown", "aria-live": "polite" });
    this.still.node.hidden = true;  // shown in practice games, once chosen (controls())
    this.app.append(n.head, n.lobby, n.countdown, n.end, n.rivals, n.msg, this.still.node, n.board, n.controls,
      this.announcer.node);
    try {
      await this.resync();
    } catch (err) {
      if (err.code !== "not_in_race") throw err;
      this.app.replaceChildren(section("Race", h("p", { text: "You are not racing in this race." }), h("a", { class: "button", href: `#/watch/${this.rid}`, text: "Watch it" })));
      return;
    }
    this.onEvent = (ev) => { if (ev.detail.race === this.rid) this.refresh(ev.detail); };
    this.conn.addEventListener("race-event", this.onEvent);
    // rivals' connection state and the spectator count: frames, not events (7.3, 7.4)
    this.conn.addEventListener("presence", this.onEvent);
    this.conn.addEventListener("spectators", this.onEvent);
    this.offResume = this.conn.onResume(() => this.resync().catch((e) => toast(e.message, "error")));
    this.onKey = (ev) => this.key(ev);
    document.addEventListener("keydown", this.onKey);
    this.timer = setInterval(() => this.tick(), 250);
  }

  stop() {
    clearInterval(this.timer);
    if (this.onEvent) {
      for (const t of ["race-event", "presence", "spectators"]) this.conn.removeEventListener(t, this.onEvent);
    }
    if (this.offResume) this.offResume();
    if (this.onKey) document.removeEventListener("keydown", this.onKey);
  }

  get lastV() {
    const events = this.conn.events(this.rid);
    return events.length ? events[events.length - 1].v : 0;
  }

  /** `sync` from the last version seen (0 on the first visit): the gap and my board afresh. */
  async resync() {
    const reply = await this.conn.sync(this.rid, this.lastV);
    this.summary = reply.race;
    if (reply.board) this.setBoard(reply.board, reply.board.legal || null);
    else if (!this.board) {
      const start = this.conn.events(this.rid).find((e) => e.k === "start");
      if (start) this.setBoard({ seq: 0, view: start.view }, start.legal || null);
    }
    this.refresh();
    this.drawBoard();
    this.checkWinnable();
  }

  /** Practice games only: "still winnable?" for the position now, when the player chose it. */
  checkWinnable() {
    if (this.summary && this.summary.kind === "practice" && this.playable) this.still.check();
  }

  setBoard(board, legal) {
    this.board = { seq: board.seq, view: board.view };
    this.legal = legal;
  }

  get state() {
    const events = this.conn.events(this.rid);
    const have = new Set(events.map((e) => e.v));
    const mine = [...this.acked.values()].filter((e) => !have.has(e.v));
    return fold(this.summary, mine.length ? [...events, ...mine].sort((a, b) => a.v - b.v) : events);
  }

  refresh(event) {
    const s = this.state;
    if (!this.board && s.start && s.state !== "lobby") {
      const start = this.conn.events(this.rid).find((e) => e.k === "start");
      this.setBoard({ seq: 0, view: s.start }, (start && start.legal) || null);
    }
    this.announce(event, s);
    if (s.state !== this.shownState) {
      this.shownState = s.state;
      if (s.state === "finished" || s.state === "closed") this.nodes.msg.textContent = "";  // a refusal's reason is moot now
      this.drawBoard();
      this.controls();
    }
    this.head(s);
    this.lobby(s);
    this.rivals(s);
    renderEnding(this, s);
    this.tick();
  }

  head(s) {
    const n = this.nodes;
    variantTitle(s.variant).then((title) => {
      n.head.replaceChildren(
        h("h1", {}, title, h("span", { class: "muted small", text: ` ${optionsText(s.options)}` })),
        h("div", { class: "race-meta" },
          h("span", { class: `badge state-${s.state}`, text: s.state }),
          s.rated ? h("span", { class: "badge", text: "rated" }) : null,
          s.winnable ? h("span", { class: "badge", text: "winnable deal" }) : null,
          s.difficulty ? h("span", { class: `badge level-${s.difficulty}`, text: `${s.difficulty} deal` }) : null,
          s.kind !== "race" ? h("span", { class: "badge", text: s.kind }) : null,
          h("span", { class: "clock", "aria-label": "time left" }),
          // practice games and daily attempts cannot be watched: no count to show
          s.kind === "race" ? h("span", { class: "spectators", text: `${this.conn.spectators.get(this.rid) ?? s.spectators} watching` }) : null));
      this.tick();
    });
  }

  lobby(s) {
    const n = this.nodes.lobby;
    if (s.state !== "lobby") { n.replaceChildren(); return; }
    const link = `${location.origin}/#/join/${s.code}`;
    const me = s.racers.get(this.conn.player);
    n.replaceChildren(section("Waiting for racers",
      h("p", {}, "Invite link: ", h("a", { href: link, class: "invite", text: link }), " ",
        button("Copy", () => (navigator.clipboard ? navigator.clipboard.writeText(link) : Promise.reject(new Error("no clipboard"))).then(() => toast("Link copied"), () => toast(link)))),
      h("p", { class: "muted", text: `Code ${s.code} · ${s.racers.size}/${s.seats} seats · ${Math.round(s.time_limit / 60)} min${s.rated ? " · rated" : ""}` }),
      h("ul", { class: "rows" }, [...s.racers.values()].map((r) => h("li", {}, nameTag(r.name, r.title), h("span", { class: r.ready ? "ok" : "muted", text: r.ready ? "ready" : "not ready" })))),
      h("div", { class: "actions" },
        me && !me.ready ? button("I'm ready", () => this.request("race.ready", { race: this.rid }), { class: "primary" }) : h("span", { class: "muted", text: "Starts when every racer is ready (at least two)." }),
        button("Leave", async () => { await this.request("race.leave", { race: this.rid }); location.hash = "#/"; }))));
  }

  rivals(s) {
    this.rivalRows.draw(s, this.board ? this.board.view : null);
  }

  tick() {
    const s = this.summary && this.state;
    if (!s) return;
    const now = this.conn.now();
    const c = this.nodes.head.querySelector(".clock");
    if (c) {
      if (s.state === "running" && s.ends_at) c.textContent = `${clock(s.ends_at - now)} left`;
      else if (s.state === "countdown") c.textContent = "get ready";
      else c.textContent = "";
    }
    const cd = this.nodes.countdown;
    if (s.state === "countdown" && s.starts_at) {
      const left = s.starts_at - now;
      cd.textContent = left > 0 ? String(Math.ceil(left / 1000)) : "Go!";
      cd.classList.add("shown");
      if (left <= 0 && !this.board && !this.syncing) {
        // the start event is due: a move (or any process) starts the race; sync to see it
        this.syncing = true;
        setTimeout(() => this.resync().finally(() => { this.syncing = false; }), 300);
      }
    } else cd.classList.remove("shown");
    this.rivalRows.tick(s);
  }

  get playable() {
    const s = this.state;
    return s.state === "running" && this.board && this.board.view.status === "playing" && !(s.progress.get(this.conn.player) || {}).result;
  }

  drawBoard() {
    if (!this.board) { this.nodes.board.replaceChildren(); return; }
    renderBoard(this.nodes.board, this.board.view, {
      interactive: this.playable,
      // a source-only move: the server plays the clicked card (and those above it) to its
      // best place, by one documented priority (docs/protocol.md 5.10)
      onCard: (pile, n) => this.send(pile[0] === "t" ? `${pile}:${n}` : pile),
      onStock: () => this.send("s"),
      onDrop: (src, n, dst) => this.send(`${src}${dst}${n > 1 ? `:${n}` : ""}`),
      targets: (src, n) => this.targets(src, n),
      onKey: (ev) => this.playable && this.keys.key(ev),
    });
    this.keys.restore();
  }

  /** What a screen reader hears of the race: a rival's finish, the end (a rival's cards home:
   * the rival rows' cue). Own moves and refusals are said by send(). */
  announce(ev, s) {
    if (!ev || ev.race !== this.rid) return;
    const name = (pid) => (s.racers.get(pid) || {}).name || "a rival";
    if (ev.k === "progress" && ev.player !== this.conn.player) {
      if (ev.result) {
        this.announcer.say(`${name(ev.player)} ${ev.result === "won" ? "has won their game" : `is done: ${ev.result}`}`, `${ev.player}:end`);
        sound("rival");
      }
    } else if (ev.k === "end") {
      this.announcer.say(`Race over. ${endLine(ev, this.conn.player)}`, "end");
    } else if (ev.k === "start") {
      this.announcer.say("The race has started. Press ? for the keyboard keys.", "start");
    }
  }

  /** F: the safe cards home (the "Safe cards home" button). */
  async homeSafe() {
    if (this.busy || !this.playable) return;
    this.busy = true;
    try { this.applyAck(await this.conn.request("autoplay", { race: this.rid, seq: this.board.seq })); } catch (err) { this.refused(err); }
    finally { this.busy = false; this.drawBoard(); this.refresh(); }
  }

  /** Piles the server's legal list lets these cards go to (to light them up while dragging). */
  targets(src, n) {
    const out = new Set();
    for (const m of this.legal || []) {
      const parts = m.match(/^([a-z]\d*)([a-z]\d*)(?::(\d+))?$/);
      if (parts && parts[1] === src && Number(parts[3] || 1) === n) out.add(parts[2]);
    }
    return out;
  }

  /** Send one move; apply the ack, or snap back and say why. One move in flight at a time. */
  async send(move, extra = {}) {
    if (this.busy || !this.playable) return;
    this.busy = true;
    this.nodes.msg.textContent = "";
    const fields = { race: this.rid, seq: this.board.seq, move, ...extra };
    if (this.auto) fields.auto = true;
    let refusal = null;
    try {
      this.applyAck(await this.conn.request("move", fields));
    } catch (err) {
      refusal = err;
      this.refused(err);
    } finally {
      this.busy = false;
      this.drawBoard();
      this.refresh();
    }
    if (refusal) this.markRefused(move, refusal.message);
  }

  applyAck(ack) {
    if (ack.duplicate) this.setBoard({ seq: ack.seq, view: ack.view }, ack.legal || null);
    else this.setBoard({ seq: ack.seq, view: applyDelta(this.board.view, ack.delta) }, ack.legal || null);
    if (ack.v && ack.elapsed !== undefined) {
      const v = this.board.view;
      this.acked.set(ack.v, { t: "event", race: this.rid, v: ack.v, k: "progress", player: this.conn.player, home: v.home, moves: v.moves, elapsed: ack.elapsed, ...(ack.status && ack.status !== "playing" ? { result: ack.status } : {}) });
    }
    if (ack.moves && ack.moves.length > 1) this.nodes.msg.textContent = `played ${ack.moves.join(" ")}`;
    else if (ack.move) this.nodes.msg.textContent = `played ${ack.move}`;
    else if (ack.moves && !ack.moves.length) this.nodes.msg.textContent = "no safe card to send home";
    if (this.nodes.msg.textContent) this.announcer.say(this.nodes.msg.textContent);
    if (ack.status === "playing") this.checkWinnable();
    const moves = ack.moves || (ack.move ? [ack.move] : []);
    if (moves.length) sound(moves.some((m) => /^[a-z]\d*f\d/.test(m)) ? "home" : "move");
  }

  /** A refused move: its card and the pile it was aimed at are marked for a moment (a class,
   * and the reason as their aria description); the next redraw clears both. */
  markRefused(move, reason = "") {
    const m = /^([a-z]\d*)([a-z]\d*)?(?::(\d+))?$/.exec(move);
    if (!m) return;
    const marks = [];
    const src = this.nodes.board.querySelector(`.pile[data-pile="${m[1]}"]`);
    const card = src && src.querySelector(`.card[data-n="${m[3] || 1}"]`);
    if (card) marks.push(card);
    const dst = m[2] && this.nodes.board.querySelector(`.pile[data-pile="${m[2]}"]`);
    if (dst) marks.push(dst);
    for (const node of marks) {
      node.classList.add("refused");
      if (reason) node.setAttribute("aria-description", `refused: ${reason}`);
    }
    setTimeout(() => marks.forEach((node) => {
      node.classList.remove("refused");
      node.removeAttribute("aria-description");
    }), 900);
  }

  refused(err) {
    sound("refused");
    this.nodes.msg.textContent = err.message;
    this.announcer.say(err.message);
    this.nodes.msg.classList.add("shake");
    setTimeout(() => this.nodes.msg.classList.remove("shake"), 400);
    if (err.code === "stale_seq") this.resync().catch(() => {});
  }

  async request(t, fields) {
    try { return await this.conn.request(t, fields); } catch (err) { toast(err.message, "error"); return null; }
  }

  controls() {
    const n = this.nodes.controls;
    const s = this.state;
    const practice = s.kind === "practice";
    this.still.node.hidden = !(practice && this.still.on && s.state === "running");
    if (s.state === "finished" || s.state === "closed" || s.state === "lobby") { n.replaceChildren(); return; }
    const input = h("input", { id: "move-input", placeholder: "t3f1, t3, sw …", autocomplete: "off", spellcheck: "false", "aria-label": "Type a move" });
    const auto = h("input", { type: "checkbox", id: "auto", checked: this.auto, onchange: () => { this.auto = auto.checked; localStorage.setItem("solrace.auto", this.auto ? "1" : "0"); } });
    const batch = (t) => async () => {
      if (this.busy || !this.playable) return;
      this.busy = true;
      try { this.applyAck(await this.conn.request(t, { race: this.rid, seq: this.board.seq })); } catch (err) { this.refused(err); }
      finally { this.busy = false; this.drawBoard(); this.refresh(); }
    };
    n.replaceChildren(
      h("form", { class: "type-move", onsubmit: (ev) => { ev.preventDefault(); const m = input.value.trim(); input.value = ""; if (m) this.send(m); } },
        h("label", { for: "move-input", text: "Move" }), input, h("button", { type: "submit", text: "Play" })),
      h("label", { class: "check" }, auto, " Auto-play safe cards"),
      button("Safe cards home", batch("autoplay")),
      button("Finish", batch("finish")),
      ...(practice ? [button("Hint", () => this.hint()), this.still.checkbox()] : []),
      button("Resign", async () => {
        if (!confirm("Resign this race?")) return;
        await this.request("resign", { race: this.rid });
        this.resync().catch(() => {});
      }, { class: "danger" }),
      button("Keys (?)", () => this.toggleHelp()),
      h("p", { class: "muted small", text: "Click a card to play it to its best place, drag it to a pile, click the stock to draw. Keyboard: Tab to the board, arrows to move, Enter to play, M to pick up, S to draw, F for safe cards, ? for every key; or type a move and Enter." }),
      displayControls());
  }

  toggleHelp() {
    const open = document.querySelector(".help-keys");
    if (open) { open.remove(); return; }
    const back = document.activeElement;
    const dialog = helpDialog(() => { dialog.remove(); if (back && back.focus) back.focus(); });
    document.body.append(dialog);
  }

  /** Practice only (the server refuses elsewhere): the solver's next move, said and lit. */
  async hint() {
    if (!this.playable) return;
    this.nodes.msg.textContent = "Thinking…";
    const r = await this.request("hint", { race: this.rid });
    if (!r) { this.nodes.msg.textContent = ""; return; }
    this.nodes.msg.textContent = r.move ? `hint: ${r.move}` : "No winning move found from here within the hint's budget.";
  }

  key(ev) {
    if (ev.key === "Escape" && document.querySelector(".help-keys")) { this.toggleHelp(); ev.preventDefault(); return; }
    if (ev.target && (ev.target.tagName === "INPUT" || ev.target.tagName === "SELECT")) return;
    if (ev.key === "?") { ev.preventDefault(); this.toggleHelp(); return; }
    if (ev.defaultPrevented) return;  // the board's own keys (BoardKeys, via renderBoard)
    if (this.playable && this.keys.picked && ev.key === "Escape" && this.keys.key(ev)) { ev.preventDefault(); return; }
    if (ev.key === " " && this.playable && !(ev.target.closest && ev.target.closest(".card[data-src], .stock"))) {
      ev.preventDefault();
      this.send("s");
    } else if (/^[a-z0-9]$/i.test(ev.key) && this.playable) {
      const input = document.getElementById("move-input");
      if (input) { input.focus(); }
    }
  }
}

export { offerRematch } from "./raceend.js";
