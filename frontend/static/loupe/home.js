// Home page: shows the user's roles and the datasets, both from the JSON API; an admin also
// gets links to the admin pages, and each dataset's slug links to its page there.
import { api, el } from "./api.js";

async function main() {
  const roles = document.getElementById("roles");
  try {
    const me = await api("/api/me/");
    roles.textContent = me.roles.length
      ? `Signed in as ${me.username} (${me.roles.join(", ")}).`
      : `Signed in as ${me.username}, with no role yet: ask an admin to assign one.`;
    const admin = me.roles.includes("Admin");
    document.getElementById("admin-links").hidden = !admin;
    const datasets = await api("/api/datasets/");
    const body = document.querySelector("#datasets tbody");
    for (const d of datasets) {
      const row = el("tr");
      const slug = el("td", admin ? null : d.slug);
      if (admin) slug.append(el("a", d.slug, { href: `/manage/datasets/${encodeURIComponent(d.slug)}/` }));
      row.append(slug, el("td", d.name), el("td", d.document_count), el("td", d.source), el("td", d.license));
      body.append(row);
    }
    document.getElementById("empty").hidden = datasets.length > 0;
  } catch (error) {
    roles.textContent = `Could not load: ${error.message}`;
  }
}

main();
