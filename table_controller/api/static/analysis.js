// The table's math (docs/math.md): today's actual against theoretical win, the house edge by
// simulation with its 95% interval, the exact par sheet, and what they were computed for.
import { api, el, me, money, nav, requireToken, showError } from "./app.js";
requireToken();
document.getElementById("nav").replaceWith(nav("analysis.html", await me()));

const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
const pct = (x) => (x === null || x === undefined) ? "missing" : `${(x * 100).toFixed(4)}%`;
const cents = (c) => (c === null || c === undefined) ? "missing" : money(c);
const rows = (table, pairs) => table.replaceChildren(...pairs.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, String(v)))));

async function today() {
  const t = await api("/api/analysis/today", { params: { tz: zone } });
  rows(document.getElementById("today"), [
    ["rounds with a theoretical win", t.rounds], ["actual (house)", cents(t.actual_cents)],
    ["theoretical", cents(t.theoretical_cents)],
    ["95% band", t.band_low_cents === null ? "missing" : `${money(t.band_low_cents)} .. ${money(t.band_high_cents)}`],
    ["outside the band", t.outside_band === null ? "missing" : (t.outside_band ? "YES" : "no")],
    ["time zone", t.time_zone]]);
}

function provenance(p) {
  const file = (f) => f ? `${f.name} (sha256 ${f.sha256.slice(0, 12)}…)` : "not offered";
  rows(document.getElementById("provenance"), [["game", p.game], ["wheel", p.wheel],
    ["joker wild in low", p.joker_wild_in_low], ["house way", file(p.house_way)],
    ["Big Hand", file(p.big_hand)], ["Joker Bonus", file(p.joker_bonus)]]);
}

// A question not answered yet is a job on the analysis worker (202): follow its status URL,
// asking every second (a job nobody asks about for 30 s is cancelled: docs/api.md).
async function answered(path, params, shown) {
  let found = await api(path, { params });
  while (found && found.status_url && found.state !== undefined && found.job !== undefined) {
    if (found.state === "done") return found.result;
    if (found.state !== "queued" && found.state !== "running") throw new Error(`${found.what}: ${found.state} (${found.error || ""})`);
    if (shown) shown(found);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    found = await api(found.status_url);
  }
  return found;
}

async function edge(rounds) {
  const table = document.getElementById("edge");
  table.replaceChildren(el("tr", {}, el("td", {}, "computing…")));
  const e = await answered("/api/analysis/house-edge", { rounds }, (job) => table.replaceChildren(
    el("tr", {}, el("td", {}, `computing… ${job.state}, ${job.rounds_done.toLocaleString()} of ${job.rounds.toLocaleString()} rounds`))));
  rows(table, [["house edge", pct(e.house_edge)], ["standard error", pct(e.standard_error)],
    ["95% interval", `${pct(e.interval_95[0])} .. ${pct(e.interval_95[1])}`], ["win", pct(e.win_rate)],
    ["push", pct(e.push_rate)], ["lose", pct(e.loss_rate)], ["any copy", pct(e.any_copy_rate)],
    ["rounds", e.rounds.toLocaleString()], ["seed", e.seed], ["wager", money(e.wager_cents)]]);
  provenance(e.provenance);
}

async function parSheet() {
  const s = await answered("/api/analysis/par-sheet");
  const best = el("table", {}, el("tr", {}, el("th", {}, "best five-card hand"), el("th", {}, "hands"), el("th", {}, "probability")),
    ...s.best_five.map((b) => el("tr", {}, el("td", {}, b.category), el("td", {}, b.combinations.toLocaleString()),
      el("td", {}, pct(b.probability_decimal)))));
  const bonuses = s.bonuses.map((b) => el("div", {}, el("h3", {}, `${b.bonus}: house edge ${b.house_edge} = ${pct(b.house_edge_decimal)}, hit rate ${pct(b.hit_rate_decimal)}`),
    el("table", {}, el("tr", {}, el("th", {}, "line"), el("th", {}, "pays"), el("th", {}, "combinations"), el("th", {}, "probability"), el("th", {}, "return")),
      ...b.lines.map((l) => el("tr", {}, el("td", {}, l.line), el("td", {}, String(l.odds)), el("td", {}, l.combinations.toLocaleString()),
        el("td", {}, pct(l.probability_decimal)), el("td", {}, pct(l.contribution_decimal)))))));
  document.getElementById("par-sheet").replaceChildren(el("p", {}, `${s.hands.toLocaleString()} hands of ${s.deck_cards} cards`), best, ...bonuses);
  provenance(s.provenance);
}

document.getElementById("edge-form").addEventListener("submit", (event) => {
  event.preventDefault();
  edge(document.getElementById("rounds").value).catch(showError);
});
today().catch(showError);
parSheet().catch(showError);
edge(document.getElementById("rounds").value).catch(showError);
