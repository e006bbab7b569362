// The sign-in page: post the token once (/api/session: the browser keeps a session cookie, the
// page keeps no token) and go to the role's page (the admin's users page, everyone else's live
// table). A refused token is said here (and this page is not reloaded, which would wipe it).
import { ApiError, showError, signInOnce } from "./app.js";

const REFUSED = "Sign-in refused: this token is not known, or its person is disabled. Ask the admin for a new key.";

document.getElementById("signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(null);
  try {
    const who = await signInOnce(document.getElementById("token").value);
    location.href = who.role === "admin" ? "admin.html" : "table.html";
  } catch (error) {
    showError(error instanceof ApiError && error.status === 401 ? REFUSED : error);
  }
});
