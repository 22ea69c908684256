// The APES section of the leaderboard page: what the APES columns are and their correlation
// with FAR (a score from human FAMs), at system and instance level. PolyTope's correlations
// with APES are in the PolyTope section with the other metrics.
import { counted } from "./plural.js";
import { correlationRows } from "./leaderboard-polytope.js";

export function renderApes(envelope) {
  const section = document.getElementById("apes-correlations");
  const block = envelope.apes || {};
  section.hidden = !block.available;
  if (section.hidden) return;
  const items = block.correlations || [];
  const instance = items.find((c) => c.level === "instance");
  const far = instance
    ? `Against FAR: at system level one point per system with FAR (its mean FAR against its mean APES over the same documents), ` +
      `at instance level one point per output with both; here ${counted(instance.n_systems, "system")} and ${counted(instance.n, "output")}.`
    : "No output in this view has both APES and FAR (FAR needs human FAMs and an extractive system), so there is no correlation with FAR.";
  document.getElementById("apes-corr-about").textContent = `${block.definition} ${far}`;
  const table = document.getElementById("apes-corr-table");
  table.hidden = items.length === 0;
  table.querySelector("tbody").replaceChildren(...correlationRows(items, null));
}
