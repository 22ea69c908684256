// Set a password through an invitation or reset link: the secret is the last part of this page's
// URL (/invite/<secret>/); POST /api/invitations/accept/ sets the password, which Django's
// validators check, and uses the link up. The two fields must match before anything is sent.
import { api } from "./api.js";
import { FormErrors } from "./form-errors.js";

const $ = (id) => document.getElementById(id);
const form = $("invite-form");
const errors = new FormErrors(form, $("form-errors"));
const secret = decodeURIComponent(window.location.pathname.split("/").filter(Boolean).pop());

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  errors.clear();
  const password = $("password").value;
  if (password !== $("password2").value) {
    errors.show({ data: { message: "Validation error", extra: { fields: { password2: ["The two passwords differ."] } } } });
    return;
  }
  $("set-password").disabled = true;
  $("form-status").textContent = "Saving…";
  try {
    const data = await api("/api/invitations/accept/", { method: "POST", body: { secret, password } });
    form.hidden = true;
    $("done-text").textContent = `Your password is set. Log in as ${data.username}.`;
    $("login-link").textContent = `Log in as ${data.username}`;
    $("done").hidden = false;
    $("login-link").focus();
  } catch (error) {
    $("form-status").textContent = "";
    errors.show(error, "The password was not set.");
  } finally {
    $("set-password").disabled = false;
  }
});
