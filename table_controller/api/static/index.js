// The sign-in page: keep the token in this tab, ask the API who it belongs to, and go to the
// role's page (the admin's users page, everyone else's live table). A refused token is said
// here; it is not kept (and this page is not reloaded, which would wipe the message).
import { ApiError, api, forgetToken, showError, signIn } from "./app.js";

const REFUSED = "Sign-in refused: this token is not known, or its person is disabled. Ask the admin for a new key.";

document.getElementById("signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(null);
  signIn(document.getElementById("token").value);
  try {
    const who = await api("/api/me", { signOutOn401: false });
    location.href = who.role === "admin" ? "admin.html" : "table.html";
  } catch (error) {
    forgetToken();
    showError(error instanceof ApiError && error.status === 401 ? REFUSED : error);
  }
});
