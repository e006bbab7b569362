// The command forms of the live table page (docs/api.md, Commands). Each form names the one
// permission it needs (data-permission): the forms the signed-in role lacks are removed, so a
// surveillance terminal has none and a dealer's has no void, override or open/close. The
// others are shown when the table and the round's phase allow them. The API checks everything
// again; a refusal's reason is shown in the form (command() in app.js). A void or override of a
// large round waits for a second pit user (docs/api.md, "Two people"): the requests waiting are
// listed with Confirm (for anyone but the person who asked) and Cancel.
import { ApiError, api, cards, command, el, money, parseCards, parseCents } from "./app.js";

const FINAL = new Set(["closed", "void"]);
const WAGER_KINDS = { "standard": ["main"], "double-joker": ["main", "big_hand", "joker_bonus"] };
const LABELS = { main: "", big_hand: "Big Hand", joker_bonus: "Joker Bonus" };

const byId = (id) => document.getElementById(id);
const fill = (id, ...children) => byId(id).replaceChildren(...children);
const spaced = (codes) => codes.join(" ");

// The wagers typed in the open-round form, in integer cents by position (``positions``: the
// players', as the table state gives them); an amount that is not dollars and cents is refused
// here, before anything is sent.
export function wagersFrom(data, game, positions) {
  const wagers = {};
  for (const position of positions) {
    const wager = {};
    for (const kind of WAGER_KINDS[game] || ["main"]) {
      const text = String(data.get(`${kind}-${position}`) ?? "").trim();
      if (text === "") continue;
      const amount = parseCents(text);
      if (amount === null) {
        throw new Error(`position ${position}: "${text}" is not an amount in dollars and cents (like 25 or 25.50)`);
      }
      wager[kind] = amount;
    }
    if (Object.keys(wager).length) wagers[position] = wager;
  }
  if (!Object.keys(wagers).length) throw new Error("enter a wager for at least one position");
  return wagers;
}

// A player's bank from the open-round form (docs/settlement.md, 8), or nothing: the house banks.
export function bankFrom(data) {
  const seat = String(data.get("banker") ?? "").trim();
  if (seat === "") return {};
  const text = String(data.get("bank") ?? "").trim();
  const amount = parseCents(text);
  if (amount === null) throw new Error(`the bank: "${text}" is not an amount in dollars and cents (like 400 or 400.50)`);
  return { bank: { seat: Number(seat), amount, co_bank: data.get("co_bank") === "yes" } };
}

function wagerInputs(game, positions) {
  return positions.map((position) => el("div", { class: "wager" }, el("span", {}, `Position ${position}`),
    (WAGER_KINDS[game] || ["main"]).map((kind) => el("label", {}, LABELS[kind],
      el("input", { name: `${kind}-${position}`, inputmode: "decimal", autocomplete: "off", size: "7", placeholder: "$" })))));
}

// The newest house-way deviation of the round: from its open alert (any terminal's), else from
// this page's own 409. The house way's words come with the round's house way.
function deviationOf(round, alerts, refused) {
  const raised = alerts.filter((a) => a.alert === "house-way-deviation" && a.round_id === round.round_id && a.data.required)
    .sort((a, b) => a.seq - b.seq).pop();
  if (raised) {
    const words = round.house_way && round.house_way.rule_id === raised.data.rule ? round.house_way.rule_wording : "";
    return { proposed: raised.data.proposed, required: raised.data.required, rule_id: raised.data.rule, rule_wording: words };
  }
  return refused && refused.round_id === round.round_id ? refused : null;
}

