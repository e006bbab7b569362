// The floor page: every table the person may see at a glance, and the alerts of every table in
// one list (docs/floor.md, "Pages"). Shared helpers (token, API calls, money, forms) from the
// table's app.js, which the floor serves too. ?pit=NAME shows one pit.
//
// Live: one stream for the floor (/api/floor/stream) redraws a table's card when its events
// arrive and the alerts list when an alert is raised or acknowledged; a new alert is
// highlighted and beeps. The cards are read again every few seconds too: a table whose daemon
// stops answering sends no event to say so.
import { api, can, command, el, floorReportLink, follow, me, money, requireToken, showError, signOut, when }
  from "./app.js";
requireToken();

const pit = new URLSearchParams(location.search).get("pit") || "";
const who = await me();
const tablesBox = document.getElementById("tables");
const alertsTable = document.getElementById("alerts");
const openOnly = document.getElementById("open-only");
const newBadge = document.getElementById("alerts-new");
const REFRESH_MS = 5000;
const seen = new Set();  // table:seq of every alert shown so far
const fresh = new Set();  // ... of those that arrived while the page was open, not yet looked at
let alertsLoaded = false;
let beeps = 0;

document.getElementById("title").textContent = pit ? `Floor — ${pit}` : "Floor";
document.title = pit ? `Floor — ${pit}` : "Floor";
document.getElementById("nav").replaceWith(el("nav", {},
  el("a", { href: "floor.html", class: pit ? "" : "active" }, "Floor"),
  el("a", { href: floorReportLink(pit ? { pit } : {}), class: "report-link" }, "Today's report"),
  el("span", { class: "who", id: "who" }, `${who.name} (${who.role})`),
  el("button", { type: "button", id: "sign-out", onclick: signOut }, "Sign out")));

// -- the tables ---------------------------------------------------------------------------------

function basisPoints(bp) {
  if (bp === null || bp === undefined) return "—";
  const abs = Math.abs(bp);
  return `${bp < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")} %`;
}

function alertCounts(counts) {
  const shown = Object.entries(counts).filter(([, n]) => n > 0);
  if (!shown.length) return el("span", { class: "ok" }, "none open");
  return el("span", {}, shown.map(([severity, n]) => el("span", { class: `severity ${severity}` }, `${n} ${severity}`)));
}

function devices(d) {
  if (d.status === "unknown") return el("span", { class: "unknown" }, "not reported yet");
  const parts = [];
  if (d.status === "ok") parts.push(el("span", { class: "ok" }, "ok"));
  for (const f of d.faults) parts.push(el("span", { class: "fault" }, `${f.kind}${f.detail ? `: ${f.detail}` : ""}`));
  if (d.hold) parts.push(el("span", { class: "fault" }, `held: ${d.hold.reason}`));
  if (d.table_open === false) parts.push(" (table closed)");
  return el("span", {}, parts.flatMap((p, i) => (i ? ["; ", p] : [p])));
}

function card(t) {
  const table = encodeURIComponent(t.table_id);
  const links = [
    t.live_url ? el("a", { href: t.live_url, class: "live-link" }, "Live table") : null,
    el("a", { href: `history.html?table=${table}`, class: "history-link" }, "History"),
    el("a", { href: floorReportLink({ table: t.table_id }), class: "report-link" }, "Report"),
    t.round_id ? el("a", { href: `round.html?table=${table}&id=${encodeURIComponent(t.round_id)}`, class: "round-link" },
      `Round ${t.round_number}`) : null,
  ];
  const classes = ["table-card", t.alive ? "" : "stale", t.devices.status === "fault" ? "fault" : ""];
  return el("article", { class: classes.filter(Boolean).join(" "), "data-table": t.table_id },
    el("h3", {}, el("span", {}, t.table_id, " ", el("span", { class: "pit" }, t.pit || "")),
      t.alive ? el("span", { class: "answering" }, "answering")
        : el("span", { class: "not-answering" }, `not answering since ${when(t.seen_at)}`)),
    el("dl", {},
      el("dt", {}, "Now"), el("dd", { class: "phase-words" }, t.phase_words),
      el("dt", {}, "Round"), el("dd", { class: "round" }, t.round_id ? `${t.round_id} (dealer ${t.dealer}, banker ${t.banker})` : "—"),
      el("dt", {}, "Game"), el("dd", {}, `${t.game}, ${t.house_way}`),
      el("dt", {}, "Alerts"), el("dd", { class: "open-alerts" }, alertCounts(t.open_alerts)),
      el("dt", {}, "Devices"), el("dd", { class: "devices" }, devices(t.devices)),
      el("dt", {}, "Today"), el("dd", { class: "today" },
        `${t.today.rounds} round${t.today.rounds === 1 ? "" : "s"}, wagered ${money(t.today.wagered_cents)}, win ${money(t.today.house_result_cents)}`,
        t.today.theoretical_win_cents === null ? "" : ` (theoretical ${money(t.today.theoretical_win_cents)})`,
        `, hold ${basisPoints(t.today.hold_bp)}`)),
    el("p", { class: "links" }, links));
}

