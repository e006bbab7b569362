// The live table: the round now with its cards drawn, the house way, alerts and devices,
// following the live stream; and the command forms the signed-in role may use (commands.js).
import { api, can, cards, clock, command, controllerDown, el, follow, lastHeard, me, money, nav, onConnection, parseCents,
  phaseWords, readSetting, requireToken, showError, when } from "./app.js";
import { commands } from "./commands.js";

requireToken();
const who = await me();
if (who.role === "admin") location.replace("admin.html");  // the admin has no table: the users page
document.getElementById("nav").replaceWith(nav("table.html", who));
const updateCommands = commands(who, refresh);
const runOn = document.getElementById("record-run-on");  // the pit's run-on of a broken record

function fill(id, ...children) {
  const node = document.getElementById(id);
  node.replaceChildren(...children);
}

// Who banks the round (docs/settlement.md, 8): the house, or a seat with its bank, the most the
// bank could pay, the house's own hand and the co-banking share. ``banker`` is the banker's position.
function bankerText(round, banker) {
  if (!round) return "";
  if (!round.bank) return `The house (the dealer)${round.bank_offer ? `; the bank was offered to seat ${round.bank_offer}` : ""}`;
  const bank = round.bank;
  const share = bank.co_banked
    ? `; co-banked: the house ${bank.house_share_bp / 100}%, the player ${100 - bank.house_share_bp / 100}%` : "";
  const house = bank.house_wager ? `; the house's hand at position ${bank.house_position} wagers ${money(bank.house_wager)}` : "";
  return `Seat ${bank.seat} (position ${banker}): bank ${money(bank.amount)}, exposure ${money(bank.exposure)}${house}${share}`;
}

function render(state) {
  document.getElementById("title").textContent = `Table ${state.table_id} (${state.game}, ${state.house_way})`;
  fill("table-open", state.table_open ? "table open" : "TABLE CLOSED");
  const round = state.round;
  fill("phase", phaseWords(round));
  document.getElementById("phase").dataset.phase = round ? round.phase : "";
  fill("round-id", round ? round.round_id : "");
  const bankerPosition = state.banker_position;
  fill("banker", bankerText(round, bankerPosition));
  const rows = [el("tr", {}, ["Position", "Wager", "Hand", "Setting (high | low)", "Outcome", "Net"].map((h) => el("th", {}, h)))];
  if (round) {
    const hands = Object.fromEntries(round.hands.map((h) => [h.position, h.cards]));
    const settings = Object.fromEntries(round.player_settings.map((s) => [s.position, s]));
    const results = round.settlement ? Object.fromEntries(round.settlement.positions.map((p) => [p.position, p])) : {};
    const banker = round.dealer_setting;
    const bankerLabel = round.bank ? `${bankerPosition} (banker: seat ${round.bank.seat})` : `${bankerPosition} (banker)`;
    // the banker's cards are face down while the players set (a role without see-face-down)
    const faceDown = new Set(round.face_down || []);
    const FACE_DOWN = () => el("span", { class: "face-down" }, "face down until the players have set");
    rows.push(el("tr", { "data-position": String(bankerPosition) }, el("td", {}, bankerLabel), el("td", {}, ""),
      el("td", {}, faceDown.has(bankerPosition) ? FACE_DOWN() : cards(hands[bankerPosition])), el("td", {}, banker ? readSetting(banker) : ""),
      el("td", {}, round.override ? `override by ${round.override.actor}` : ""), el("td", {}, "")));
    for (const wager of round.wagers) {
      const setting = settings[wager.position];
      const result = results[wager.position];
      rows.push(el("tr", { "data-position": String(wager.position), class: setting && setting.fouled ? "fouled" : "" },
        el("td", {}, String(wager.position)), el("td", { class: "money" }, money(wager.main)),
        el("td", {}, cards(hands[wager.position])),
        el("td", {}, setting ? settingCell(setting) : ""),
        el("td", {}, result ? result.outcome : ""), el("td", { class: "money" }, result ? money(result.net) : "")));
    }
  }
  const houseHand = round && round.bank && round.bank.house_wager ? round.bank.house_position : null;
  if (houseHand !== null) {
    const bank = round.settlement && round.settlement.bank;
    const hand = bank && bank.house_hand;
    rows.push(el("tr", { "data-position": String(houseHand), class: "house-hand" },
      el("td", {}, `${houseHand} (the house)`), el("td", { class: "money" }, money(round.bank.house_wager)),
      el("td", {}, cards((round.hands.find((h) => h.position === houseHand) || {}).cards)),
      el("td", {}, hand && hand.setting ? readSetting(hand.setting) : ""),
      el("td", {}, hand ? hand.outcome : ""), el("td", { class: "money" }, hand ? money(hand.net) : "")));
  }
  fill("positions", ...rows);
  fill("dice", round && round.dice ? `${round.dice.faces.join(" + ")} (${round.dice.source}) → first pile to position ${round.start_position}` : "");
  const hidden = new Set((round && round.face_down) || []);
  fill("piles", ...(round ? round.piles : []).map((pile) => el("div", { class: "pile", "data-pile": String(pile.pile) },
    el("h3", {}, `Pile ${pile.pile}${pile.position ? ` → position ${pile.position}` : ""}`),
    hidden.has(pile.position) ? el("span", { class: "face-down" }, "face down") : cards(pile.cards))));
  fill("unused", cards(round ? round.unused : []));
  const way = round && round.house_way;
  fill("house-way", way ? el("div", {}, el("div", {}, "Rule ", el("code", { id: "rule-id" }, way.rule_id), `: ${way.rule_wording}`),
    el("div", { id: "house-way-setting" }, readSetting(way.setting))) : "");
  renderHolds(state);
  renderCode(state.code);
  fill("alerts", ...state.open_alerts.map((a) => el("li", { "data-seq": String(a.seq) }, `${a.alert}: ${a.detail}`)));
  renderDevices(state.devices);
  renderLimits(state.limits);
  updateCommands(state);
}