export function commands(who, refresh) {
  for (const form of document.querySelectorAll("#commands [data-permission]")) {
    if (!who.permissions.includes(form.dataset.permission)) form.remove();
  }
  let state = null;
  let refused = null;  // this page's last house-way-deviation answer (409)
  let prefilled = null;  // the deviation the override form was filled from
  let game = null;

  const on = (id, action) => {
    const form = byId(id);
    if (form) {
      command(form, async (data) => {
        await action(data);
        form.reset();
        await refresh();
      });
    }
  };
  const setting = (data) => ({ high: parseCards(data.get("high")), low: parseCards(data.get("low")) });

  on("open-round", (data) => api("/api/round", { method: "POST", body: { wagers: wagersFrom(data, state.game, state.player_positions), ...bankFrom(data) } }));
  on("player-setting", (data) => api(`/api/round/players/${encodeURIComponent(data.get("position"))}/setting`,
    { method: "POST", body: setting(data) }));
  on("dealer-setting", async (data) => {
    const proposed = setting(data);
    try {
      await api("/api/round/dealer/setting", { method: "POST", body: proposed });
    } catch (error) {
      if (error instanceof ApiError && error.body && error.body.error === "house-way-deviation") {
        const { required, rule_id, rule_wording } = error.body;
        refused = { round_id: state.round.round_id, proposed, required, rule_id, rule_wording };
        showDeviation(refused);
      }
      throw error;
    }
  });
  // A void or override answered 202: a request that waits for a second pit user.
  const maybeWaiting = (answer) => {
    if (answer && answer.state === "waiting" && byId("approval-note")) {
      fill("approval-note", `${answer.action} of ${answer.round_id} asked by ${answer.requested_by} (request `
        + `${answer.seq}): the round's wagers are ${money(answer.wagered_cents)}, so a second pit user confirms it`);
    }
  };
  on("override", async (data) => maybeWaiting(await api("/api/round/dealer/override",
    { method: "POST", body: { ...setting(data), reason: data.get("reason") } })));
  on("void", async (data) => maybeWaiting(await api("/api/round/void", { method: "POST", body: { reason: data.get("reason") } })));

  let approvalsLoading = false;
  let approvalsShown = null;  // the list drawn last: redrawn only when it changes (a click is never lost)
  function approvalAction(label, className, run) {
    const form = el("form", { class: `approval-action ${className}` },
      el("fieldset", {}, el("button", { type: "submit" }, label)), el("span", { class: "form-error" }));
    command(form, async () => { await run(); await refresh(); });
    return form;
  }
  async function loadApprovals() {
    const box = byId("approvals");
    if (!box || approvalsLoading) return;
    approvalsLoading = true;
    try {
      const waiting = (await api("/api/approvals", { params: { open: "true" } })).filter((a) => a.state === "waiting");
      const drawn = JSON.stringify(waiting);
      if (drawn !== approvalsShown) fill("approval-list", ...waiting.map((a) => el("li", { class: "approval-row", "data-seq": String(a.seq) },
        `${a.action} of ${a.round_id} (${money(a.wagered_cents)} wagered) asked by ${a.requested_by}: ${a.reason}`,
        a.setting ? ` (setting ${spaced(a.setting.high)} | ${spaced(a.setting.low)})` : "",
        a.requested_by === who.name ? "" : approvalAction("Confirm", "confirm",
          () => api(`/api/approvals/${a.seq}/confirm`, { method: "POST" })),
        approvalAction("Cancel", "cancel",
          () => api(`/api/approvals/${a.seq}/cancel`, { method: "POST", body: { note: `cancelled by ${who.name}` } })))));
      approvalsShown = drawn;
      if (!waiting.length) fill("approval-note");
      box.hidden = !waiting.length && !byId("approval-note").textContent;
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
    } finally {
      approvalsLoading = false;
    }
  }
  on("open-close", () => api(state.table_open ? "/api/table/close" : "/api/table/open", { method: "POST" }));

  function showDeviation(deviation) {
    byId("deviation").hidden = !deviation;
    if (!deviation) return;
    fill("deviation-proposed", cards(deviation.proposed.high), " | ", cards(deviation.proposed.low));
    fill("deviation-high", cards(deviation.required.high));
    fill("deviation-low", cards(deviation.required.low));
    fill("deviation-rule", deviation.rule_id);
    fill("deviation-words", deviation.rule_wording ? `: ${deviation.rule_wording}` : "");
    const override = byId("override");
    const key = JSON.stringify(deviation.proposed);
    if (override && prefilled !== key) {  // offer the proposed setting; the pit may change it
      prefilled = key;
      override.elements.high.value = spaced(deviation.proposed.high);
      override.elements.low.value = spaced(deviation.proposed.low);
    }
  }

  function show(id, visible) {
    const form = byId(id);
    if (!form || form.hidden === !visible) return;
    form.hidden = !visible;
    const error = form.querySelector(".form-error");
    if (!visible && error) error.textContent = "";
  }

  function positionsToSet(round) {
    const select = byId("player-setting") && byId("player-setting").elements.position;
    if (!select) return;
    const set = new Set(round.player_settings.map((s) => s.position));
    const open = round.wagers.map((w) => w.position).filter((p) => !set.has(p));
    const chosen = select.value;
    select.replaceChildren(...open.map((p) => el("option", { value: String(p) }, String(p))));
    if (open.includes(Number(chosen))) select.value = chosen;
  }

  // Called with every new table state.
  return function update(next) {
    state = next;
    if (game !== next.game && byId("wager-inputs")) {
      game = next.game;
      fill("wager-inputs", ...wagerInputs(game, next.player_positions));
    }
    const round = next.round;
    const phase = round && !FINAL.has(round.phase) ? round.phase : null;
    const deviation = phase === "dealer-setting" ? deviationOf(round, next.open_alerts, refused) : null;
    if (phase === "players-setting") positionsToSet(round);
    show("open-round", next.table_open && phase === null);
    const bankInputs = byId("bank-inputs");
    if (bankInputs) {  // a table that allows no player bank has no bank to declare
      const banking = next.banking;
      bankInputs.hidden = !(banking && banking.allowed);
      const offered = byId("bank-last-offer");
      if (offered && banking) {
        offered.textContent = `${banking.policy}; last offered: ${banking.last_offer ? `seat ${banking.last_offer}` : "the house"}`
          + `; co-banking share of the house ${banking.co_bank_share_bp / 100}%`;
      }
    }
    show("player-setting", phase === "players-setting");
    show("dealer-setting", phase === "dealer-setting");
    const title = byId("dealer-setting-title");
    if (title && round) {
      const bank = round.bank;
      title.textContent = !bank ? "Dealer's setting (banker)"
        : bank.co_banked ? `Banker's setting (seat ${bank.seat}, co-banked: by the house way)`
          : `Banker's setting (seat ${bank.seat}, set freely)`;
    }
    show("override", deviation !== null);
    show("void", phase !== null);
    show("open-close", true);
    showDeviation(deviation);
    loadApprovals();
    const button = byId("open-close-button");
    if (button) button.textContent = next.table_open ? "Close table" : "Open table";
  };
}