// -- the pit map: each pit's tables laid out as in the pit (the floor's layout setting) ----------

function place(p) {
  if (p === null) return el("div", { class: "pit-place empty" });
  const href = p.live_url || `history.html?table=${encodeURIComponent(p.table_id)}`;
  const rated = p.rated.length
    ? p.rated.map((r) => `seat ${r.seat}: ${r.player}`).join(", ")
    : "no rated player";
  const theory = p.today.theoretical_win_cents === null ? "" : ` (theor. ${money(p.today.theoretical_win_cents)})`;
  return el("div", { class: `pit-place ${p.state}`, "data-place": p.table_id },
    el("a", { href, class: "pit-table" }, p.table_id),
    el("span", { class: "pit-state" }, p.state === "dealing" ? `dealing: ${p.phase_words}` : p.state),
    p.why ? el("span", { class: "pit-why" }, p.why) : null,
    el("span", { class: "pit-rated" }, rated),
    el("span", { class: "pit-today" }, `win ${money(p.today.house_result_cents)}${theory}, hold ${basisPoints(p.today.hold_bp)}`));
}

function pitMap(map) {
  const width = Math.max(1, ...map.rows.map((row) => row.length));
  const grid = el("div", { class: "pit-grid" },
    map.rows.flatMap((row) => [...row.map(place),
      ...Array.from({ length: width - row.length }, () => place(null))]));
  // through the CSSOM, which the pages' style-src 'self' allows (a style attribute it would refuse)
  grid.style.gridTemplateColumns = `repeat(${width}, minmax(9rem, 1fr))`;
  return el("section", { class: "pit-map", "data-pit": map.pit || "" },
    el("h3", {}, map.pit ? `Pit ${map.pit}` : "No pit", map.laid_out ? "" : " (not laid out: tables in order)"),
    grid);
}

async function loadPits() {
  const maps = await api("/api/floor/pits", { params: { pit } });
  document.getElementById("pits").replaceChildren(...maps.map(pitMap));
}

async function loadTables() {
  try {
    const [tables] = await Promise.all([api("/api/floor/tables", { params: { pit } }), loadPits()]);
    tablesBox.replaceChildren(...(tables.length ? tables.map(card) : [el("p", {}, "No table of this floor is yours to see.")]));
    showError(null);
  } catch (error) {
    showError(error);
  }
}

let tablesSoon = null;
function reloadTablesSoon() {  // a burst of events (a round's steps) reads the cards once
  if (tablesSoon === null) tablesSoon = setTimeout(() => { tablesSoon = null; loadTables(); }, 250);
}

// -- the alerts ---------------------------------------------------------------------------------

