// Round history: the filters of GET /api/rounds, page by page (pit and surveillance).
import { api, el, money, nav, me, requireToken, showError, when } from "./app.js";
requireToken();
document.getElementById("nav").replaceWith(nav("history.html", await me()));
const form = document.getElementById("filters");
const table = document.getElementById("rounds");
const more = document.getElementById("more");
let cursor = null;

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

async function load(reset) {
  try {
    const page = await api("/api/rounds", { params: { ...params(), cursor: reset ? "" : cursor } });
    if (reset) table.replaceChildren(header());
    for (const r of page.rounds) {
      const flags = [r.voided ? (r.misdeal ? "misdeal" : "void") : "", r.override ? "override" : ""].filter(Boolean).join(", ");
      table.append(el("tr", { class: "round-row", "data-round": r.round_id },
        el("td", {}, el("a", { href: `round.html?id=${encodeURIComponent(r.round_id)}` }, r.round_id)),
        el("td", {}, when(r.opened_at)), el("td", {}, r.dealer), el("td", {}, r.phase),
        el("td", {}, r.dice ? r.dice.join(" ") : ""), el("td", { class: "money" }, money(r.wagered_cents)),
        el("td", { class: "money" }, money(r.commission_cents)), el("td", { class: "money" }, money(r.house_result_cents)),
        el("td", {}, flags)));
    }
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    showError(null);
  } catch (error) {
    showError(error);
  }
}
form.addEventListener("submit", (event) => { event.preventDefault(); load(true); });
more.addEventListener("click", () => load(false));
load(true);
