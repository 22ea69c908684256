// Leaderboards index: every dataset (GET /api/datasets/) with a link to its leaderboard page.
import { counted } from "./plural.js";
import { api, el } from "./api.js";
import { showError } from "./leaderboard-format.js";

async function main() {
  const status = document.getElementById("status");
  try {
    const datasets = await api("/api/datasets/");
    const rows = datasets.map((d) => {
      const row = el("tr", null, { "data-dataset": d.slug });
      const link = el("th", null, { scope: "row" });
      link.append(el("a", d.slug, { href: `/leaderboards/${encodeURIComponent(d.slug)}/` }));
      row.append(link, el("td", d.name), el("td", d.document_count, { class: "num" }), el("td", d.source, { class: "muted" }));
      return row;
    });
    document.querySelector("#datasets tbody").replaceChildren(...rows);
    status.textContent = datasets.length
      ? `${counted(datasets.length, "dataset")}. Open one to compare its systems.`
      : "No datasets yet. An admin can import one with manage.py import_dataset.";
  } catch (error) {
    status.textContent = "";
    showError(document.getElementById("error"), `Could not load the datasets: ${error.message}`);
  }
}

main();