// The dealer on the box and today's hands per hour, theirs and the table's (docs/dealers.md):
// only GET /api/table carries them (a command's answer leaves the line as it was).
function renderDealer(dealer) {
  if (!dealer) return;
  const pace = (value) => (value === null ? "no time on the box yet" : `${value} hands an hour`);
  fill("dealer-now", dealer.dealer === null ? "Nobody is signed in: a round records who opens it."
    : `${dealer.dealer} since ${when(dealer.since)}: ${pace(dealer.hands_per_hour)} today; the table ${pace(dealer.table_hands_per_hour)}.`);
}

// The limits in force and the approved ones (docs/dealers.md, "Table limits"); the open round's
// when a change holds only from the next round.
function renderLimits(limits) {
  if (!limits) return;
  const words = (l) => `main wager ${money(l.min_main_cents)} to ${money(l.max_main_cents)}, each bonus up to ` +
    `${money(l.max_bonus_cents)}${l.max_fortune_cents === null ? "" : `, the Fortune up to ${money(l.max_fortune_cents)}`}`;
  fill("limits-now", `${words(limits)} (approved: ${words(limits.approved)})`,
    limits.round ? `; this round keeps ${words(limits.round)}` : "");
  const fortune = document.getElementById("fortune-limit");
  if (fortune) fortune.hidden = limits.max_fortune_cents === null;
  // the rules list says the limits in force in its own words (its bonus clause only where the
  // table has bonus wagers: the rules list draws it so)
  const listed = document.getElementById("rules-limits");
  if (listed && listed.firstChild) {
    listed.firstChild.textContent = `main wager ${money(limits.min_main_cents)} to ${money(limits.max_main_cents)} per position`;
    const bonus = listed.childNodes[1];
    if (bonus && bonus.textContent) bonus.textContent = `; each bonus wager up to ${money(limits.max_bonus_cents)}`;
  }
}

const signIn = document.getElementById("dealer-sign-in");
const changeLimits = document.getElementById("change-limits");
if (!can(who, "play")) signIn.remove();
else {
  document.getElementById("dealer-name").hidden = !can(who, "open-close");  // the pit names a dealer
  command(signIn, async (data) => {
    const dealer = String(data.get("dealer") || "").trim();
    await api("/api/dealers/sign-in", { method: "POST", body: dealer ? { dealer } : {} });
    await refresh();
  });
  document.getElementById("dealer-sign-out").addEventListener("click", async () => {
    try {
      await api("/api/dealers/sign-out", { method: "POST" });
      showError(null);
      await refresh();
    } catch (error) {
      showError(error);
    }
  });
}
if (!can(who, "limits")) changeLimits.remove();
else command(changeLimits, async (data) => {
  const body = {
    min_main_cents: parseCents(data.get("min_main")),
    max_main_cents: parseCents(data.get("max_main")),
    max_bonus_cents: parseCents(data.get("max_bonus")),
  };
  if (String(data.get("max_fortune") || "").trim()) body.max_fortune_cents = parseCents(data.get("max_fortune"));
  render(await api("/api/table/limits", { method: "POST", body }));
});

