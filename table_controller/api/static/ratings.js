// The table's ratings for a gaming day (docs/accounting.md, "Ratings"): each rated player's stay
// at a seat with its figures from the settled rounds (wins from the house's side), one player's
// history, the push's outbox; the pit seats, ends, enters buy-ins and adjusts here. Money is typed
// in dollars and sent as integer cents (parseCents: digits only, never a float).
import { api, can, command, el, me, money, nav, parseCents, requireToken, showError, token, when } from "./app.js";
requireToken();
const who = await me();
document.getElementById("nav").replaceWith(nav("ratings.html", who));
const pick = document.getElementById("pick");
const dayInput = document.getElementById("gaming-day");

function params() {
  return dayInput.value ? { gaming_day: dayInput.value } : {};
}

function rows(id, head, items) {
  const table = document.getElementById(id);
  table.replaceChildren(el("tr", {}, head.map((h) => el("th", {}, h))), ...items.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, c)))));
}

const HEAD = ["rating", "card", "seat", "start", "end", "rounds", "average wager", "actual win", "theoretical win",
  "buy-ins", "banks (house win)", "adjusted"];

function ratingCells(r) {
  const s = r.shown;
  const buyIns = s.buy_in_cash + s.buy_in_chips + s.buy_in_markers;
  return [r.rating_id, r.player, String(r.seat), when(r.start), r.end ? `${when(r.end)} (${r.end_reason})` : r.seated ? "open" : "",
    String(r.rounds), s.average_wager === null ? "" : money(s.average_wager), money(s.actual_win), money(s.theoretical_win),
    money(buyIns), r.banks ? `${r.banks} (${money(r.bank_actual_win_cents)})` : "",
    r.adjustments.map((a) => `${a.field} ${a.old_value} -> ${a.new_value} by ${a.actor}: ${a.reason}`).join("; ")];
}

async function load() {
  try {
    const day = await api("/api/ratings", { params: params() });
    dayInput.value = day.gaming_day;
    const query = new URLSearchParams(params()).toString();
    document.getElementById("csv").onclick = async (event) => {
      event.preventDefault();
      const answer = await fetch(`/api/ratings/day.csv?${query}`, { headers: { Authorization: `Bearer ${token()}` } });
      const link = el("a", { href: URL.createObjectURL(await answer.blob()), download: `ratings-${day.gaming_day}.csv` });
      link.click();
    };
    rows("ratings", HEAD, day.ratings.map(ratingCells));
    const outbox = await api("/api/ratings/outbox");
    rows("outbox", ["rating", "key", "attempts", "delivered", "next attempt", "error"], outbox.map((o) => [
      o.rating_id, o.idempotency_key, String(o.attempts), o.delivered_at ? when(o.delivered_at) : "waiting",
      o.delivered_at ? "" : when(o.next_attempt_at), o.last_error || ""]));
    showError(null);
  } catch (error) {
    showError(error);
  }
}

command(document.getElementById("history"), async (data) => {
  const found = await api(`/api/ratings/players/${encodeURIComponent(data.get("player"))}`);
  rows("player-ratings", HEAD, found.map(ratingCells));
});

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

const seatField = () => el("input", { name: "seat", placeholder: "seat 2..7", size: "6" });
const commands = document.getElementById("commands");
if (can(who, "rate")) {
  commands.append(el("h2", {}, "Seats"),
    form("Seat a rated player", [seatField(), el("input", { name: "player", placeholder: "card number" })],
      (d) => api(`/api/ratings/seats/${Number(d.get("seat"))}`, { method: "POST", body: { player: d.get("player") } })),
    form("Leave", [seatField()], (d) => api(`/api/ratings/seats/${Number(d.get("seat"))}/leave`, { method: "POST" })),
    form("Move", [el("input", { name: "rating_id", placeholder: "rating", size: "40" }), seatField()],
      (d) => api("/api/ratings/move", { method: "POST", body: { rating_id: d.get("rating_id"), seat: Number(d.get("seat")) } })));
}
if (can(who, "account")) {
  commands.append(el("h2", {}, "The pit"),
    form("Buy-in", [seatField(), el("select", { name: "kind" }, el("option", {}, "cash"), el("option", {}, "chips"), el("option", {}, "marker")),
      el("input", { name: "amount", placeholder: "dollars" })],
      (d) => api("/api/ratings/buy-ins", { method: "POST", body: { seat: Number(d.get("seat")), kind: d.get("kind"), amount_cents: cents(d.get("amount")) } })),
    form("Adjust", [el("input", { name: "rating_id", placeholder: "rating", size: "40" }),
      el("select", { name: "field" }, ["actual_win", "theoretical_win", "average_wager", "buy_in_cash", "buy_in_chips", "buy_in_markers"]
        .map((f) => el("option", {}, f))),
      el("input", { name: "value", placeholder: "dollars" }), el("input", { name: "reason", placeholder: "reason", size: "32" })],
      (d) => {
        const text = String(d.get("value")).trim();
        const negative = text.startsWith("-");
        const amount = cents(negative ? text.slice(1) : text);
        return api("/api/ratings/adjust", { method: "POST", body: { rating_id: d.get("rating_id"), field: d.get("field"), new_value: negative ? -amount : amount, reason: d.get("reason") } });
      }));
}

command(pick, load);
await load();
