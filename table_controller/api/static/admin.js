// The admin's page: the people who use the terminals; add one with a role, disable one, give
// one a new key (/api/users). A new token is shown once, here, and kept nowhere. A key an admin
// made for someone else waits for a second admin's confirmation (docs/api.md, "Two people").
import { api, command, el, me, nav, onConnection, requireToken, showError, when } from "./app.js";

requireToken();
document.getElementById("nav").replaceWith(nav("admin.html", await me()));
const box = document.getElementById("new-token");

function showToken(answer) {
  document.getElementById("new-token-name").textContent = `${answer.user.name} (${answer.user.role})`;
  document.getElementById("new-token-value").textContent = answer.token;
  box.hidden = false;
}
document.getElementById("new-token-done").addEventListener("click", () => {
  document.getElementById("new-token-value").textContent = "";
  box.hidden = true;
});

// One button as a small command form (disabled while its request is in flight).
function action(label, className, run) {
  const form = el("form", { class: `user-action ${className}` },
    el("fieldset", {}, el("button", { type: "submit" }, label)), el("span", { class: "form-error" }));
  command(form, run);
  return form;
}

function row(user) {
  const path = `/api/users/${encodeURIComponent(user.name)}`;
  return el("tr", { class: "user-row", "data-name": user.name },
    el("td", {}, user.name), el("td", {}, user.role), el("td", {}, when(user.created_at)),
    el("td", { class: "status" }, user.disabled ? "disabled" : "active"),
    el("td", { class: "key" }, user.confirmed ? (user.confirmed_by ? `confirmed by ${user.confirmed_by}` : "confirmed")
      : `keyed by ${user.keyed_by}: waits for a second admin`),
    el("td", {},
      user.confirmed ? "" : action("Confirm key", "confirm", async () => { await api(`${path}/confirm`, { method: "POST" }); await load(); }),
      user.disabled ? "" : action("Disable", "disable", async () => { await api(`${path}/disable`, { method: "POST" }); await load(); }),
      action("New key", "new-key", async () => { showToken(await api(`${path}/token`, { method: "POST" })); await load(); })));
}

async function load() {
  try {
    const users = await api("/api/users");
    document.getElementById("users").replaceChildren(
      el("tr", {}, ["Name", "Role", "Added", "Status", "Key", ""].map((h) => el("th", {}, h))), ...users.map(row));
    showError(null);
  } catch (error) {
    showError(error);
  }
}

const add = document.getElementById("add-user");
command(add, async (data) => {
  showToken(await api("/api/users", { method: "POST", body: { name: data.get("name").trim(), role: data.get("role") } }));
  add.reset();
  await load();
});
onConnection((down) => { if (!down) load(); });
await load();
