// The table's accounting for a gaming day (docs/accounting.md, "Storage, API and pages"): win and
// hold with the theoretical and its band, the reconciliation, the counts, slips, drop and named
// lines. The pit also enters them here; the second signatures are given from the table's own
// terminal by the dealer (sign) or by a second pit user (void confirm). Money is typed in dollars
// and sent as integer cents (parseCents: digits only, never a float).
import { api, authHeaders, can, command, el, me, money, nav, parseCents, requireToken, showError, when } from "./app.js";
requireToken();
const who = await me();
document.getElementById("nav").replaceWith(nav("accounting.html", who));
const pick = document.getElementById("pick");
const dayInput = document.getElementById("gaming-day");
const shiftInput = document.getElementById("shift");

function params() {
  const found = {};
  if (dayInput.value) found.gaming_day = dayInput.value;
  if (shiftInput.value.trim()) found.shift = shiftInput.value.trim();
  return found;
}

function rows(id, head, items) {
  const table = document.getElementById(id);
  table.replaceChildren(el("tr", {}, head.map((h) => el("th", {}, h))), ...items.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c)))));
}

// "2500:40, 500:100" (cents:count) to {"2500": 40, "500": 100}; the API refuses what is wrong.
function parseChips(text) {
  const chips = {};
  for (const part of String(text).split(/[\s,]+/).filter(Boolean)) {
    const [denomination, count] = part.split(":");
    chips[denomination] = Number(count);
  }
  return chips;
}

function chipsText(chips) {
  return Object.entries(chips).map(([d, n]) => `${money(Number(d))} x ${n}`).join(", ");
}

async function load() {
  try {
    const day = await api("/api/accounting/day", { params: params() });
    dayInput.value = day.gaming_day;
    const query = new URLSearchParams(params()).toString();
    document.getElementById("csv").onclick = async (event) => {
      event.preventDefault();
      const answer = await fetch(`/api/accounting/day.csv?${query}`, { headers: authHeaders() });
      const link = el("a", { href: URL.createObjectURL(await answer.blob()), download: `accounting-${day.gaming_day}.csv` });
      link.click();
    };
    const a = day.account, t = day.theory, r = day.reconciliation;
    rows("figures", ["", ""], a ? [
      ["drop", money(a.drop_cents)], ["opener", money(a.opener_cents)], ["closer", money(a.closer_cents)],
      ["fills", money(a.fills_cents)], ["credits", money(a.credits_cents)], ["win", money(a.win_cents)],
      ["hold", a.hold_percent === null ? "no drop" : `${a.hold_percent}%`],
      ["theoretical win", t ? money(t.theoretical_win_cents) : "none"],
      ["theoretical hold", t && t.theoretical_hold_percent !== null ? `${t.theoretical_hold_percent}%` : "none"],
      ["95% band", t ? `${money(t.low_cents)} .. ${money(t.high_cents)} (actual ${money(t.actual_cents)}${t.outside ? ", outside" : ""})` : "none"],
    ] : [["missing", `signed ${day.missing.join(" and ")}`]]);
    rows("reconciliation", ["", ""], r ? [
      ["counted win", money(r.counted_win_cents)], ["computed result", money(r.computed_result_cents)],
      ["named lines", money(r.explained_cents)], ["variance", money(r.variance_cents) + (r.flagged ? " (flagged)" : "")],
      ["rounds", String(r.rounds.length)],
      ...day.reconciled.map((k) => [`reconciled ${when(k.reconciled_at)} by ${k.reconciled_by}`, money(k.variance_cents) + (k.alert_seq ? ` alert ${k.alert_seq}` : "")]),
    ] : []);
    rows("counts", ["id", "kind", "chips", "value", "supervisor", "dealer", "signed"], day.counts.map((c) => [
      String(c.id), c.kind, chipsText(c.chips), money(c.value_cents), c.supervisor, c.dealer,
      c.signed_at ? when(c.signed_at) : can(who, "sign") ? signButton(c) : "waiting"]));
    rows("slips", ["number", "kind", "chips", "value", "state", "requested by", "runner", "signed by"], day.slips.map((s) => [
      el("a", { href: `slip.html?number=${s.number}` }, String(s.number)), s.kind, chipsText(s.chips), money(s.value_cents),
      s.void_asked_by && s.state !== "voided" ? `${s.state}, void asked by ${s.void_asked_by}` : s.state,
      s.requested_by, s.runner || "", s.table_signer || ""]));
    rows("drop", ["kind", "amount", "reference", "source", "entered by"], day.drop.map((d) => [
      d.kind, money(d.amount_cents), d.reference || "", d.source + (d.file_line ? ` line ${d.file_line}` : ""), d.entered_by]));
    rows("lines", ["name", "amount", "entered by"], day.lines.map((l) => [l.name, money(l.amount_cents), l.entered_by]));
    showError(null);
  } catch (error) {
    showError(error);
  }
}

function signButton(count) {
  return el("button", { type: "button", onclick: async () => {
    try { await api(`/api/accounting/counts/${count.id}/sign`, { method: "POST" }); await load(); } catch (error) { showError(error); }
  } }, "Sign");
}

function form(title, fields, action) {
  const node = el("form", {}, el("fieldset", {}, el("legend", {}, title), fields, el("button", { type: "submit" }, title)),
    el("span", { class: "form-error" }));
  command(node, async (data) => { await action(data); await load(); });
  return node;
}

function cents(text) {
  const found = parseCents(text);
  if (found === null) throw new Error(`${text} is not an amount in dollars and cents`);
  return found;
}

if (can(who, "account")) {
  const body = (extra) => ({ ...params(), ...extra });
  document.getElementById("commands").append(
    el("h2", {}, "Enter"),
    form("Count", [el("select", { name: "kind" }, el("option", {}, "opener"), el("option", {}, "closer")),
      el("input", { name: "chips", placeholder: "cents:count, e.g. 2500:40 500:100", size: "32" }),
      el("input", { name: "dealer", placeholder: "dealer who signs" })],
      (d) => api("/api/accounting/counts", { method: "POST", body: body({ kind: d.get("kind"), chips: parseChips(d.get("chips")), dealer: d.get("dealer") }) })),
    form("Slip", [el("select", { name: "kind" }, el("option", {}, "fill"), el("option", {}, "credit")),
      el("input", { name: "chips", placeholder: "cents:count", size: "32" })],
      (d) => api("/api/accounting/slips", { method: "POST", body: { kind: d.get("kind"), chips: parseChips(d.get("chips")) } })),
    form("Drop", [el("select", { name: "kind" }, el("option", {}, "cash"), el("option", {}, "marker")),
      el("input", { name: "amount", placeholder: "dollars" }), el("input", { name: "reference", placeholder: "marker number" })],
      (d) => api("/api/accounting/drop", { method: "POST", body: body({ kind: d.get("kind"), amount_cents: cents(d.get("amount")), reference: d.get("reference") || null }) })),
    form("Line", [el("input", { name: "name", placeholder: "tips, untracked side wager..." }),
      el("select", { name: "sign" }, el("option", { value: "1" }, "+ the house gained"), el("option", { value: "-1" }, "- the house lost")),
      el("input", { name: "amount", placeholder: "dollars" })],
      (d) => api("/api/accounting/lines", { method: "POST", body: body({ name: d.get("name"), amount_cents: Number(d.get("sign")) * cents(d.get("amount")) }) })),
    form("Reconcile", [], () => api("/api/accounting/day/reconcile", { method: "POST", body: params() })));
}

command(pick, load);
await load();
