// One round for surveillance, drawn as cards and steps (GET /api/rounds/{id} and its replay):
// the round's header, the dice and the seven piles with the position each went to, the banker's
// hand with the house way's setting and the rule that set it, each position's hand as set with
// its outcome and money, then every step in order: when, who, what happened in words, and the
// phase it left the round in. It prints (style.css, @media print). The raw record is behind a
// disclosure at the bottom, never in the page itself.
//
// With ?table=ID (the floor serving this page) the round is read from the floor's
// /api/floor/tables/ID/rounds/{id}, the same answers (app.js roundsPath).
import { api, cards, el, floorTable, money, nav, me, onConnection, pageLink, phaseWords, readHand, readSetting, requireToken,
  roundsPath, showError, when } from "./app.js";
requireToken();
document.getElementById("nav").replaceWith(nav("", await me()));
const id = new URLSearchParams(location.search).get("id");
const fill = (name, ...children) => document.getElementById(name).replaceChildren(...children);
document.getElementById("back").href = pageLink("history.html");
document.getElementById("print").addEventListener("click", () => window.print());

const words = (slug) => (slug ? String(slug).replace(/-/g, " ") : "");
const signed = (cents) => (cents > 0 ? `+${money(cents)}` : money(cents));
// Why a round was void, without the "misdeal: " the store's reason starts with (the page says it).
const whyVoid = (r) => String(r.void_reason || "").replace(/^misdeal: /, "");
const rule = (ruleId) => el("code", { class: "rule-id" }, ruleId);
// A setting in a step: each hand as a dealer reads it and named when the answer says so (a named
// setting: api/hand_view.py), else as recorded.
const setting = (high, low, named) => el("span", { class: "setting" },
  "high ", named ? readHand(high, named.high_sorted, named.high_name) : cards(high),
  " low ", named ? readHand(low, named.low_sorted, named.low_name) : cards(low));
const DIE_FACES = ["\u2680", "\u2681", "\u2682", "\u2683", "\u2684", "\u2685"];
const dice = (faces) => el("span", { class: "dice" }, faces.map((face) => el("span", { class: "die", title: String(face) }, DIE_FACES[face - 1])));

// The table of a round: its id is the table id, a dash and the round's number (api/patterns.py).
function tableOf(r) {
  return floorTable || r.round_id.slice(0, r.round_id.length - `-${r.number}`.length);
}

// Who banked (docs/settlement.md, 8): the house, or a seat with its bank and its result.
function bankerText(r) {
  if (r.banker_seat === null || r.banker_seat === undefined) return "banked by the house";
  const share = r.house_share_bp ? `, co-banked (the house's share ${r.house_share_bp / 100}%)` : "";
  const settled = r.banker_result_cents === null ? ""
    : `; the bank won ${money(r.bank_gross_cents)} gross, paid ${money(r.bank_commission_cents)} commission, the banker's result ${money(r.banker_result_cents)}`;
  return `banked by seat ${r.banker_seat} (position ${r.banker_position}): bank ${money(r.bank_cents)}, the house's hand ${money(r.house_wager_cents)}${share}${settled}`;
}

// The rules' contents the round was decided under, by SHA-256 (docs/audit-chain.md).
function rulesVersion(pins) {
  const names = Object.keys(pins).sort();
  if (!names.length) return "rules version: by name only (opened before rules were pinned)";
  return el("span", {}, "rules version: ", ...names.map((name) =>
    el("span", {}, `${name} `, el("code", { class: "hash", title: pins[name] }, pins[name].slice(0, 12)), " ")));
}

