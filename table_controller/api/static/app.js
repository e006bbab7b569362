// Shared code of the terminal pages: who is signed in, calls to the API, cards, the live stream.
// Plain JavaScript, no build step. A table's pages sign in once (signInOnce): the token is posted
// to /api/session and the browser keeps an HttpOnly session cookie (api/sessions.py), so a report
// or a page opened from a plain link needs no token. A page that keeps a token in this tab's
// sessionStorage instead (signIn, the floor's sign-in) sends it as a bearer token.

const TOKEN_KEY = "table-controller-token";
// A change sent with the session cookie carries this header: no other site's page can
// (docs/api.md, "Browser sessions").
const CSRF_HEADERS = { "X-Requested-With": "table-controller" };

export function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function signIn(value) {
  sessionStorage.setItem(TOKEN_KEY, value.trim());
}

export function forgetToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

// The headers that say who is asking: the tab's token when it keeps one, else the session cookie
// (which the browser adds itself) with the header that marks a request of these pages.
export function authHeaders() {
  const kept = token();
  return kept ? { ...CSRF_HEADERS, Authorization: `Bearer ${kept}` } : { ...CSRF_HEADERS };
}

// Sign this browser in with ``value`` (a token), once: who it is, or an ApiError (401).
export async function signInOnce(value) {
  forgetToken();
  const answer = await fetch("/api/session", { method: "POST",
    headers: { ...CSRF_HEADERS, Authorization: `Bearer ${value.trim()}` } });
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new ApiError(answer.status, data);
  return data;
}

export async function signOut() {
  if (!token()) {
    try {
      await fetch("/api/session", { method: "DELETE", headers: CSRF_HEADERS });
    } catch {
      // the controller is not answering: the cookie ends with its token, its time or a restart
    }
  }
  forgetToken();
  location.href = "index.html";
}

// A page that shows what only a signed-in person may see: with a token kept in this tab it is
// checked here; with a session cookie (unreadable by scripts) the first refused request (401)
// goes back to the sign-in page.
const page = { needsSession: false };
export function requireToken() {
  page.needsSession = true;
}

