// Shared code of the terminal pages: the token, calls to the API, cards, the live stream.
// Plain JavaScript, no build step. The token stays in this tab's sessionStorage only.

const TOKEN_KEY = "table-controller-token";

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function signIn(value) {
  sessionStorage.setItem(TOKEN_KEY, value.trim());
}

export function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  location.href = "index.html";
}

export function requireToken() {
  if (!token()) {
    location.href = "index.html";
    throw new Error("not signed in");
  }
}

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.detail ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export async function api(path, { method = "GET", body, params } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== "" && value !== null && value !== undefined) url.searchParams.set(key, value);
  }
  const headers = { Authorization: `Bearer ${token()}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const answer = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = (answer.headers.get("content-type") || "").includes("json") ? await answer.json() : await answer.text();
  if (!answer.ok) {
    if (answer.status === 401) signOut();
    throw new ApiError(answer.status, data);
  }
  return data;
}

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
const RANKS = { T: "10" };

// One card drawn as a small face: rank and suit symbol, red for hearts and diamonds.
export function card(code) {
  if (code === "JK") return el("span", { class: "card joker", "data-code": code, title: "joker" }, "JK");
  const rank = code[0];
  const suit = code[1];
  const red = suit === "h" || suit === "d";
  return el("span", { class: `card${red ? " red" : ""}`, "data-code": code, title: code },
    RANKS[rank] || rank, SUITS[suit] || suit);
}

export function cards(codes) {
  return el("span", { class: "cards" }, (codes || []).map(card));
}

export function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}$${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

export function showError(error) {
  const box = document.getElementById("error");
  if (box) box.textContent = error ? String(error.message || error) : "";
}

// Follow /api/stream: each event goes to onEvent; on a drop, reconnect with Last-Event-ID so
// that nothing is missed and nothing comes twice. fetch() is used (not EventSource) so the
// token travels in the Authorization header, never in the URL.
export function follow(onEvent, { after } = {}) {
  let lastId = after === undefined ? null : String(after);
  let stopped = false;
  const controller = { stop() { stopped = true; } };
  (async function loop() {
    while (!stopped) {
      try {
        const headers = { Authorization: `Bearer ${token()}` };
        if (lastId !== null) headers["Last-Event-ID"] = lastId;
        const answer = await fetch("/api/stream", { headers });
        if (answer.status === 401) return signOut();
        if (!answer.ok) throw new Error(`stream: HTTP ${answer.status}`);
        const reader = answer.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        while (!stopped) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            let id = null;
            let data = "";
            for (const line of block.split("\n")) {
              if (line.startsWith("id:")) id = line.slice(3).trim();
              else if (line.startsWith("data:")) data += line.slice(5).trim();
            }
            if (data) {
              lastId = id;
              onEvent(JSON.parse(data));
            }
          }
        }
      } catch (error) {
        showError(error);
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return controller;
}

// Who is signed in: {name, role, permissions} from /api/me, asked once per page.
let whoAmI = null;
export function me() {
  whoAmI ||= api("/api/me");
  return whoAmI;
}

export function can(who, permission) {
  return who.permissions.includes(permission);
}

// The links this role can use: the admin has the users page, the others the table, and
// history and alerts when their role may audit.
export function nav(active, who) {
  const links = who && who.role === "admin" ? [["admin.html", "Users"]]
    : [["table.html", "Table"], ...(!who || can(who, "audit") ? [["history.html", "History"], ["alerts.html", "Alerts"]] : [])];
  return el("nav", {},
    links.map(([href, label]) => el("a", { href, class: href === active ? "active" : "" }, label)),
    who ? el("span", { class: "who", id: "who" }, `${who.name} (${who.role})`) : null,
    el("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out"));
}

// Dollars and cents as typed ("25", "25.5", "0.10") to integer cents, from the digits alone:
// no floating point. Anything else (a sign, a third decimal, letters, "1e3", "") gives null.
const AMOUNT = /^(\d{1,10})(?:\.(\d{1,2}))?$/;
export function parseCents(text) {
  const found = AMOUNT.exec(String(text).trim());
  return found ? Number(found[1] + (found[2] || "").padEnd(2, "0")) : null;
}

// Card codes as typed, separated by spaces or commas ("As Ah 9c 8c 2c"); the API checks them.
export function parseCards(text) {
  return String(text).split(/[\s,]+/).filter(Boolean);
}

// A command form: on submit, run action(formData) once at a time. The form's controls are in a
// <fieldset> that is disabled while the request is in flight (no double submit); a refusal's
// reason (the API's `detail`) is shown in the form's .form-error.
export function command(form, action) {
  const fieldset = form.querySelector("fieldset");
  const box = form.querySelector(".form-error");
  let busy = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (busy) return;
    const data = new FormData(form);  // before disabling: disabled controls are not in FormData
    busy = true;
    fieldset.disabled = true;
    box.textContent = "";
    try {
      await action(data);
    } catch (error) {
      box.textContent = String(error.message || error);
    } finally {
      busy = false;
      fieldset.disabled = false;
    }
  });
}
