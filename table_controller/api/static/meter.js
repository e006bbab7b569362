// The meter page (docs/progressive.md, "The meter page"): a pool's meters for a sign above the
// tables, kept current by /api/progressive/{pool}/stream, each frame the whole view. Per level the
// current jackpot and its limit (PRG-49); each hit awaiting payment as PENDING until it is paid;
// a hit that arrives while the page is open as WIN with its table, seat, amount and the new
// amount (PRG-25) for WIN_SECONDS; the last hits beneath (PRG-11). The page shows a frame as it
// arrives: within a poll of the hit (PRG-26 allows 30 s).
import { api, clock, el, follow, money, requireToken, showError } from "./app.js";

requireToken();
const WIN_SECONDS = 60;
const HITS_SHOWN = 10;

async function poolId() {
  const given = new URLSearchParams(location.search).get("pool");
  if (given) return given;
  const table = await api("/api/table");
  if (!table.progressive) throw new Error("this table keeps no progressive pool: open the page with ?pool=ID");
  return table.progressive.pool_id;
}

function fill(id, ...children) {
  document.getElementById(id).replaceChildren(...children);
}

// A pay-table line as words: "five-aces" -> "five aces".
function words(line) {
  return (line || "").replace(/-/g, " ");
}

function place(hit) {
  return `table ${hit.table_id} seat ${hit.position}`;
}

let newestHit = null;  // the newest hit id seen: a higher one in a later frame is a WIN
let winTimer = null;

function showWin(hit, levels) {
  const level = levels.find((l) => l.level === hit.level);
  fill("win", el("div", { class: "meter-win-word" }, "WIN"),
    el("div", {}, `${place(hit)}: ${money(hit.amount)} (${hit.level}${hit.line ? `, ${words(hit.line)}` : ""})`),
    el("div", {}, `new ${hit.level}: ${money(level ? level.meter : hit.meter_after)}`));
  document.getElementById("win").hidden = false;
  clearTimeout(winTimer);
  winTimer = setTimeout(() => { document.getElementById("win").hidden = true; }, WIN_SECONDS * 1000);
}

function render(view) {
  document.title = `${view.name || view.pool_id}: progressive`;
  fill("pool-name", view.name || `Progressive ${view.pool_id}`);
  document.getElementById("pool-closed").hidden = view.open;
  fill("levels", ...view.levels.map((level) => el("div", { class: "meter-level", "data-level": level.level },
    el("div", { class: "meter-level-name" }, level.level.toUpperCase()),
    el("div", { class: "meter-amount" }, money(level.meter)),
    el("div", { class: "meter-limit" }, level.limit === null ? `resets to ${money(level.reset)}`
      : `limit ${money(level.limit)} · resets to ${money(level.reset)}`))));
  const pending = view.pending;
  fill("pending", ...pending.map((hit) => el("div", { class: "meter-pending-hit", "data-hit": String(hit.hit_id) },
    el("strong", {}, "PENDING"), ` ${place(hit)}: ${money(hit.amount)} (${hit.level})`)));
  document.getElementById("pending").hidden = pending.length === 0;
  const hits = view.recent_hits.slice(0, HITS_SHOWN);
  fill("hits", el("tr", {}, ["Time", "Table", "Seat", "Level", "Hand", "Amount", "New amount", ""].map((h) => el("th", {}, h))),
    ...hits.map((hit) => el("tr", { "data-hit": String(hit.hit_id) },
      el("td", {}, hit.at ? clock(new Date(hit.at)) : ""), el("td", {}, hit.table_id), el("td", {}, String(hit.position)),
      el("td", {}, hit.level), el("td", {}, words(hit.line)), el("td", { class: "money" }, money(hit.amount)),
      el("td", { class: "money" }, money(hit.meter_after)),
      el("td", { class: hit.pending ? "meter-pending-word" : "" }, hit.pending ? "PENDING" : "paid"))));
  const newest = view.recent_hits.length ? view.recent_hits[0] : null;
  if (newest && newestHit !== null && newest.hit_id > newestHit) showWin(newest, view.levels);
  if (newestHit === null || (newest && newest.hit_id > newestHit)) newestHit = newest ? newest.hit_id : 0;
  fill("updated", `updated ${clock(new Date())}`);
}

document.getElementById("full-screen").addEventListener("click", () => {
  document.documentElement.requestFullscreen().catch(() => {});  // a browser that refuses: the page as it is
});

try {
  const pool = await poolId();
  follow((view) => {
    showError(null);
    render(view);
  }, { path: `/api/progressive/${encodeURIComponent(pool)}/stream` });
} catch (error) {
  showError(error);
}
