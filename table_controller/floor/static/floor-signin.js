// The floor's sign-in page: keep the token in this tab (app.js), ask the floor who it belongs
// to, and go to the floor's page. A refused token is said here; it is not kept.
import { ApiError, api, forgetToken, showError, signIn } from "./app.js";

const REFUSED = "Sign-in refused: this token is not known, or its person is disabled. Ask the admin for a new key.";

document.getElementById("signin").addEventListener("submit", async (event) => {
  event.preventDefault();
  showError(null);
  signIn(document.getElementById("token").value);
  try {
    await api("/api/me", { signOutOn401: false });
    location.href = "floor.html";
  } catch (error) {
    forgetToken();
    showError(error instanceof ApiError && error.status === 401 ? REFUSED : error);
  }
});
