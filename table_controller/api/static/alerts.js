// Alerts; the pit acknowledges one with a note (other roles see no acknowledge form).
import { api, can, command, el, follow, me, nav, requireToken, showError, when } from "./app.js";
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
    : can(who, "acknowledge") ? acknowledgeForm(a) : "";
  return el("tr", { class: "alert-row", "data-seq": String(a.seq) }, el("td", {}, String(a.seq)), el("td", {}, when(a.raised_at)),
    el("td", {}, a.alert), el("td", {}, a.round_id ? el("a", { href: `round.html?id=${encodeURIComponent(a.round_id)}` }, a.round_id) : ""),
    el("td", {}, a.detail), el("td", {}, a.actor), el("td", {}, action));
}

async function load() {
  try {
    const alerts = await api("/api/alerts", { params: { open: openOnly.checked ? "true" : "false", limit: 500 } });
    table.replaceChildren(el("tr", {}, ["#", "Raised", "Alert", "Round", "Detail", "By", ""].map((h) => el("th", {}, h))), ...alerts.map(row));
    showError(null);
  } catch (error) {
    showError(error);
  }
}
openOnly.addEventListener("change", load);
await load();
follow((event) => { if (event.kind.startsWith("alert.")) load(); });
