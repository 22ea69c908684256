// Manage users: the list with who works on what (GET /api/users/overview/), the form that adds a
// user by invitation link (POST /api/users/invite/) or with a password (POST /api/users/create/),
// and each row's actions: reset the password (a new one-time link), deactivate, reactivate and
// revoke the API token. A link is shown once, in the result card, with a copy button.
import { api, el, when } from "./api.js";
import { FormErrors, submitOnEnter } from "./form-errors.js";
import { CAMPAIGN_STATUS, link } from "./manage-format.js";

const $ = (id) => document.getElementById(id);
const form = $("add-form");
const errors = new FormErrors(form, $("form-errors"));
const STATES = {
  active: "Active",
  invited: "Invited",
  reset: "Reset pending",
  deactivated: "Deactivated",
};
const me = document.querySelector(".topbar .who")?.textContent.trim() || "";
let pending = null; // the confirmed action of the open dialog

const path = (username, action) => `/api/users/${encodeURIComponent(username)}/${action}/`;

function campaignsCell(user) {
  const cell = el("td");
  if (!user.campaigns.length) {
    cell.append(el("span", "—", { class: "muted" }));
    return cell;
  }
  const list = el("ul", null, { class: "plain" });
  for (const c of user.campaigns) {
    const item = el("li", null, { "data-campaign": c.slug });
    item.append(link(c.name, `/manage/campaigns/${c.id}/`));
    const open = c.todo + c.in_progress;
    const counts = `${c.submitted}/${c.total} done${open ? `, ${open} open` : ""}`;
    item.append(" ", el("small", `${counts} · ${CAMPAIGN_STATUS[c.status] || c.status}`, { class: "muted" }));
    if (c.working_now) item.append(" ", el("span", "working now", { class: "badge in_progress" }));
    list.append(item);
  }
  cell.append(list);
  return cell;
}

function tokenCell(user) {
  if (!user.token) return el("td", "—", { class: "muted" });
  const text = user.token.expired ? `expired ${when(user.token.expires_at)}` : `until ${when(user.token.expires_at)}`;
  return el("td", text);
}

function stateCell(user) {
  const cell = el("td");
  cell.append(el("span", STATES[user.state] || user.state, { class: `badge user-${user.state}` }));
  if (user.invitation) cell.append(el("small", ` link until ${when(user.invitation.expires_at)}`, { class: "muted" }));
  return cell;
}

function button(text, onClick, attrs = {}) {
  const node = el("button", text, { type: "button", class: "secondary", ...attrs });
  node.addEventListener("click", onClick);
  return node;
}

function actionsCell(user) {
  const cell = el("td", null, { class: "row-actions" });
  const box = el("div", null, { class: "actions" });
  const name = user.username;
  if (name !== me && user.is_active) {
    const label = user.state === "active" ? "Reset password" : "New link";
    box.append(
      button(label, () =>
        confirmThen(
          `${label} for ${name}?`,
          user.state === "active"
            ? `${name}'s password stops working now and they are logged out; a one-time link lets them set a new one.`
            : `A new one-time link for ${name}; the earlier link stops working.`,
          label,
          () => issueLink(name),
        ),
      { "aria-label": `${label} for ${name}` }),
    );
  }
  if (user.token) {
    box.append(
      button("Revoke token", () => act(name, "token/revoke", `${name}'s API token was revoked.`), {
        "aria-label": `Revoke ${name}'s API token`,
      }),
    );
  }
  if (name !== me && user.is_active) {
    box.append(
      button(
        "Deactivate",
        () =>
          confirmThen(
            `Deactivate ${name}?`,
            `${name} can no longer log in or use an API token, and their open links stop working. Their tasks and work are kept; reassign the tasks on the campaign's page.`,
            "Deactivate",
            () => act(name, "deactivate", `${name} was deactivated.`),
          ),
        { "aria-label": `Deactivate ${name}` },
      ),
    );
  }
  if (!user.is_active) {
    box.append(button("Reactivate", () => act(name, "reactivate", `${name} was reactivated.`), { "aria-label": `Reactivate ${name}` }));
  }
  cell.append(box);
  return cell;
}

