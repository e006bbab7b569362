// Alerts; the pit acknowledges one with a note (other roles see no acknowledge form, nor does a
// pit user for an alert of their own act: the API says so, may_acknowledge, two-person rule). A role
// without the audit permission (the dealer) is told so once; nothing is asked of the API, which
// would refuse it (403) on every try.
import { api, can, command, el, follow, me, nav, onConnection, requireToken, showError, when } from "./app.js";
requireToken();
const who = await me();
document.getElementById("nav").replaceWith(nav("alerts.html", who));
const table = document.getElementById("alerts");
const openOnly = document.getElementById("open-only");

function acknowledgeForm(a) {
  const form = el("form", { class: "ack-form" },
    el("fieldset", {}, el("input", { name: "note", class: "note", placeholder: "note", size: "24" }),
      el("button", { type: "submit", class: "ack" }, "Acknowledge")),
    el("span", { class: "form-error" }));
  command(form, async (data) => {
    await api(`/api/alerts/${a.seq}/acknowledge`, { method: "POST", body: { note: data.get("note") } });
    await load();
  });
  return form;
}

function row(a) {
  const action = a.acknowledged_by
    ? `acknowledged by ${a.acknowledged_by} at ${when(a.acknowledged_at)}: ${a.note}`
    : can(who, "acknowledge") && a.may_acknowledge ? acknowledgeForm(a)
      : can(who, "acknowledge") ? el("span", { class: "own-act" }, "your own act: a second pit user acknowledges it") : "";
  return el("tr", { class: "alert-row", "data-seq": String(a.seq) }, el("td", {}, String(a.seq)), el("td", {}, when(a.raised_at)),
    el("td", {}, a.alert), el("td", {}, a.round_id ? el("a", { href: `round.html?id=${encodeURIComponent(a.round_id)}` }, a.round_id) : ""),
    el("td", {}, a.detail), el("td", {}, a.actor), el("td", {}, action));
}

// Notes being typed, by alert, so that a redraw (a new alert arrives) does not erase them.
function typedNotes() {
  const notes = new Map();
  for (const input of table.querySelectorAll("tr[data-seq] input.note")) {
    const seq = input.closest("tr").dataset.seq;
    notes.set(seq, { value: input.value, focused: input === document.activeElement, at: input.selectionStart });
  }
  return notes;
}

function restoreNotes(notes) {
  for (const [seq, note] of notes) {
    const input = table.querySelector(`tr[data-seq="${seq}"] input.note`);
    if (!input) continue;
    input.value = note.value;
    if (note.focused) {
      input.focus();
      input.setSelectionRange(note.at, note.at);
    }
  }
}

async function load() {
  try {
    const alerts = await api("/api/alerts", { params: { open: openOnly.checked ? "true" : "false", limit: 500 } });
    const notes = typedNotes();
    table.replaceChildren(el("tr", {}, ["#", "Raised", "Alert", "Round", "Detail", "By", ""].map((h) => el("th", {}, h))), ...alerts.map(row));
    restoreNotes(notes);
    showError(null);
  } catch (error) {
    showError(error);
  }
}
if (can(who, "audit")) {
  openOnly.addEventListener("change", load);
  onConnection((down) => { if (!down) load(); });
  // The list is read once the stream is connected, and again at every reconnection: nothing
  // raised in between is missed, and no second first read redraws the rows while a note is typed.
  follow((event) => { if (event.kind.startsWith("alert.")) load(); }, { onOpen: load });
} else {
  openOnly.closest("label").hidden = true;
  document.getElementById("error").textContent =
    `Alerts are for the pit and surveillance: the ${who.role} role cannot see them.`;
}
