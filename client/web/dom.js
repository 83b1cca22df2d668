// Small DOM and formatting helpers shared by the pages.

/** h("div", {class: "x", text: "hi"}, child, …): an element (null/false attributes skipped). */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/** A player's name, with a BOT badge for a BOT account (`title: "BOT"`, docs/bots.md). */
export function nameTag(name, title, suffix = "") {
  return h("span", { class: "pname" }, h("span", { text: `${name}${suffix}` }),
    title === "BOT" ? h("span", { class: "badge bot", title: "a BOT account: a program, never ranked", "aria-label": "BOT account", text: "BOT" }) : null);
}

export function button(text, onclick, attrs = {}) {
  return h("button", { type: "button", onclick, ...attrs }, text);
}

/** mm:ss (or h:mm:ss) of a duration in ms, never negative. */
export function clock(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const mm = String(Math.floor(s / 60) % 60).padStart(2, "0");
  const ss = String(s % 60).padStart(2, "0");
  return s >= 3600 ? `${Math.floor(s / 3600)}:${mm}:${ss}` : `${Math.floor(s / 60)}:${ss}`;
}

export function seconds(ms) {
  return ms === null || ms === undefined ? "–" : `${(ms / 1000).toFixed(1)} s`;
}

export function section(title, ...children) {
  return h("section", { class: "panel" }, h("h2", { text: title }), ...children);
}

let variantsPromise = null;
/** The variants and their options, from the server (`/variants.json`). */
export function variants() {
  if (!variantsPromise) variantsPromise = fetch("/variants.json").then((r) => r.json());
  return variantsPromise;
}

export async function variantTitle(name) {
  const v = (await variants()).find((x) => x.name === name);
  return v ? v.title : name;
}

export function optionsText(options) {
  return Object.entries(options || {}).map(([k, v]) => `${k}=${v}`).join(", ");
}

/** A short-lived message at the bottom of the screen. */
/** A message that goes by itself after 4 s; returns a function that removes it sooner. */
export function toast(text, kind = "info") {
  const node = h("div", { class: `toast ${kind}`, role: "alert", text });
  document.body.append(node);
  setTimeout(() => node.remove(), 4000);
  return () => node.remove();
}
