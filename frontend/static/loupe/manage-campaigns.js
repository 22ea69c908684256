// Campaigns (admins): every campaign with its dataset, kind, state and progress, each linking to
// its page; from GET /api/campaigns/.
import { counted } from "./plural.js";
import { api, el } from "./api.js";
import { campaignBadge, KIND_LABELS, link } from "./manage-format.js";

function progressCell(campaign) {
  const cell = el("td");
  const box = el("div", null, { class: "mg-progress" });
  const total = campaign.task_count || 0;
  const done = campaign.done_count || 0;
  const bar = el("progress", null, { max: String(Math.max(total, 1)), value: String(done) });
  const text = el("span", total ? `${done} of ${counted(total, "task")} done` : "no tasks assigned yet");
  const id = `progress-${campaign.id}`;
  text.id = id;
  bar.setAttribute("aria-labelledby", id);
  box.append(bar, text);
  cell.append(box);
  return cell;
}

async function main() {
  const status = document.getElementById("status");
  try {
    const campaigns = await api("/api/campaigns/");
    const body = document.querySelector("#campaigns tbody");
    for (const c of campaigns) {
      const row = el("tr", null, { "data-campaign": c.id });
      const name = el("th", null, { scope: "row" });
      name.append(link(c.name, `/manage/campaigns/${c.id}/`), el("small", c.slug, { class: "muted slug" }));
      const dataset = el("td");
      dataset.append(link(c.dataset, `/manage/datasets/${encodeURIComponent(c.dataset)}/`));
      const state = el("td");
      state.append(campaignBadge(c.status, c.status_label));
      row.append(name, dataset, el("td", KIND_LABELS[c.kind] || c.kind), state, progressCell(c), el("td", c.annotators_per_document, { class: "num" }));
      body.append(row);
    }
    status.textContent = `${counted(campaigns.length, "campaign")}.`;
    document.getElementById("empty").hidden = campaigns.length > 0;
  } catch (error) {
    status.textContent = "";
    const node = document.getElementById("error");
    node.textContent = `Could not load the campaigns: ${error.message}`;
    node.hidden = false;
  }
}

main();