// Who clears a reason the table is not dealing (table/stops.py's ClearedBy).
const WHO_CLEARS = { automatic: "nobody needs to act", pit: "a pit user", "at-the-machine": "the dealer or a technician at the machine" };

// The code the controller runs (docs/audit-chain.md, "The code that runs"): its hash, and whether
// it is the signed release.
function renderCode(code) {
  if (!code) {
    fill("code");
    return;
  }
  const release = code.matches_release === null ? "no signed release configured"
    : code.matches_release ? "the signed release" : `NOT the signed release (${code.release_sha256 || "unreadable"})`;
  fill("code", `Code ${code.sha256}: ${release}.`);
}

// What stops play, in words (docs/round-lifecycle.md, "When things go wrong"): the store away,
// a round held for the pit, the table held after misdeals with its deck check.
function renderHolds(state) {
  const outage = state.store_outage;
  const hold = state.hold;
  show("store-outage", outage, () => `The database is not answering since ${when(outage.since)} (${outage.error}); ` +
    `play is stopped and ${outage.alerts_kept} alert(s) are kept until it is back.`);
  show("round-held", state.round_held, () => `This round is held: ${state.round_held}. Only a pit void moves it on.`);
  show("table-hold", hold, () => null);
  if (hold) {
    fill("table-hold-reason", `The table is held since ${when(hold.since)}: ${hold.reason}.`);
    fill("deck-check", hold.deck_check_pending ? "running…" : hold.deck_check ? hold.deck_check.words : "none yet");
    const pit = can(who, "open-close");
    document.getElementById("ask-deck-check").hidden = !pit;
    document.getElementById("clear-hold").hidden = !pit;
    document.getElementById("clear-hold").disabled = !hold.deck_check || !hold.deck_check.complete || hold.deck_check_pending;
  }
  const stops = state.not_dealing || [];
  document.getElementById("not-dealing-box").hidden = stops.length === 0;
  fill("not-dealing", ...stops.map((stop) => el("li", { "data-kind": stop.kind },
    `${stop.detail}. `, el("span", { class: "hint" }, `Clears: ${stop.clears} (${WHO_CLEARS[stop.cleared_by]}).`))));
  runOn.hidden = !stops.some((stop) => stop.kind === "record-broken");
  document.getElementById("holds").hidden = !(outage || state.round_held || hold || stops.length);
}

// A pit user runs on a broken record for investigation (docs/audit-chain.md): the findings are
// chained. The form is removed for a role that may not (as commands.js removes the others).
if (!can(who, runOn.dataset.permission)) runOn.remove();
else runOn.addEventListener("submit", async (submitted) => {
  submitted.preventDefault();
  try {
    await api("/api/audit/override", { method: "POST", body: { reason: new FormData(submitted.target).get("reason") } });
    showError(null);
    await refresh();
  } catch (error) {
    showError(error);
  }
});

function show(id, when_, text) {
  const node = document.getElementById(id);
  node.hidden = !when_;
  const words = when_ ? text() : null;
  if (words !== null) node.textContent = words || "";
}

for (const [id, path] of [["ask-deck-check", "/api/table/deck-check"], ["clear-hold", "/api/table/hold/clear"]]) {
  document.getElementById(id).addEventListener("click", async () => {
    try {
      render(await api(path, { method: "POST" }));
      showError(null);
    } catch (error) {
      showError(error);
    }
  });
}

