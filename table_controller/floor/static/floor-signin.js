// The floor's sign-in page: post the token once to /api/session (app.js signInOnce) so the
// browser keeps an HttpOnly session cookie and every report, PDF and table page opened from a
// link is let in by it; then go to the floor's page. A refused token is said here; it is not kept.
import { ApiError, showError, signInOnce } from "./app.js";

const REFUSED = "Sign-in refused: this token is not known, or its person is disabled. Ask the admin for a new key.";

document.getElementById("signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(null);
  try {
    await signInOnce(document.getElementById("token").value);
    location.href = "floor.html";
  } catch (error) {
    showError(error instanceof ApiError && error.status === 401 ? REFUSED : error);
  }
});