function beep() {
  beeps += 1;
  document.body.dataset.beeps = String(beeps);
  try {
    beep.audio ||= new AudioContext();
    const audio = beep.audio;
    const tone = audio.createOscillator();
    const volume = audio.createGain();
    tone.frequency.value = 880;
    volume.gain.value = 0.15;
    tone.connect(volume).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch {
    // no sound here: the highlight says it
  }
}
// A browser lets a page play sound once the person has touched it.
document.addEventListener("click", () => { if (beep.audio) beep.audio.resume(); }, { once: true });

function key(a) {
  return `${a.table_id}:${a.seq}`;
}

function acknowledgeForm(a) {
  const form = el("form", { class: "ack-form" },
    el("fieldset", {}, el("input", { name: "note", class: "note", placeholder: "note", size: "24", required: "" }),
      el("button", { type: "submit", class: "ack" }, "Acknowledge")),
    el("span", { class: "form-error" }));
  command(form, async (data) => {
    await api(`/api/floor/tables/${encodeURIComponent(a.table_id)}/alerts/${a.seq}/acknowledge`,
      { method: "POST", body: { note: data.get("note") } });
    fresh.delete(key(a));
    await Promise.all([loadAlerts(), loadTables()]);
  });
  return form;
}

function alertRow(a) {
  const action = a.acknowledged_by
    ? `acknowledged by ${a.acknowledged_by} at ${when(a.acknowledged_at)}: ${a.note}`
    : can(who, "acknowledge") ? acknowledgeForm(a) : "";
  const table = encodeURIComponent(a.table_id);
  const round = a.round_id
    ? el("a", { href: `round.html?table=${table}&id=${encodeURIComponent(a.round_id)}` }, a.round_id) : "";
  return el("tr", { class: `alert-row${fresh.has(key(a)) ? " new-alert" : ""}`, "data-key": key(a),
    onclick: (event) => { if (event.target.closest("form")) return; fresh.delete(key(a)); event.currentTarget.classList.remove("new-alert"); showNew(); } },
  el("td", {}, when(a.raised_at)), el("td", { class: "alert-table" }, a.table_id),
  el("td", {}, el("span", { class: `severity ${a.severity}` }, a.severity)),
  el("td", { class: "alert-kind" }, a.alert), el("td", {}, round), el("td", {}, a.detail), el("td", {}, a.actor),
  el("td", {}, action));
}

function showNew() {
  newBadge.hidden = fresh.size === 0;
  newBadge.textContent = `${fresh.size} new`;
}

// Notes being typed, by alert, so that a redraw (a new alert arrives) does not erase them.
function typedNotes() {
  const notes = new Map();
  for (const input of alertsTable.querySelectorAll("tr[data-key] input.note")) {
    notes.set(input.closest("tr").dataset.key,
      { value: input.value, focused: input === document.activeElement, at: input.selectionStart });
  }
  return notes;
}

function restoreNotes(notes) {
  for (const [row, note] of notes) {
    const input = alertsTable.querySelector(`tr[data-key="${CSS.escape(row)}"] input.note`);
    if (!input) continue;
    input.value = note.value;
    if (note.focused) {
      input.focus();
      input.setSelectionRange(note.at, note.at);
    }
  }
}

async function loadAlerts() {
  try {
    const alerts = await api("/api/floor/alerts", { params: { pit, open: openOnly.checked ? "true" : "false", limit: 200 } });
    let arrived = 0;
    for (const a of alerts) {
      if (seen.has(key(a))) continue;
      seen.add(key(a));
      if (alertsLoaded && !a.acknowledged_by) {
        fresh.add(key(a));
        arrived += 1;
      }
    }
    alertsLoaded = true;
    const notes = typedNotes();
    alertsTable.replaceChildren(el("tr", {}, ["Raised", "Table", "Severity", "Alert", "Round", "Detail", "By", ""]
      .map((h) => el("th", {}, h))), ...alerts.map(alertRow));
    restoreNotes(notes);
    showNew();
    if (arrived) beep();
  } catch (error) {
    showError(error);
  }
}

// -- the floor's stream -------------------------------------------------------------------------
// app.js's follow() on the floor's stream: its Last-Event-ID is the position in every table at
// once, so a reconnection misses nothing and repeats nothing.
const streamPath = `/api/floor/stream${pit ? `?pit=${encodeURIComponent(pit)}` : ""}`;

if (can(who, "audit")) {
  openOnly.addEventListener("change", loadAlerts);
  follow((event) => {
    if (event.kind.startsWith("alert.")) loadAlerts();
    reloadTablesSoon();
  }, { path: streamPath, onOpen: () => { loadTables(); loadAlerts(); } });
} else {
  document.getElementById("alerts-section").hidden = true;  // alerts are the pit's and surveillance's
  loadTables();
}
setInterval(loadTables, REFRESH_MS);