// Today's actual result against the theoretical win and where it sits in its 95% band
// (docs/math.md): for the roles that read the table's math.
async function renderToday() {
  if (!can(who, "audit")) return;
  try {
    const t = await api("/api/analysis/today");
    document.getElementById("today").hidden = false;
    const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
    const count = `${plural(t.rounds_opened, "round")} today, ${t.rounds_settled} settled` +
      (t.rounds_without_theoretical ? `; ${t.rounds_without_theoretical} settled without a theoretical win yet.` : ".");
    fill("today-band", count, " ", t.theoretical_cents === null ? "No round with a theoretical win yet."
      : `Actual ${money(t.actual_cents)} against theoretical ${money(t.theoretical_cents)}; 95% band ` +
        `${money(t.band_low_cents)} .. ${money(t.band_high_cents)} (over the ${plural(t.rounds, "round")} with one): ` +
        (t.outside_band ? "OUTSIDE the band" : `inside, at ${t.position_percent}% of it`));
  } catch (error) {
    showError(error);
  }
}

// A player's setting as made; a foul (the server's judgement: 001, 004) is marked on it.
function settingCell(setting) {
  const made = readSetting(setting);
  return setting.fouled ? [...made, " ", el("span", { class: "foul-mark", title: "the low hand outranks the high hand, or not 5 and 2 cards" }, "FOUL")] : made;
}

// Device health is only as fresh as the controller's last answer: while it does not answer,
// "ok, last frame 0.4 s ago" would be a claim nobody is making any more.
function renderDevices(devices) {
  const down = controllerDown();
  fill("devices", ...devices.map((d) => el("li", { "data-device": d.device }, `${d.device}: `,
    down ? [el("span", { class: "unknown" }, "unknown"), ` — no answer from the controller since ${clock(lastHeard())}`]
      : [el("span", { class: d.status === "ok" ? "ok" : "fault" }, d.status),
        d.faults.map((f) => ` ${f.kind} ${f.detail}`),
        el("span", { class: "link" }, ` · ${linkText(d)}`)])));
}

// The device's link as the pit reads it: up since when, last frame how long ago, who it is.
function linkText(d) {
  if (d.link === "never") return `link never up${d.link_reason ? ` (${d.link_reason})` : ""}`;
  const since = new Date(d.link_since).toLocaleTimeString();
  const parts = [`link ${d.link} since ${since}${d.link_reason ? ` (${d.link_reason})` : ""}`];
  if (d.silent_for_ms !== null) parts.push(`last frame ${(d.silent_for_ms / 1000).toFixed(1)} s ago`);
  if (d.identity) parts.push(`${d.identity.model} ${d.identity.serial_number} firmware ${d.identity.firmware}`);
  return parts.join(" · ");
}

// The rules new rounds open under, beside the forms (GET /api/table/rules): limits, the house
// way and its file's hash, the foul rule, the commission and the bonus pay tables. Read when the
// page opens and when the controller answers again (a way file edited meanwhile is a new version).
const words = (slug) => slug.replace(/-/g, " ");
async function renderRules() {
  try {
    const r = await api("/api/table/rules");
    const item = (id, label, ...value) => [el("dt", {}, label), el("dd", { id }, ...value)];
    const limits = r.limits;
    fill("rules-list",
      ...item("rules-game", "Game", words(r.game)),
      ...item("rules-limits", "Limits", `main wager ${money(limits.min_main_cents)} to ${money(limits.max_main_cents)} per position`,
        r.paytables.length ? `; each bonus wager up to ${money(limits.max_bonus_cents)}` : ""),
      ...item("rules-house-way", "House way", `${r.house_way.title} (${r.house_way.name}) `,
        el("code", { class: "hash", title: r.house_way.sha256 }, r.house_way.sha256.slice(0, 12))),
      ...item("rules-foul", "Foul", r.foul_rule_words, r.foul_forfeits_bonuses ? "; its bonus wagers lose too" : ""),
      ...item("rules-commission", "Commission", r.commission.words),
      ...(r.overqualifier ? item("rules-premium", "Overqualifier", `on: a premium pays ${r.premium_multiple} times the main wager (003)`) : []),
      // house options that depart from the rules documents, named as such (game/departures.py)
      ...(r.departures || []).flatMap((d) => item(`rules-departure-${d.setting.replaceAll(".", "-")}`, "Departure from the rules",
        el("span", { class: "departure", "data-setting": d.setting },
          `${d.words}: ${d.setting} = ${d.value}, where ${d.cite} says "${d.rule}"`))));
    fill("rules-paytables", ...r.paytables.map((table) => el("table", { class: "paytable", "data-bonus": table.bonus },
      el("caption", {}, `${words(table.bonus)} (${table.source})`),
      ...table.lines.map((line) => el("tr", {}, el("td", {}, words(line.line)), el("td", { class: "money" }, line.words))))));
  } catch (error) {
    showError(error);
  }
}

