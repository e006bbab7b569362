// A fill or credit slip, printable (docs/accounting.md, "Fills and credits"): its number, table,
// chips by denomination, total, who asked, the delivery's two signatures and a void's two people,
// as the store keeps them; blank signature lines for the paper copy the cage keeps.
import { api, el, me, money, nav, requireToken, showError, when } from "./app.js";
requireToken();
const who = await me();
document.getElementById("nav").replaceWith(nav("slip.html", who));
const number = new URLSearchParams(location.search).get("number");

try {
  const s = await api(`/api/accounting/slips/${encodeURIComponent(number)}`);
  const line = (label, value) => el("tr", {}, el("td", {}, label), el("td", {}, value));
  document.getElementById("slip").replaceChildren(
    el("h2", {}, `${s.kind === "fill" ? "FILL" : "CREDIT"} SLIP No. ${s.number}`),
    el("table", {},
      line("table", s.table_id),
      line("state", s.state),
      line("requested", `${when(s.requested_at)} by ${s.requested_by}`),
      ...Object.entries(s.chips).map(([d, n]) => line(money(Number(d)), `x ${n} = ${money(Number(d) * n)}`)),
      line("total", money(s.value_cents)),
      line("delivered", s.delivered_at ? `${when(s.delivered_at)}` : ""),
      line("runner", s.runner || ""),
      line("table's signer", s.table_signer || ""),
      ...(s.void_asked_by ? [line("void", `asked by ${s.void_asked_by}: ${s.void_reason}`),
        line("void approved", s.void_approved_by ? `${s.void_approved_by} at ${when(s.voided_at)}` : "waiting")] : [])),
    el("div", { class: "signature" }, "runner"),
    el("div", { class: "signature" }, "table (pit or dealer)"));
  document.title = `Slip ${s.number}`;
} catch (error) {
  showError(error);
}