// A refusal of the API. A malformed request's (422) message is one sentence per problem, naming
// the field in people's words (problemSentence), never the API's path to it ("body.high.4").
export class ApiError extends Error {
  constructor(status, body) {
    const problems = body && Array.isArray(body.errors) && body.errors.length ? body.errors : null;
    super(problems ? problems.map(problemSentence).join(" ")
      : body && body.detail ? body.detail : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

// -- a malformed request in people's words ------------------------------------------------------
// The names of the fields the forms and filters send (api/models/commands.py, routers/rounds.py).
const FIELD_WORDS = {
  high: "High hand", low: "Low hand", reason: "Reason", note: "Note", name: "Name", role: "Role",
  wagers: "Wagers", main: "main wager", big_hand: "Big Hand wager", joker_bonus: "Joker Bonus wager",
  bank: "The bank", seat: "seat", amount: "amount", co_bank: "co-banking", card: "Card",
  position: "Position", outcome: "Outcome", game: "Game", dealer: "Dealer", opened_from: "From",
  opened_to: "To", high_category: "High hand's rank", low_category: "Low hand's rank",
  seven_card_category: "Seven cards' rank", voided: "Voided", misdeal: "Misdeal", override: "Override",
  banker: "Banker", order: "Order", cursor: "Page", limit: "Rows per page",
};
const MONEY_FIELDS = new Set(["main", "big_hand", "joker_bonus", "amount"]);
const WHERE = new Set(["body", "query", "path", "header"]);
const BOUNDS = { "greater than or equal to": "at least", "greater than": "more than",
  "less than or equal to": "at most", "less than": "less than" };

// ["body", "high", 4] -> "High hand, card 5"; ["body", "wagers", "3", "main"] -> "Position 3, main wager".
export function fieldWords(loc) {
  const parts = (loc || []).filter((part, i) => !(i === 0 && WHERE.has(part)));
  const words = parts.map((part, i) => {
    const before = parts[i - 1];
    if ((before === "high" || before === "low") && /^\d+$/.test(String(part))) return `card ${Number(part) + 1}`;
    if (before === "wagers" && /^\d+$/.test(String(part))) return `Position ${part}`;
    return FIELD_WORDS[part] || String(part).replace(/_/g, " ");
  }).filter((word, i) => !(i === 0 && word === "Wagers" && parts.length > 1));
  const text = words.join(", ") || "The request";
  return text[0].toUpperCase() + text.slice(1);
}

// One problem of a 422 as a sentence: the field in words, then what is wrong; an amount of money
// is said in dollars and cents, as it was typed, not in the cents the API counts.
export function problemSentence(problem) {
  const loc = problem.loc || [];
  let msg = String(problem.msg || "is not valid");
  const bound = /^Input should be (greater than or equal to|greater than|less than or equal to|less than) (\d+)$/.exec(msg);
  if (bound && MONEY_FIELDS.has(loc[loc.length - 1])) msg = `must be ${BOUNDS[bound[1]]} ${money(Number(bound[2]))}`;
  else if (msg === "Field required") msg = "is missing";
  return `${fieldWords(loc)}: ${msg}${/[.!?]$/.test(msg) ? "" : "."}`;
}

// -- a phase in words ------------------------------------------------------------------------------
// The API gives each phase in words beside its slug (phase_words, from round/phase_words.py):
// the pages show those words, never the slug; a table with no round yet waits for wagers.
export const NO_ROUND_WORDS = "no round yet: waiting for wagers";
export function phaseWords(round) {
  if (!round) return NO_ROUND_WORDS;
  return round.phase_words || round.phase;
}

// -- one table's pages on the floor ----------------------------------------------------------------
// The floor serves the history and round pages for any table with ?table=ID: their reads then
// go to /api/floor/tables/ID/rounds..., the same answers as the table's own /api/rounds...
export const floorTable = new URLSearchParams(location.search).get("table");

export function roundsPath(rest = "") {
  return floorTable ? `/api/floor/tables/${encodeURIComponent(floorTable)}/rounds${rest}` : `/api/rounds${rest}`;
}

// A link to another page of the same table: the ?table= given to this page is kept.
export function pageLink(page, params = {}) {
  const query = new URLSearchParams(params);
  if (floorTable) query.set("table", floorTable);
  const text = query.toString();
  return text ? `${page}?${text}` : page;
}

// The controller did not answer at all (connection refused or dropped, a timeout, a gateway's
// 502/504): the page's banner says so, not each form or table.
export class NoAnswerError extends Error {
  constructor(cause) {
    super("no answer from the table controller: what this page shows may be out of date; check the table before trying again");
    this.cause = cause;
  }
}

// -- is the controller answering? --------------------------------------------------------------
// Every answer (and every byte of the live stream) counts as "heard"; a request that gets no
// answer turns the page's banner on until the controller is heard again. The page was itself
// served by the controller, so it was last heard when the page loaded.
const ANSWER_TIMEOUT_MS = 10000;
const QUIET_MS = 5000;  // heard nothing for this long (no stream, no poll): ask /api/me
const STREAM_QUIET_MS = 20000;  // a stream open hears a keepalive every 15 s (docs/api.md)
const connection = { down: false, lastHeard: new Date(), listeners: [], checking: false, streams: 0 };

export function lastHeard() {
  return connection.lastHeard;
}

export function controllerDown() {
  return connection.down;
}

// fn(down, lastHeard) on every change: down true when the controller stops answering, false
// when it answers again (the page then reloads what it shows).
export function onConnection(fn) {
  connection.listeners.push(fn);
}

export function clock(date) {
  return date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit", hour12: false });
}

function banner() {
  let box = document.getElementById("controller-banner");
  if (!box) {
    box = el("div", { id: "controller-banner", class: "banner", role: "alert", hidden: "" });
    document.body.prepend(box);
  }
  return box;
}

function heard() {
  connection.lastHeard = new Date();
  if (!connection.down) return;
  connection.down = false;
  banner().hidden = true;
  document.body.classList.remove("controller-down");
  for (const fn of connection.listeners) fn(false, connection.lastHeard);
}

function noAnswer() {
  if (connection.down) return;
  connection.down = true;
  const box = banner();
  box.replaceChildren(el("strong", {}, "The table controller is not answering"),
    ` (nothing since ${clock(connection.lastHeard)}). What this page shows may be out of date; it will refresh when the controller answers again.`);
  box.hidden = false;
  document.body.classList.add("controller-down");
  for (const fn of connection.listeners) fn(true, connection.lastHeard);
}

// Read from a replica (docs/floor-replica.md): every answer read off it says how far behind it
// is (X-Read-Behind, X-Read-Lag-Seconds); behind its threshold, a banner says what is shown may
// be late, so nothing behind is taken as current without saying so.
function readLag(answer) {
  if (answer.headers.get("x-read-from") !== "replica") return;
  let box = document.getElementById("read-lag-banner");
  const behind = answer.headers.get("x-read-behind") === "true";
  if (!box) {
    if (!behind) return;
    box = el("div", { id: "read-lag-banner", class: "banner read-lag", role: "status", hidden: "" });
    document.body.prepend(box);
  }
  if (behind) {
    const lag = answer.headers.get("x-read-lag-seconds");
    box.replaceChildren(el("strong", {}, "Reading from a replica that is behind"),
      lag === "unknown" ? " (by an unknown time)." : ` (by ${lag} s).`,
      " What this page shows may be late; commands still go to the table.");
  }
  box.hidden = !behind;
}

function isNoAnswer(error) {
  return error instanceof TypeError || (error && (error.name === "AbortError" || error.name === "TimeoutError"));
}

// While the page has nothing else in flight (no stream, no poll), ask who am I now and then, so
// that a dropped controller is noticed, and its return too.
setInterval(async () => {
  const quiet = connection.streams ? STREAM_QUIET_MS : QUIET_MS;
  if (connection.checking || !page.needsSession || (!connection.down && Date.now() - connection.lastHeard < quiet)) return;
  connection.checking = true;
  try {
    await api("/api/me");
  } catch {
    // noted by api(): the banner
  } finally {
    connection.checking = false;
  }
}, 1000);

export async function api(path, { method = "GET", body, params, signOutOn401 = true } = {}) {
  const url = new URL(path, location.origin);
  for (const [key, value] of Object.entries(params || {})) {
    if (value !== "" && value !== null && value !== undefined) url.searchParams.set(key, value);
  }
  const headers = authHeaders();
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let answer;
  let data;
  try {
    answer = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    if (answer.status === 502 || answer.status === 504) throw new TypeError(`gateway: HTTP ${answer.status}`);
    data = (answer.headers.get("content-type") || "").includes("json") ? await answer.json() : await answer.text();
  } catch (error) {
    if (!isNoAnswer(error)) throw error;
    noAnswer();
    throw new NoAnswerError(error);
  }
  heard();
  readLag(answer);
  if (!answer.ok) {
    if (answer.status === 401 && signOutOn401) signOut();
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
  for (const child of children.flat(Infinity)) {
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

// A hand as a dealer reads it: its cards in reading order and its name ("pair of kings"), as the
// API reads it (``high_sorted``/``high_name`` ...: game/hand_words.py); the cards as given where
// the answer names no hand (a split that is not five and two).
export function readHand(codes, sorted, name) {
  return el("span", { class: "hand" }, cards(sorted || codes), name ? el("span", { class: "category hand-name" }, ` ${name}`) : "");
}

// A setting (high | low), each hand read as a dealer reads it.
export function readSetting(setting) {
  return [readHand(setting.high, setting.high_sorted, setting.high_name), " | ",
    readHand(setting.low, setting.low_sorted, setting.low_name)];
}

export function money(cents) {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  // game/money.py format_cents: "$1,234.56", the thousands grouped as a cashier writes them
  return `${sign}$${Math.floor(abs / 100).toLocaleString("en-US")}.${String(abs % 100).padStart(2, "0")}`;
}

export function when(iso) {
  return iso ? new Date(iso).toLocaleString() : "";
}

// The page's error line; an unanswered request is the banner's to tell, not this line's.
export function showError(error) {
  if (error instanceof NoAnswerError) return;
  const box = document.getElementById("error");
  if (box) box.textContent = error ? String(error.message || error) : "";
}

// Follow /api/stream (or the floor's, ``path``): each event goes to onEvent; on a drop, reconnect with Last-Event-ID so
// that nothing is missed and nothing comes twice. fetch() is used (not EventSource) so a kept
// token travels in the Authorization header, never in the URL. onOpen() is called each time the
// stream is connected. A 403 (the role may not read the stream) will not change by retrying:
// it is said once and the stream is not asked again.
export function follow(onEvent, { after, onOpen, path = "/api/stream" } = {}) {
  let lastId = after === undefined ? null : String(after);
  let stopped = false;
  const controller = { stop() { stopped = true; } };

  async function readEvents(reader) {
    const decoder = new TextDecoder();
    let buffer = "";
    while (!stopped) {
      const { value, done } = await reader.read();
      if (done) return;
      heard();  // keepalives included: the controller is there
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
  }

  (async function loop() {
    while (!stopped) {
      try {
        const headers = authHeaders();
        if (lastId !== null) headers["Last-Event-ID"] = lastId;
        let answer;
        try {
          answer = await fetch(path, { headers });
        } catch (error) {
          if (isNoAnswer(error)) noAnswer();
          throw error;
        }
        if (answer.status === 401) return signOut();
        if (answer.status === 403) {
          heard();
          const body = await answer.json().catch(() => ({}));
          showError(new ApiError(403, body));
          return;
        }
        if (answer.status === 502 || answer.status === 504) {
          noAnswer();
          throw new Error(`stream: HTTP ${answer.status}`);
        }
        if (!answer.ok) throw new Error(`stream: HTTP ${answer.status}`);
        heard();
        if (onOpen) onOpen();
        connection.streams += 1;
        try {
          await readEvents(answer.body.getReader());
        } finally {
          connection.streams -= 1;
        }
      } catch (error) {
        if (!isNoAnswer(error)) showError(error);  // a dropped connection: the banner's, if it stays down
      }
      if (!stopped) await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  })();
  return controller;
}

// Who is signed in: {name, role, permissions} from /api/me, asked once per page.
// A page opened while the controller is not answering waits for it (the banner says why).
let whoAmI = null;
export function me() {
  whoAmI ||= (async () => {
    for (;;) {
      try {
        return await api("/api/me");
      } catch (error) {
        if (!(error instanceof NoAnswerError)) {
          whoAmI = null;
          throw error;
        }
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  })();
  return whoAmI;
}

export function can(who, permission) {
  return who.permissions.includes(permission);
}

// The links this role can use: the admin has the users page, the others the table, and
// history, alerts, the table's math, accounting and reports when their role may audit.
export function nav(active, who) {
  if (floorTable) return floorNav(active, who);
  const links = who && who.role === "admin" ? [["admin.html", "Users"]]
    : [["table.html", "Table"], ...(!who || can(who, "audit")
      ? [["history.html", "History"], ["alerts.html", "Alerts"], ["analysis.html", "Analysis"],
        ["accounting.html", "Accounting"], ["ratings.html", "Ratings"],
        ...(floorTable ? [] : [["reports.html", "Reports"]])] : [])];
  return el("nav", {},
    links.map(([href, label]) => el("a", { href: pageLink(href), class: href === active ? "active" : "" }, label)),
    who ? el("span", { class: "who", id: "who" }, `${who.name} (${who.role})`) : null,
    el("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out"));
}

// The nav of a table's page served by the floor (?table=ID): back to the floor, the table's
// history and its day report on the floor, its alerts in the floor's list, and its live and
// analysis pages where the table serves them (its api_url, once the floor has answered).
const FLOOR_REPORT = "/api/floor/reports/day.html";

export function floorReportLink(params = {}) {
  const text = new URLSearchParams(params).toString();
  return text ? `${FLOOR_REPORT}?${text}` : FLOOR_REPORT;
}

function floorNav(active, who) {
  const onTable = (page, label) => el("a", { "data-table-page": page, hidden: "" }, label);
  const box = el("nav", {},
    el("a", { href: "floor.html", class: "floor-link" }, "Floor"),
    onTable("table.html", "Table"),
    el("a", { href: pageLink("history.html"), class: active === "history.html" ? "active" : "" }, "History"),
    el("a", { href: "floor.html#alerts-section" }, "Alerts"),
    onTable("analysis.html", "Analysis"),
    el("a", { href: floorReportLink({ table: floorTable }), class: "report-link" }, "Report"),
    who ? el("span", { class: "who", id: "who" }, `${who.name} (${who.role})`) : null,
    el("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out"));
  api("/api/floor/tables").then((rows) => {
    const row = rows.find((t) => t.table_id === floorTable);
    if (!row || !row.api_url) return;
    for (const link of box.querySelectorAll("[data-table-page]")) {
      link.href = `${row.api_url}/ui/${link.dataset.tablePage}`;
      link.hidden = false;
    }
  }).catch(() => {});  // the page's own reads say what is wrong
  return box;
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