function header(r) {
  document.getElementById("title").textContent = `Round ${r.round_id}`;
  document.title = `Round ${r.round_id}`;
  const fact = (label, ...value) => [el("dt", {}, label), el("dd", {}, ...value)];
  fill("facts",
    ...fact("Table", el("span", { id: "table-id" }, tableOf(r))),
    ...fact("Round", `${r.round_id} (number ${r.number}), ${words(r.game)}`),
    ...fact("Dealer", `${r.dealer}, who opened it`),
    ...fact("Opened", when(r.opened_at)),
    ...fact("Closed", r.closed_at ? when(r.closed_at) : "not yet"),
    ...fact("Phase", el("span", { class: "phase", id: "phase", "data-phase": r.phase }, phaseWords(r)),
      r.voided ? ` — ${r.misdeal ? "a misdeal" : "voided"}: ${whyVoid(r)}` : "",
      r.override ? " — the pit let a dealer's deviation stand" : ""),
    ...fact("Money", `wagered ${money(r.wagered_cents)}`, r.bonus_wagered_cents ? ` (bonus wagers ${money(r.bonus_wagered_cents)})` : "",
      `, commission ${money(r.commission_cents + (r.bank_commission_cents || 0))}`,
      r.bank_commission_cents ? ` (the bank's ${money(r.bank_commission_cents)})` : "",
      `, bonuses paid ${money(r.bonuses_paid_cents)}, the house's result ${signed(r.house_result_cents)}`));
  fill("banker", bankerText(r));
  fill("rules-version", rulesVersion(r.rules_version || {}));
  fill("record-findings", ...recordFindings(r.record_findings || []));
}

// Where the stored round disagrees with its chain (a forged card, hand or amount): said above
// everything else, so that a forged row is never read as if it stood (docs/api.md).
function recordFindings(lines) {
  if (!lines.length) return [];
  return [el("p", { class: "error" }, "The stored round disagrees with its chained record (run audit verify):"),
    el("ul", {}, lines.map((line) => el("li", {}, line)))];
}

function deal(r) {
  const rolled = r.dice_rolled;
  fill("dice", rolled ? el("span", {}, dice(rolled.faces),
    ` ${rolled.faces.join(" + ")} = ${rolled.faces.reduce((a, b) => a + b, 0)}, by the ${rolled.source === "rng" ? "random number generator" : "shaker"}`,
    r.start_position ? `: the first pile goes to position ${r.start_position}, counting ${r.dice_direction}` : "") : "No dice were rolled.");
  const played = new Set(r.positions.map((p) => p.position));
  fill("piles", ...r.piles.map((p) => el("div", { class: "pile", "data-pile": String(p.pile), "data-position": p.position ? String(p.position) : "" },
    el("h3", {}, `Pile ${p.pile}`, p.position ? ` → position ${p.position}${p.position === r.banker_position ? " (the banker)" : played.has(p.position) ? "" : " (no wager: set aside)"}` : ""),
    cards(p.cards))));
  fill("unused", cards(r.unused));
}

function houseWay(r) {
  const banker = r.positions.find((p) => p.position === r.banker_position);
  const way = r.house_way;
  if (!way || !banker) {
    fill("house-way", r.voided ? "The round was void before the banker's hand was set." : "The banker's hand is not set yet.");
    return;
  }
  const free = r.banker_seat && !r.house_share_bp;  // a player-banker not co-banking sets freely (004)
  const made = banker.high ? [el("div", { id: "banker-setting" }, "Set as ", el("span", { class: "setting" }, readSetting(banker)),
    r.override ? " — a deviation the pit let stand (override)" : free ? " — set freely by the player-banker" : " — as the house way requires")] : [];
  fill("house-way",
    el("div", {}, "The banker's seven cards: ", cards(banker.cards)),
    el("div", { id: "required" }, `The house way (${way.way}) requires `, el("span", { class: "setting" }, readSetting(way.setting))),
    el("div", {}, "by rule ", el("code", { id: "rule-id", class: "rule-id" }, way.rule_id), el("span", { id: "rule-words" }, `: ${way.rule_wording}`)),
    ...made);
}

function positionLabel(p, r) {
  if (p.position === r.banker_position) return r.banker_seat ? `${p.position} (the banker: seat ${r.banker_seat})` : `${p.position} (the banker)`;
  return p.house_hand ? `${p.position} (the house's hand)` : String(p.position);
}

