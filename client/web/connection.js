// The websocket to the server: JSON over text frames (subprotocol solrace.json.v1), requests
// matched to replies by id, the session token kept in localStorage, and reconnection with
// back-off. After a reconnect it says hello with the token again and asks every page that
// registered a resume hook to catch up (a race page sends `sync` from its last version).
// It also keeps every race event it has seen, per race and version, so a page that opens
// after the events arrived (a quick pairing, a daily attempt) still sees them.

const SUBPROTOCOL = "solrace.json.v1";
const TOKEN_KEY = "solrace.token";
const NAME_KEY = "solrace.name";
const KEEPALIVE_MS = 25000;

export class ServerError extends Error {
  constructor(msg) {
    super(msg.reason || msg.code);
    this.code = msg.code;
    this.reply = msg;
  }
}

export class Connection extends EventTarget {
  constructor(url) {
    super();
    this.url = url;
    this.ws = null;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject}
    this.inFlight = new Map(); // "t fields" -> promise of a shared read (see shared())
    this.logs = new Map(); // race id -> Map(version -> event)
    this.resumeHooks = new Set();
    this.presence = new Map(); // race id -> Map(player -> online), from `presence` frames (7.3)
    this.spectators = new Map(); // race id -> spectator count, from `spectators` frames (7.4)
    this.welcome = null;
    this.state = "connecting";
    this.backoff = 500;
    this.wantName = null;
    this.ready = this._open();
    this.closedByUs = false;
    this.offset = 0; // server clock - local clock, ms (docs/protocol.md section 10)
    // A page with nothing attached (the lobby) would be closed as idle after 60 s
    // (docs/protocol.md section 3): ping now and then, which also refreshes the clock offset.
    setInterval(() => {
      if (this.state !== "open") return;
      const sent = Date.now();
      this.request("ping").then((r) => {
        this.offset = r.server_time - (sent + Date.now()) / 2;
      }).catch(() => {});
    }, KEEPALIVE_MS);
  }

  /** While reconnecting: try again now instead of after the back-off (the page's "Try now"). */
  reconnectNow() {
    if (!this.retryTimer) return;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.backoff = 500;
    this.ready = this._open();
  }

  /** Now on the server's (Redis) clock, in ms. */
  now() { return Date.now() + this.offset; }

  get token() { return localStorage.getItem(TOKEN_KEY); }
  get player() { return this.welcome ? this.welcome.player : null; }
  get name() { return this.welcome ? this.welcome.name : null; }
  /** True when this connection's session is an account's (docs/protocol.md section 20). */
  get account() { return !!(this.welcome && this.welcome.account); }
  /** The account's roles (moderator, admin): which pages to offer; the server checks again. */
  get roles() { return (this.welcome && this.welcome.roles) || []; }
  get moderator() { return this.roles.includes("moderator"); }

  _setState(state) {
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: state }));
  }

  _open() {
    return new Promise((resolve) => {
      const ws = new WebSocket(this.url, [SUBPROTOCOL]);
      this.ws = ws;
      ws.onopen = async () => {
        try {
          this.welcome = await this._hello();
          this.offset = this.welcome.server_time - Date.now();
          this.backoff = 500;
          this._setState("open");
          resolve(this.welcome);
          this.dispatchEvent(new CustomEvent("welcome", { detail: this.welcome }));
          for (const hook of this.resumeHooks) hook();
        } catch (err) {
          this._setState("error");
          resolve(null);
        }
      };
      ws.onmessage = (ev) => this._onFrame(ev.data);
      ws.onclose = () => {
        for (const { reject } of this.pending.values()) {
          reject(new ServerError({ code: "disconnected", reason: "connection lost" }));
        }
        this.pending.clear();
        if (this.ws !== ws || this.closedByUs) return;
        this._setState("reconnecting");
        const delay = this.backoff;
        this.backoff = Math.min(this.backoff * 2, 8000);
        this.retryTimer = setTimeout(() => { this.retryTimer = null; this.ready = this._open(); }, delay + Math.random() * 200);
      };
    });
  }

  async _hello() {
    if (this.wantAnon) { // the socket a `login` runs on: anonymous, the stored token kept
      this.wantAnon = false;
      return await this.request("hello", { v: 1 });
    }
    if (this.wantName) {
      const name = this.wantName;
      this.wantName = null;
      try {
        const welcome = await this.request("hello", { v: 1, name });
        localStorage.setItem(TOKEN_KEY, welcome.token);
        localStorage.setItem(NAME_KEY, welcome.name);
        return welcome;
      } catch (err) {
        this.nameError = err; // a failed hello may be retried on the same socket: go on below
      }
    }
    const token = this.token;
    if (token) {
      try {
        return await this.request("hello", { v: 1, token });
      } catch (err) {
        if (err.code !== "bad_token") throw err;
        localStorage.removeItem(TOKEN_KEY);
      }
    }
    return await this.request("hello", { v: 1 });
  }

  /** Start a new session under `name` (a new socket: one hello per connection). Rejects with
   * the server's reason (bad_name, name_taken) and stays as it was. */
  async claimName(name) {
    this.wantName = name;
    this.nameError = null;
    await this._restart();
    if (this.nameError) throw this.nameError;
    return this.welcome;
  }

  _signedIn(reply) {
    localStorage.setItem(TOKEN_KEY, reply.token);
    localStorage.setItem(NAME_KEY, reply.name);
    this.welcome = { ...this.welcome, player: reply.player, name: reply.name, account: true,
      session: reply.session, races: reply.races || [], title: reply.title || null,
      roles: reply.roles || [] };
    this.dispatchEvent(new CustomEvent("welcome", { detail: this.welcome }));
    return this.welcome;
  }

  /** Make an account: a guest's connection upgrades in place (same player, its races and
   * history kept; `name` may be omitted to keep the guest's); an anonymous one needs `name`.
   * The password goes only into the request frame. Rejects with the server's reason. */
  async register(name, password) {
    const fields = { password };
    if (name && name !== this.name) fields.name = name;
    return this._signedIn(await this.request("register", fields));
  }

  /** Log in to an account. A login runs on an anonymous connection (section 20.4), so this
   * opens one; if the login is refused it reconnects with the session it had. */
  async login(name, password) {
    if (this.player) {
      this.wantAnon = true;
      await this._restart();
    }
    try {
      return this._signedIn(await this.request("login", { name, password }));
    } catch (err) {
      if (this.token && !this.player) await this._restart();
      throw err;
    }
  }

  /** End this session (a guest's name is freed) and reconnect anonymously. */
  async logout() {
    const had = this.player;
    localStorage.removeItem(TOKEN_KEY);
    if (had) await this.request("logout").catch(() => {});
    return await this._restart();
  }

  /** Forget the session and reconnect anonymously. */
  async forget() {
    localStorage.removeItem(TOKEN_KEY);
    return await this._restart();
  }

  async _restart() {
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    this._setState("connecting");
    this.ready = this._open();
    return await this.ready;
  }

  _onFrame(data) {
    if (typeof data !== "string") return;
    const msg = JSON.parse(data);
    if (msg.t === "event") {
      this._log(msg.race, [msg]);
      this.dispatchEvent(new CustomEvent("race-event", { detail: msg }));
      return;
    }
    if (msg.t === "presence") {
      if (!this.presence.has(msg.race)) this.presence.set(msg.race, new Map());
      this.presence.get(msg.race).set(msg.player, msg.online);
    } else if (msg.t === "spectators") this.spectators.set(msg.race, msg.count);
    if (msg.re !== undefined && this.pending.has(msg.re)) {
      const { resolve, reject } = this.pending.get(msg.re);
      this.pending.delete(msg.re);
      if (msg.t === "error") reject(new ServerError(msg));
      else resolve(msg);
      return;
    }
    this.dispatchEvent(new CustomEvent(msg.t, { detail: msg }));
  }

  _log(race, events) {
    let log = this.logs.get(race);
    if (!log) this.logs.set(race, (log = new Map()));
    for (const e of events) if (!log.has(e.v)) log.set(e.v, e);
  }

  /** Every event of `race` seen so far, in version order. */
  events(race) {
    const log = this.logs.get(race);
    return log ? [...log.values()].sort((a, b) => a.v - b.v) : [];
  }

  /** Send one request; resolves with the reply, rejects with a ServerError. */
  request(t, fields = {}) {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) {
      return Promise.reject(new ServerError({ code: "disconnected", reason: "not connected" }));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      ws.send(JSON.stringify({ t, id, ...fields }));
    });
  }

  /** An idempotent read (e.g. `daily`): while the same request is in flight it is shared, not
   * sent again — a page opened twice while the server certifies a deal must not spend the
   * connection's few concurrent requests on copies (docs/protocol.md section 4). */
  shared(t, fields = {}) {
    const key = `${t} ${JSON.stringify(fields)}`;
    let p = this.inFlight.get(key);
    if (!p) {
      p = this.request(t, fields).finally(() => this.inFlight.delete(key));
      this.inFlight.set(key, p);
    }
    return p;
  }

  /** `sync` a race from `since`, following pages; logs the events and returns the last reply. */
  async sync(race, since = 0) {
    let reply;
    do {
      reply = await this.request("sync", { race, since });
      const events = reply.events.map((e) => ({ ...e, t: "event", race }));
      this._log(race, events);
      if (events.length) since = events[events.length - 1].v;
    } while (reply.more);
    return reply;
  }

  /** A rival's connection state in a race: true, false, or undefined (not told: a bot). */
  online(race, player) {
    const m = this.presence.get(race);
    return m ? m.get(player) : undefined;
  }

  onResume(hook) {
    this.resumeHooks.add(hook);
    return () => this.resumeHooks.delete(hook);
  }
}