function row(user) {
  const tr = el("tr", null, { "data-user": user.username, "data-state": user.state });
  const who = el("th", null, { scope: "row" });
  who.append(user.username);
  if (user.email) who.append(el("small", user.email, { class: "muted slug" }));
  tr.append(
    who,
    el("td", user.roles.join(", ") || "no role"),
    stateCell(user),
    el("td", user.last_login ? when(user.last_login) : "never"),
    campaignsCell(user),
    tokenCell(user),
    actionsCell(user),
  );
  return tr;
}

async function loadUsers() {
  const state = $("filter-state").value;
  const users = await api(`/api/users/overview/${state ? `?state=${state}` : ""}`);
  $("users").querySelector("tbody").replaceChildren(...users.map(row));
  $("status").textContent = `${users.length} user${users.length === 1 ? "" : "s"}.`;
}

async function reload() {
  try {
    await loadUsers();
    $("error").hidden = true;
  } catch (error) {
    $("error").textContent = `The users could not be loaded: ${error.message}`;
    $("error").hidden = false;
  }
}

function showResult(state, title, lines, linkData = null) {
  $("result-title").textContent = title;
  $("result-body").replaceChildren(...lines.map((line) => el("p", line)));
  $("result").dataset.state = state;
  $("link-field").hidden = !linkData;
  $("link").value = linkData ? linkData.link : "";
  $("result").hidden = false;
  if (linkData) {
    $("link").focus();
    $("link").select();
  } else {
    $("result").focus();
  }
}

function showLink(data, verb) {
  showResult("done", `${verb} ${data.username}`, [`The link works once, until ${when(data.expires_at)}.`], data);
}

function showError(error, what) {
  showResult("refused", `${what} was refused`, [error.message]);
}

async function act(username, action, done) {
  try {
    await api(path(username, action), { method: "POST" });
    showResult("done", done, []);
  } catch (error) {
    showError(error, "The action");
  }
  await reload();
}

async function issueLink(username) {
  try {
    showLink(await api(path(username, "password-reset"), { method: "POST" }), "New link for");
  } catch (error) {
    showError(error, "The reset");
  }
  await reload();
}

function confirmThen(heading, text, okLabel, action) {
  $("confirm-heading").textContent = heading;
  $("confirm-text").textContent = text;
  $("confirm-ok").textContent = okLabel;
  pending = action;
  $("confirm").showModal();
  $("confirm-cancel").focus();
}

function mode() {
  return form.querySelector("input[name=mode]:checked").value;
}

function showMode() {
  const withPassword = mode() === "password";
  $("password-field").hidden = !withPassword;
  $("add").textContent = withPassword ? "Add user" : "Invite";
}

async function add(event) {
  event.preventDefault();
  errors.clear();
  $("result").hidden = true;
  const body = { username: $("username").value.trim(), role: $("role").value, email: $("email").value.trim() };
  const invite = mode() === "invite";
  if (!invite) body.password = $("password").value;
  const submit = $("add");
  submit.disabled = true;
  form.setAttribute("aria-busy", "true");
  $("form-status").textContent = invite ? "Inviting…" : "Adding…";
  try {
    if (invite) {
      showLink(await api("/api/users/invite/", { method: "POST", body }), "Invited");
    } else {
      const user = await api("/api/users/create/", { method: "POST", body });
      showResult("done", `Added ${user.username}`, [`${user.username} can log in with the password you set.`]);
    }
    form.reset();
    showMode();
    $("form-status").textContent = "";
    await reload();
  } catch (error) {
    $("form-status").textContent = "";
    errors.show(error, "The user was not added.");
  } finally {
    submit.disabled = false;
    form.removeAttribute("aria-busy");
  }
}

form.addEventListener("submit", add);
submitOnEnter(form);
for (const radio of form.querySelectorAll("input[name=mode]")) radio.addEventListener("change", showMode);
$("filter-state").addEventListener("change", reload);
$("copy-link").addEventListener("click", async () => {
  $("link").select();
  try {
    await navigator.clipboard.writeText($("link").value);
    $("link-hint").textContent = "Copied. It works once, until the date above.";
  } catch {
    $("link-hint").textContent = "Copy it with Ctrl+C (the link is selected).";
  }
});
$("confirm-cancel").addEventListener("click", () => $("confirm").close());
$("confirm-ok").addEventListener("click", () => {
  const action = pending;
  pending = null;
  $("confirm").close();
  if (action) action();
});
showMode();
reload();
