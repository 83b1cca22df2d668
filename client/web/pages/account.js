// The sign-in area (docs/protocol.md sections 3 and 20): play as a guest under a name, register
// an account (a guest upgrades in place and keeps its races and history), log in, log out, and
// who you are. Passwords live only in their input until sent: the inputs are cleared after
// every attempt, and nothing here logs or renders them (errors show the server's reason).
import { button, h } from "../dom.js";

const NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9_.\\-]{1,19}";

/** "alice (account)" / "bob (guest)" / null when anonymous. */
export function whoText(conn) {
  if (!conn.name) return null;
  return `${conn.name} (${conn.account ? "account" : "guest"})`;
}

function passwordInput(id, autocomplete) {
  return h("input", { id, type: "password", autocomplete, required: true, minlength: "8", maxlength: "128" });
}

function form(cls, onsubmit, ...children) {
  const msg = h("p", { class: "error", role: "alert" });
  const node = h("form", { class: cls, onsubmit: async (ev) => {
    ev.preventDefault();
    msg.textContent = "";
    try { await onsubmit(); } catch (err) { msg.textContent = err.message; }
  } }, ...children, msg);
  return node;
}

/** Play as a guest: a name, no password. */
export function guestForm(conn, after) {
  // no maxlength: a longer name pasted in would be cut silently and played under a name the
  // player did not type; it is refused with a reason instead
  const input = h("input", { id: "name", name: "name", autocomplete: "nickname", placeholder: "e.g. alice", required: true });
  return form("name-form", async () => {
    const name = input.value.trim();
    if (name.length > 20) throw new Error(`"${name.slice(0, 24)}…" is ${name.length} characters long; a name has 2 to 20.`);
    if (!new RegExp(`^${NAME_PATTERN}$`).test(name)) throw new Error("A name has 2 to 20 letters, digits, _ . or -, and starts with a letter or digit.");
    await conn.claimName(name);
    after();
  },
    h("label", { for: "name", text: "Your name" }), input, h("button", { type: "submit", text: "Play" }));
}

function registerForm(conn, after) {
  const guest = !!conn.name;
  const name = guest ? null : h("input", { id: "reg-name", autocomplete: "username", required: true, pattern: NAME_PATTERN, maxlength: "20" });
  const pw = passwordInput("reg-password", "new-password");
  return form("name-form register", async () => {
    const secret = pw.value;
    pw.value = "";
    await conn.register(name ? name.value.trim() : null, secret);
    after();
  },
  guest ? h("p", { class: "small", text: `Register ${conn.name} as an account: your races and history stay yours, and you can play rated races and ranked dailies.` }) : null,
  name ? h("label", { for: "reg-name", text: "Account name" }) : null, name,
  h("label", { for: "reg-password", text: "New password" }), pw,
  h("button", { type: "submit", text: "Register" }));
}

function loginForm(conn, after) {
  const name = h("input", { id: "login-name", autocomplete: "username", required: true, maxlength: "20" });
  const pw = passwordInput("login-password", "current-password");
  pw.removeAttribute("minlength");
  return form("name-form login", async () => {
    const secret = pw.value;
    pw.value = "";
    await conn.login(name.value.trim(), secret);
    after();
  },
  h("label", { for: "login-name", text: "Login name" }), name,
  h("label", { for: "login-password", text: "Password" }), pw,
  h("button", { type: "submit", text: "Log in" }));
}

/** The whole sign-in area for the current state; `after` re-renders the page. */
export function signIn(conn, after) {
  const out = button("Log out", async () => { await conn.logout(); after(); }, { class: "link" });
  if (conn.account) {
    return h("div", { class: "signin" },
      h("p", {}, "Signed in as ", h("strong", { text: conn.name }), " (account) · ", h("a", { href: "#/profile", text: "your profile" }), " · ", out));
  }
  if (conn.name) {
    return h("div", { class: "signin" },
      h("p", {}, "Playing as ", h("strong", { text: conn.name }), " (guest) · ", h("a", { href: "#/profile", text: "your profile" }), " · ", out),
      h("p", { class: "muted small", text: "Guests play casual races and practice; rated races and the ranked daily attempt need an account." }),
      h("div", { class: "signin-forms" }, registerForm(conn, after),
        h("details", {}, h("summary", { text: "Log in to another account" }), loginForm(conn, after))));
  }
  return h("div", { class: "signin" },
    h("p", { text: "Play as a guest under a name (no sign-up), or register an account for rated races and the ranked dailies. Anyone can watch without either." }),
    h("div", { class: "signin-forms" }, guestForm(conn, after),
      h("div", {}, h("h3", { text: "Log in" }), loginForm(conn, after)),
      h("div", {}, h("h3", { text: "Register" }), registerForm(conn, after))));
}
