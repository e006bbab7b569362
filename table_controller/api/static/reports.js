// The table's reports (docs/api.md, "Reports"): the last days and the shifts of a gaming day,
// each with its rounds and house result and plain links to the report as JSON and CSV, which
// open with the browser's session cookie (api/sessions.py).
import { api, el, me, money, nav, requireToken, showError } from "./app.js";
requireToken();
document.getElementById("nav").replaceWith(nav("reports.html", await me()));

const DAYS = 7;
const SHIFTS = ["day", "swing", "grave"];  // table_accounting.SHIFT_NAMES

function link(path, params, label) {
  return el("a", { href: `${path}?${new URLSearchParams(params)}`, class: "report-link" }, label);
}

function row(label, report, path, params, kind) {
  const total = report.total;
  return el("tr", { class: `report-row ${kind}`, "data-key": label },
    el("th", {}, label),
    el("td", {}, `${total.rounds} round${total.rounds === 1 ? "" : "s"}`),
    el("td", { class: "money" }, `house ${money(total.house_result_cents)}`),
    el("td", {}, link(path, params, "report"), " · ", link(`${path}.csv`, params, "CSV")));
}

// The calendar day ``back`` days before ``today`` (YYYY-MM-DD), by the calendar alone.
function dayBefore(today, back) {
  const [y, m, d] = today.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d - back)).toISOString().slice(0, 10);
}

async function shifts(gamingDay) {
  const found = await Promise.all(SHIFTS.map((shift) =>
    api("/api/accounting/day", { params: { gaming_day: gamingDay, shift } })));
  const rows = await Promise.all(found.map(async (period) => {
    const params = { start: period.start, end: period.end };
    const report = await api("/api/reports/shift", { params });
    return row(`${period.gaming_day} ${period.shift}`, report, "/api/reports/shift", params, "shift");
  }));
  document.getElementById("shifts").replaceChildren(...rows);
  return found[0];
}

async function load() {
  showError(null);
  try {
    const chosen = document.getElementById("gaming-day").value;
    const first = await shifts(chosen);
    if (!chosen) document.getElementById("gaming-day").value = first.gaming_day;
    const tz = first.time_zone;
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: tz }).format(new Date());
    const dates = Array.from({ length: DAYS }, (_, back) => dayBefore(today, back));
    const rows = await Promise.all(dates.map(async (date) => {
      const params = { date, tz };
      return row(date, await api("/api/reports/day", { params }), "/api/reports/day", params, "day");
    }));
    document.getElementById("days").replaceChildren(...rows);
    await progressive(document.getElementById("gaming-day").value);
  } catch (error) {
    showError(error);
  }
}

// The table's progressive pool, if it keeps one: its gaming day as JSON, CSV, printable page and PDF.
async function progressive(gamingDay) {
  const table = await api("/api/table");
  const box = document.getElementById("progressive");
  if (!table.progressive) return;
  const pool = table.progressive.pool_id;
  const path = `/api/progressive/${encodeURIComponent(pool)}/day`;
  const params = { gaming_day: gamingDay };
  document.getElementById("pool-id").textContent = pool;
  document.getElementById("progressive-links").replaceChildren(
    link(path, params, "report (JSON)"), " · ", link(`${path}.csv`, params, "CSV"), " · ",
    link(`${path}.html`, params, "printable page"), " · ", link(`${path}.pdf`, params, "PDF"));
  box.hidden = false;
}

document.getElementById("day-form").addEventListener("submit", (event) => {
  event.preventDefault();
  load();
});
load();