// A position's hand as a dealer reads it, named ("pair of kings"); the category word only where
// the answer names no hand.
function hand(codes, sorted, name, category) {
  return codes ? readHand(codes, sorted, name || words(category)) : "";
}

function positions(r) {
  const heads = ["Position", "Seven cards", "High hand (five)", "Low hand (two)", "Outcome", "Wager", "Commission", "Bonus paid", "Net"];
  fill("positions", el("tr", {}, heads.map((h) => el("th", {}, h))),
    ...r.positions.map((p) => el("tr", { class: `position-row${p.fouled ? " fouled" : ""}`, "data-position": String(p.position) },
      el("td", {}, positionLabel(p, r)), el("td", {}, cards(p.cards)),
      el("td", {}, hand(p.high, p.high_sorted, p.high_name, p.high_category)),
      el("td", {}, hand(p.low, p.low_sorted, p.low_name, p.low_category)),
      el("td", { class: "outcome" }, p.position === r.banker_position ? "" : [p.outcome || "", p.fouled ? el("span", { class: "foul-mark" }, " FOUL") : ""]),
      el("td", { class: "money" }, p.position === r.banker_position ? "" : money(p.wager_cents)),
      el("td", { class: "money" }, money(p.commission_cents)), el("td", { class: "money" }, money(p.bonus_paid_cents)),
      el("td", { class: "money" }, p.position === r.banker_position ? "" : signed(p.net_cents)))));
}

// -- the steps, in words --------------------------------------------------------------------------

function wagersText(wagers) {
  return Object.entries(wagers || {}).sort(([a], [b]) => a - b).map(([position, w]) => `position ${position} ${money(w.main)}`
    + (w.big_hand ? ` + Big Hand ${money(w.big_hand)}` : "") + (w.joker_bonus ? ` + Joker Bonus ${money(w.joker_bonus)}` : "")).join(", ");
}

function settledText(state, r) {
  const results = state && state.settlement ? state.settlement.positions : [];
  return [`settled: `, results.map((p) => `position ${p.position} ${p.outcome} ${signed(p.net)}`).join(", "),
    `; the house's result ${signed(r.house_result_cents)}`];
}

// What an event of the round did, in words (the kinds of round/events.py and the notes the
// table chains beside them: refusals and alerts). ``state`` is the round after it (the replay).
function stepWords(e, state, r) {
  const p = e.payload || {};
  const way = r.house_way;
  const byRule = way ? [" (rule ", rule(way.rule_id), ")"] : [];
  switch (e.kind) {
    case "round.opened":
      return [`opened the round: ${wagersText(p.wagers)}`, p.bank ? `; seat ${p.bank.seat} banks ${money(p.bank.amount)}` : ""];
    case "dice.rolled": {
      const total = p.faces.reduce((a, b) => a + b, 0);
      return ["rolled the dice: ", dice(p.faces), ` = ${total}`, state && state.start_position ? `, the first pile to position ${state.start_position}` : ""];
    }
    case "piles.dealt": {
      if (p.interrupted) return [`the deal was interrupted (${p.interrupted}): a misdeal`];
      const required = way || (state && state.house_way);  // the detail's is read and named
      return [`dealt the seven piles and ${p.unused.length} unused cards`,
        state && state.phase === "void" ? `: a misdeal, ${whyVoid(r) || "the deck was not whole"}` : "",
        required ? ["; the house way requires the banker's hand as ", setting(required.setting.high, required.setting.low, required.setting),
          " (rule ", rule(required.rule_id), ")"] : ""];
    }
    case "player.set": {
      const made = r.positions.find((x) => x.position === p.position);
      return [`set position ${p.position}: `, setting(p.high, p.low, e.setting), made && made.fouled ? " — a foul" : ""];
    }
    case "dealer.set":
      return ["set the banker's hand: ", setting(p.high, p.low, e.setting),
        r.banker_seat && !r.house_share_bp ? " (set freely by the player-banker)" : [" as the house way requires", ...byRule]];
    case "round.refused": {
      const tried = p.event || {};
      if (tried.kind === "dealer.set" && way) {
        return ["deviation refused: the dealer set ", setting(tried.high, tried.low, e.setting), "; the house way requires ",
          setting(way.setting.high, way.setting.low, way.setting), ...byRule];
      }
      return [`${words(tried.kind || "a command")} refused: ${p.reason || ""}`];
    }
    case "dealer.override":
      return ["override: let the dealer's setting stand, ", setting(p.high, p.low, e.setting), ", instead of the house way's", ...byRule,
        `, because: “${p.reason}”`];
    case "round.voided":
      return [`voided the round: “${p.reason}”; the wagers are returned`];
    case "round.settled":
      return settledText(state, r);
    case "alert.raised":
      return [`alert, ${words(p.alert)}: ${p.detail || ""}`];
    default:
      return [words(e.kind.replace(/\./g, " "))];
  }
}

