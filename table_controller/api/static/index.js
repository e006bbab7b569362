// The sign-in page: keep the token in this tab, ask the API who it belongs to, and go to the
// role's page (the admin's users page, everyone else's live table).
import { me, showError, signIn } from "./app.js";

document.getElementById("signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  signIn(document.getElementById("token").value);
  try {
    const who = await me();
    location.href = who.role === "admin" ? "admin.html" : "table.html";
  } catch (error) {
    showError(error);
  }
});
