// One round in full (GET /api/rounds/{id}) and its replay step by step.
import { api, cards, el, money, nav, me, onConnection, requireToken, showError, when } from "./app.js";
requireToken();
document.getElementById("nav").replaceWith(nav("", await me()));
const id = new URLSearchParams(location.search).get("id");
const fill = (name, ...children) => document.getElementById(name).replaceChildren(...children);

// Who banked (docs/settlement.md, 8): the house, or a seat with its bank and its result.
function bankerText(r) {
  if (r.banker_seat === null || r.banker_seat === undefined) return "banked by the house";
  const share = r.house_share_bp ? `, co-banked (the house's share ${r.house_share_bp / 100}%)` : "";
  const settled = r.banker_result_cents === null ? ""
    : `; the bank won ${money(r.bank_gross_cents)} gross, paid ${money(r.bank_commission_cents)} commission, the banker's result ${money(r.banker_result_cents)}`;
  return `banked by seat ${r.banker_seat} (position 1): bank ${money(r.bank_cents)}, the house's hand ${money(r.house_wager_cents)}${share}${settled}`;
}

// The rules' contents the round was decided under, by SHA-256 (docs/audit-chain.md).
function rulesVersion(pins) {
  const names = Object.keys(pins).sort();
  if (!names.length) return "rules version: by name only (opened before rules were pinned)";
  return el("span", {}, "rules version: ", ...names.map((name) =>
    el("span", {}, `${name} `, el("code", { class: "hash", title: pins[name] }, pins[name].slice(0, 12)), " ")));
}

function render(r) {
  document.getElementById("title").textContent = `Round ${r.round_id}`;
  fill("summary", el("div", {}, `${r.game}, opened by ${r.dealer} at ${when(r.opened_at)}; phase `,
    el("span", { class: "phase", id: "phase" }, r.phase),
    r.voided ? ` — voided: ${r.void_reason}` : "", r.override ? " — override" : ""),
    el("div", {}, `wagered ${money(r.wagered_cents)}, commission ${money(r.commission_cents)}, bonuses paid ${money(r.bonuses_paid_cents)}, house result ${money(r.house_result_cents)}`),
    el("div", { id: "banker" }, bankerText(r)));
  fill("dice", r.dice_rolled ? `${r.dice_rolled.faces.join(" + ")} (${r.dice_rolled.source}) → position ${r.start_position}` : "no dice");
  fill("piles", ...r.piles.map((p) => el("div", { class: "pile" }, el("h3", {}, `Pile ${p.pile}${p.position ? ` → position ${p.position}` : ""}`), cards(p.cards))));
  fill("unused", cards(r.unused));
  fill("house-way", r.house_way ? el("div", {}, `Rule ${r.house_way.rule_id}: ${r.house_way.rule_words} `,
    cards(r.house_way.setting.high), " | ", cards(r.house_way.setting.low)) : "",
    el("div", { id: "rules-version" }, rulesVersion(r.rules_version || {})));
  fill("positions", el("tr", {}, ["Position", "Cards", "High | low", "Outcome", "Wager", "Commission", "Bonus paid", "Net"].map((h) => el("th", {}, h))),
    ...r.positions.map((p) => el("tr", { class: "position-row" }, el("td", {}, p.position === 1 ? "1 (banker)" : p.house_hand ? `${p.position} (the house)` : String(p.position)),
      el("td", {}, cards(p.cards)), el("td", {}, p.high ? [cards(p.high), " | ", cards(p.low)] : ""),
      el("td", {}, p.outcome || (p.fouled ? "foul" : "")), el("td", { class: "money" }, money(p.wager_cents)),
      el("td", { class: "money" }, money(p.commission_cents)), el("td", { class: "money" }, money(p.bonus_paid_cents)),
      el("td", { class: "money" }, money(p.net_cents)))));
  fill("events", el("tr", {}, ["Seq", "Time", "Kind", "Actor", "Hash"].map((h) => el("th", {}, h))),
    ...r.events.map((e) => el("tr", { class: "event-row" }, el("td", {}, String(e.seq)), el("td", {}, when(e.created_at)),
      el("td", {}, e.kind), el("td", {}, e.actor), el("td", {}, el("code", { class: "hash", title: e.hash }, e.hash.slice(0, 16))))));
}

let steps = [];
let at = 0;
function show() {
  if (!steps.length) return;
  const step = steps[at];
  fill("step", `step ${at + 1} of ${steps.length}: #${step.seq} ${step.kind} by ${step.actor}`);
  fill("replay-phase", step.state.phase);
  fill("replay-state", JSON.stringify(step.state, null, 1));
}
const move = (to) => { at = Math.max(0, Math.min(steps.length - 1, to)); show(); };
document.getElementById("first").addEventListener("click", () => move(0));
document.getElementById("back").addEventListener("click", () => move(at - 1));
document.getElementById("next").addEventListener("click", () => move(at + 1));
document.getElementById("last").addEventListener("click", () => move(steps.length - 1));

// Read the round (again after the controller comes back: it may have moved on meanwhile),
// keeping the replay step shown.
async function load(first) {
  try {
    render(await api(`/api/rounds/${encodeURIComponent(id)}`));
    steps = (await api(`/api/rounds/${encodeURIComponent(id)}/replay`)).steps;
    move(first ? 0 : at);
    showError(null);
  } catch (error) {
    showError(error);
  }
}
onConnection((down) => { if (!down) load(false); });
await load(true);