// A device's own lines (device.<device>.<what>: a shuffler's pile-dealt, one per pile) said
// once for a run of the same kind: "7 piles dealt", not seven lines (the record below keeps each).
const DEVICE_WORDS = { "pile-dealt": (n) => `${n} pile${n === 1 ? "" : "s"} dealt` };

function deviceWords(kind, count) {
  const what = kind.split(".").slice(2).join(".");
  const said = DEVICE_WORDS[what];
  return said ? said(count) : `${words(what.replace(/[.-]/g, " "))}${count > 1 ? ` (${count} times)` : ""}`;
}

// The round's events, a run of one device kind folded into its first: [event, count].
function folded(events) {
  const runs = [];
  for (const e of events) {
    const last = runs[runs.length - 1];
    if (e.kind.startsWith("device.") && last && last[0].kind === e.kind) last[1] += 1;
    else runs.push([e, 1]);
  }
  return runs;
}

function steps(r, replay) {
  const after = new Map(replay.map((step) => [step.seq, step.state]));
  let phase = null;
  fill("steps", ...folded(r.events).map(([e, count]) => {
    const state = after.get(e.seq);
    const moved = state && state.phase !== phase;
    if (state) phase = state.phase;
    return el("li", { class: "step", "data-seq": String(e.seq), "data-kind": e.kind, "data-count": String(count) },
      el("span", { class: "step-time" }, when(e.created_at)), " ",
      el("span", { class: "step-actor" }, e.actor), " ",
      el("span", { class: "step-words" }, e.kind.startsWith("device.") ? deviceWords(e.kind, count) : stepWords(e, state, r)),
      moved ? el("span", { class: "step-phase", "data-phase": state.phase }, ` → ${phaseWords(state)}`) : "");
  }));
}

function record(r, replay) {
  fill("events", el("tr", {}, ["Seq", "Time", "Kind", "Actor", "Hash"].map((h) => el("th", {}, h))),
    ...r.events.map((e) => el("tr", { class: "event-row" }, el("td", {}, String(e.seq)), el("td", {}, when(e.created_at)),
      el("td", {}, e.kind), el("td", {}, e.actor), el("td", {}, el("code", { class: "hash", title: e.hash }, e.hash.slice(0, 16))))));
  fill("raw", JSON.stringify({ round: r, replay }, null, 1));
}

// Read the round (again after the controller comes back: it may have moved on meanwhile). A
// replay the store refuses (its rules no longer trusted: 409) still shows the round and its
// steps, without the phase each left it in, and says why.
async function load() {
  let r;
  try {
    r = await api(roundsPath(`/${encodeURIComponent(id)}`));
  } catch (error) {
    showError(error);
    return;
  }
  let replay = [];
  let refused = null;
  try {
    replay = (await api(roundsPath(`/${encodeURIComponent(id)}/replay`))).steps;
  } catch (error) {
    refused = error;
  }
  header(r);
  deal(r);
  houseWay(r);
  positions(r);
  steps(r, replay);
  record(r, replay);
  showError(refused);
}
onConnection((down) => { if (!down) load(); });
await load();
