// Round history: the filters of GET /api/rounds, page by page (pit and surveillance).
//
// The rows follow the live stream: a round still being played when the page was loaded is
// read again when one of its events arrives, and rounds opened since are added. Without this
// a row kept the phase it had at load time ("players' hands to set") long after the round closed.
//
// With ?table=ID (the floor serving this page for one of its tables) the rounds are read from
// the floor's /api/floor/tables/ID/rounds and the links keep the table; the floor has no table
// stream, so the rows are read on Search and More only.
import { api, el, floorTable, follow, money, nav, me, onConnection, pageLink, phaseWords, requireToken, roundsPath,
  showError, when } from "./app.js";
requireToken();
document.getElementById("nav").replaceWith(nav("history.html", await me()));
if (floorTable) document.querySelector("header h1").textContent = `Round history of table ${floorTable}`;
const form = document.getElementById("filters");
const table = document.getElementById("rounds");
const more = document.getElementById("more");
const FINAL = new Set(["closed", "void"]);
let cursor = null;
let query = {};  // the filters of the rows shown (the last Search), not what the form says now
let newestFirst = true;
let generation = 0;  // a new Search makes answers to the old one's requests stale
const rows = new Map();  // round_id -> {round, tr}

function params() {
  const found = {};
  for (const [key, value] of new FormData(form).entries()) {
    if (value === "") continue;
    found[key] = key.startsWith("opened_") ? new Date(value).toISOString() : value;
  }
  return found;
}

function header() {
  return el("tr", {}, ["Round", "Opened", "Dealer", "Phase", "Dice", "Wagered", "Commission", "House result", ""].map((h) => el("th", {}, h)));
}

function rowOf(r) {
  const flags = [r.voided ? (r.misdeal ? "misdeal" : "void") : "", r.override ? "override" : "",
    r.banker_seat ? `seat ${r.banker_seat} banked${r.house_share_bp ? " (co-banked)" : ""}` : ""].filter(Boolean).join(", ");
  return el("tr", { class: "round-row", "data-round": r.round_id },
    el("td", {}, el("a", { href: pageLink("round.html", { id: r.round_id }) }, r.round_id)),
    el("td", {}, when(r.opened_at)), el("td", {}, r.dealer), el("td", { class: "round-phase", "data-phase": r.phase }, phaseWords(r)),
    el("td", {}, r.dice ? r.dice.join(" ") : ""), el("td", { class: "money" }, money(r.wagered_cents)),
    el("td", { class: "money" }, money(r.commission_cents)), el("td", { class: "money" }, money(r.house_result_cents)),
    el("td", {}, flags));
}

// Show a round: replace its row if shown, else add it at the top or the bottom.
function put(r, where) {
  const tr = rowOf(r);
  const old = rows.get(r.round_id);
  if (old) old.tr.replaceWith(tr);
  else if (where === "top") table.firstChild.after(tr);
  else table.append(tr);
  rows.set(r.round_id, { round: r, tr });
}

async function load(reset) {
  if (reset) {
    generation += 1;
    query = params();
    newestFirst = query.order !== "oldest";
    cursor = null;
  }
  const mine = generation;
  try {
    const page = await api(roundsPath(), { params: { ...query, cursor: reset ? "" : cursor } });
    if (mine !== generation) return;
    if (reset) {
      rows.clear();
      table.replaceChildren(header());
    }
    for (const r of page.rounds) put(r, "bottom");
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    showError(null);
  } catch (error) {
    showError(error);
  }
}

// One round's row read again (its detail holds every column of the summary).
async function reread(roundId) {
  const mine = generation;
  try {
    const r = await api(roundsPath(`/${encodeURIComponent(roundId)}`));
    if (mine === generation && rows.has(roundId)) put(r, "bottom");
  } catch (error) {
    showError(error);
  }
}

// Rounds not shown that match the filters now: newest first, the first page
// again (the ones not shown go on top); oldest first with every page shown, the page after the
// last row (with more pages to show, the More button will bring them).
async function newRounds() {
  const mine = generation;
  const numbers = [...rows.values()].map((row) => row.round.number);
  try {
    if (newestFirst) {
      const top = numbers.length ? Math.max(...numbers) : 0;
      const page = await api(roundsPath(), { params: { ...query, cursor: "" } });
      if (mine !== generation) return;
      for (const r of page.rounds.filter((r) => r.number > top && !rows.has(r.round_id)).reverse()) put(r, "top");
    } else if (cursor === null) {
      const last = numbers.length ? Math.max(...numbers) : 0;
      const page = await api(roundsPath(), { params: { ...query, cursor: last } });
      if (mine !== generation || cursor !== null) return;
      for (const r of page.rounds.filter((r) => !rows.has(r.round_id))) put(r, "bottom");
      cursor = page.next_cursor;
      more.hidden = cursor === null;
    }
  } catch (error) {
    showError(error);
  }
}

// Events come in bursts (a deal, a settlement): read each round once per burst.
const stale = new Set();
let unshown = false;  // an event of a round not shown arrived
let timer = null;
function soon() {
  timer ||= setTimeout(() => {
    timer = null;
    for (const roundId of stale) reread(roundId);
    stale.clear();
    if (unshown) newRounds();
    unshown = false;
  }, 100);
}

// Whatever may have changed while nobody was listening (before the stream was connected, or
// while the controller was not answering): every unfinished round shown, and new rounds.
function catchUp() {
  for (const [roundId, row] of rows) if (!FINAL.has(row.round.phase)) stale.add(roundId);
  unshown = true;
  soon();
}

form.addEventListener("submit", (event) => { event.preventDefault(); load(true); });
more.addEventListener("click", () => load(false));
onConnection((down) => { if (!down) catchUp(); });
window.addEventListener("pageshow", (event) => { if (event.persisted) catchUp(); });  // back from another page
await load(true);
if (!floorTable) follow((event) => {
  if (!event.round_id) return;
  if (rows.has(event.round_id)) stale.add(event.round_id);
  else unshown = true;  // a round not shown: new, or it may match the filters now (settled, voided)
  soon();
}, { onOpen: catchUp });
