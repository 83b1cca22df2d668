// Boot: one connection to the server that served this page (same origin), a hash router
// (#/, #/join/CODE, #/race/ID, #/watch, #/watch/ID, #/daily[/VARIANT], #/leaderboard/VARIANT[/DIFFICULTY],
// #/profile[/NAME], #/replay/ID, #/tournaments, #/tournament/ID; for moderators #/mod, #/mod/case/ID, #/mod/audit) and the
// "reconnecting…" banner.
import { Connection } from "./connection.js";
import { button, h, nameTag, toast } from "./dom.js";
import { applyDisplay } from "./keyboard.js";
import * as lobby from "./pages/lobby.js";
import * as race from "./pages/race.js";
import * as watch from "./pages/watch.js";
import * as daily from "./pages/daily.js";
import * as profile from "./pages/profile.js";
import * as replay from "./pages/replay.js";
import * as moderation from "./pages/moderation.js";
import * as tournaments from "./pages/tournaments.js";

const scheme = location.protocol === "https:" ? "wss" : "ws";
const conn = new Connection(`${scheme}://${location.host}/`);
window.solrace = conn; // for the curious (and for tests that read state, never to play)

const ROUTES = [
  [/^$/, lobby.mount],
  [/^join\/([A-Za-z0-9]{6})$/, lobby.mountJoin],
  [/^race\/([a-z0-9]+)$/, race.mount],
  [/^watch$/, watch.mountList],
  [/^watch\/([A-Za-z0-9]+)$/, watch.mount],  // a race id, or an invite code as shown (upper case)
  [/^daily(?:\/([a-z-]+))?$/, daily.mount],
  [/^leaderboard\/([a-z-]+)(?:\/(easy|medium|hard))?$/, daily.mountLeaderboard],
  [/^profile(?:\/([A-Za-z0-9_.-]+))?$/, profile.mount],
  [/^replay\/([a-z0-9]+)$/, replay.mount],
  [/^tournaments$/, tournaments.mountList],
  [/^tournament\/([A-Za-z0-9]{6,32})$/, tournaments.mount],
  [/^mod$/, moderation.mountQueue],
  [/^mod\/case\/([a-z0-9]+:[A-Za-z0-9_-]+)$/, moderation.mountCase],
  [/^mod\/audit$/, moderation.mountAudit],
];

let unmount = null;
let generation = 0;  // the latest route(): an older one still mounting gives way to it

function stopPage(stop) {
  if (stop) { try { stop(); } catch (e) { /* the page is gone anyway */ } }
}

async function route() {
  const gen = ++generation;
  stopPage(unmount);
  unmount = null;
  const app = document.getElementById("app");
  app.replaceChildren(h("p", { class: "loading", text: "Loading…" }));
  await conn.ready;
  if (gen !== generation) return;  // the hash changed meanwhile: the newer route draws
  if (offlineShown) return;  // the offline page stays until the connection is back
  const path = location.hash.replace(/^#\/?/, "").split("?")[0];
  for (const [re, mount] of ROUTES) {
    const m = path.match(re);
    if (!m) continue;
    // each page draws into a box of its own: a page still mounting when the hash changes
    // draws into a box no longer shown, instead of beside the next page
    const box = h("div", { class: "page" });
    app.replaceChildren(box);
    let stop = null;
    try {
      stop = (await mount(box, conn, ...m.slice(1))) || null;
    } catch (err) {
      box.append(h("p", { class: "error", text: err.message }));
    }
    if (gen !== generation) stopPage(stop);  // replaced while it mounted
    else unmount = stop;
    return;
  }
  app.replaceChildren(h("p", { class: "error", text: "No such page." }));
}

// The server cannot be reached: after UNREACHABLE_MS without a connection the page says so
// plainly (there is no offline play: the rules live on the server) and keeps retrying; a page
// that was only "Loading…" is replaced by that message, and comes back once connected.
const UNREACHABLE_MS = 4000;
let downSince = null;
let offlineShown = false;
let watching = false;  // one checkReachable loop at a time

function offlinePage() {
  return h("section", { class: "offline", role: "alert" },
    h("h1", { text: "Cannot reach the solrace server" }),
    h("p", { text: "The page keeps trying to reconnect every few seconds. Nothing is played offline: the server holds the rules and every game." }),
    button("Try now", () => conn.reconnectNow(), { class: "primary" }));
}

function checkReachable(again = false) {
  if (watching && !again) return;
  watching = false;
  const app = document.getElementById("app");
  if (conn.state === "open") {
    downSince = null;
    document.querySelector("#status .offline-note")?.remove();
    if (offlineShown) { offlineShown = false; route(); }
    return;
  }
  watching = true;
  downSince = downSince || Date.now();
  if (Date.now() - downSince < UNREACHABLE_MS) { setTimeout(() => checkReachable(true), 500); return; }
  if (!offlineShown && (!app.firstChild || app.querySelector(":scope > .loading"))) {
    offlineShown = true;
    app.replaceChildren(offlinePage());
  } else if (!offlineShown && !document.querySelector("#status .offline-note")) {
    document.getElementById("status").append(h("span", { class: "offline-note", role: "alert", text: " — cannot reach the server; retrying" }));
  }
  setTimeout(() => checkReachable(true), 1000);
}

function showStatus() {
  const bar = document.getElementById("status");
  const text = { open: "", connecting: "connecting…", reconnecting: "reconnecting…", error: "cannot reach the server" }[conn.state];
  bar.textContent = text;
  bar.classList.toggle("shown", !!text);
  checkReachable();
}

function showWho() {
  const who = document.getElementById("who");
  who.replaceChildren(conn.name
    ? h("span", {}, h("a", { href: "#/profile", title: conn.account ? "signed in to your account" : "playing as a guest" }, nameTag(conn.name, conn.welcome.title), h("span", { class: "muted small", text: conn.account ? " · account" : " · guest" })),
      conn.moderator ? h("a", { href: "#/mod", class: "modlink", text: " · Moderation" }) : null)
    : h("span", { class: "muted", text: "spectator" }));
}

conn.addEventListener("state", showStatus);
conn.addEventListener("welcome", showWho);
conn.addEventListener("matched", (ev) => { location.hash = `#/race/${ev.detail.race.race}`; });
// an error without `re`: the server ended this session (revoked elsewhere, docs/protocol.md
// 20.6); the connection then comes back anonymous
conn.addEventListener("error", (ev) => toast(ev.detail.reason || ev.detail.code, "error"));
conn.addEventListener("rematch", (ev) => race.offerRematch(conn, ev.detail));
// fair play (docs/protocol.md 7.6): a ranked result held for review, or decided
conn.addEventListener("review", (ev) => toast({ held: "Your daily result is under review by a moderator.", clear: "Your daily result was cleared and is on the leaderboard.", removed: "Your daily result was removed." }[ev.detail.status] || ev.detail.status));
conn.addEventListener("warning", (ev) => toast(`A moderator warns you: ${ev.detail.reason}`, "error"));
conn.addEventListener("titled", (ev) => { conn.welcome.title = ev.detail.title; showWho(); });
conn.addEventListener("renamed", (ev) => { conn.welcome.name = ev.detail.name; showWho(); });
window.addEventListener("hashchange", route);
window.addEventListener("error", (ev) => toast(`error: ${ev.message}`, "error"));
showStatus();
conn.ready.then(showWho);
applyDisplay();  // four-colour deck, large cards, … as last chosen (local storage)
route();