// Who is rated at each seat (docs/accounting.md, "Ratings"): the card number, since when, the
// rounds and the average wager so far; an idle rating's player still seated is shown as idle.
async function renderRated() {
  try {
    const seated = await api("/api/ratings/seated");
    fill("rated", el("tr", {}, ["Seat", "Card", "Since", "Rounds", "Average wager", ""].map((h) => el("th", {}, h))),
      ...seated.map((r) => el("tr", { "data-seat": String(r.seat) }, el("td", {}, String(r.seat)), el("td", {}, r.player),
        el("td", {}, when(r.start)), el("td", {}, String(r.rounds)),
        el("td", { class: "money" }, r.average_wager_cents === null ? "" : money(r.average_wager_cents)),
        el("td", {}, r.end ? "idle" : "rated"))));
  } catch (error) {
    fill("rated", el("tr", {}, el("td", {}, `ratings not shown: ${error.message || error}`)));
  }
}

// The pool's meters (docs/progressive.md, "The meter page"; PRG-13, PRG-49): per level the
// current jackpot and its limit, the cumulative paid meter and what the system and an attendant
// paid apart; each hit awaiting payment as PENDING. Kept current by the pool's own stream, which
// every role that reads the table may follow.
function renderMeters(view) {
  document.getElementById("progressive").hidden = false;
  fill("progressive-name", view.name ? `(${view.name})` : "");
  document.getElementById("progressive-closed").hidden = view.open;
  fill("progressive-levels",
    el("tr", {}, ["Level", "Jackpot", "Limit", "Paid in all", "Paid by the system", "Paid by an attendant", "Pending"].map((h) => el("th", {}, h))),
    ...view.levels.map((level) => el("tr", { "data-level": level.level }, el("td", {}, level.level),
      el("td", { class: "money" }, money(level.meter)),
      el("td", { class: "money" }, level.limit === null ? "none" : money(level.limit)),
      el("td", { class: "money" }, money(level.paid)), el("td", { class: "money" }, money(level.paid_by_system)),
      el("td", { class: "money" }, money(level.paid_by_attendant)), el("td", { class: "money" }, money(level.locked)))));
  fill("progressive-pending", ...view.pending.map((hit) => el("li", { "data-hit": String(hit.hit_id) },
    `PENDING: hit ${hit.hit_id}, position ${hit.position} at ${hit.table_id}, ${money(hit.amount)} of the ${hit.level}`,
    hit.held ? " (held for the pit to verify the cards)" : "")));
}

let meters = null;  // the pool's stream, once the table says which pool it keeps
function followMeters(state) {
  if (meters || !state.progressive) return;
  const pool = state.progressive.pool_id;
  document.getElementById("meter-link").href = `meter.html?pool=${encodeURIComponent(pool)}`;
  meters = follow(renderMeters, { path: `/api/progressive/${encodeURIComponent(pool)}/stream` });
}

let pending = null;
let shown = null;  // the table state on the page
async function refresh() {
  try {
    shown = await api("/api/table");
    render(shown);
    renderDealer(shown.dealer);
    followMeters(shown);
    showError(null);
    await renderToday();
    await renderRated();
  } catch (error) {
    showError(error);
  }
}
function soon() {
  if (pending) return;
  pending = setTimeout(() => { pending = null; refresh(); }, 50);
}
onConnection((down) => {
  if (down) {
    if (shown) renderDevices(shown.devices);
  } else {
    refresh();
    renderRules();
  }
});
renderRules();
if (can(who, "audit")) {
  // The table is read once the stream is connected, and again whenever it reconnects: a stream
  // that had not yet received an event resumes from now, so what happened while it was away
  // would be lost; reading first and connecting after would leave the same gap.
  follow((event) => {
    fill("last-event", `#${event.seq} ${event.kind} by ${event.actor}`);
    soon();
  }, { onOpen: refresh });
} else {
  await refresh();
  setInterval(refresh, 2000);  // the dealer's role has no stream: look every two seconds
}
