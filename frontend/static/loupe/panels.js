// The workspace's side panels as DOM builders: the revision history and the conflict table.
// Text goes in with textContent only.
import { el, when } from "./api.js";
import { CATEGORIES, describeChanges, facetSummary, normalize } from "./fam.js";

// One <li> per revision, newest first, with what changed (numbered from 1 like the page) and,
// for older ones, a button that restores them.
export function historyItems(revisions, { count, onRestore }) {
  if (!revisions.length) return [el("li", "No saved changes yet.", { class: "muted" })];
  return revisions.map((revision, i) => {
    const state = (r) => r && { facets: normalize(r.facets, count), category: r.category || "" };
    const lines = describeChanges(state(revisions[i + 1]), state(revision));
    const item = el("li", null, { class: "revision" });
    const head = el("div", null, { class: "rev-head" });
    head.append(
      el("strong", `Version ${revision.version}`),
      el("span", ` ${revision.author || "unknown"} · ${when(revision.created_at)}`, { class: "muted" }),
    );
    const changes = el("ul", null, { class: "rev-changes" });
    for (const line of lines.length ? lines : revision.changes || []) changes.append(el("li", line));
    item.append(head, changes);
    if (onRestore && i > 0) {
      const restore = el("button", "Use this version", {
        type: "button",
        class: "secondary small",
        "data-focus-key": `rev-${revision.version}`,
      });
      restore.addEventListener("click", () => onRestore(revision));
      item.append(restore);
    }
    return item;
  });
}

// The rows of the conflict dialog: per facet, yours and the server's, differences marked.
export function conflictRows(mine, theirs) {
  const rows = mine.facets.map((facet, i) => {
    const yours = facetSummary(facet);
    const server = facetSummary(theirs.facets[i]);
    const row = el("tr", null, { class: yours === server ? "" : "differs" });
    row.append(el("th", `${i + 1}`, { scope: "row" }), el("td", yours), el("td", server));
    return row;
  });
  const label = (c) => CATEGORIES[c] || "derived";
  const category = el("tr", null, { class: mine.category === theirs.category ? "" : "differs" });
  category.append(
    el("th", "Category", { scope: "row" }),
    el("td", label(mine.category)),
    el("td", label(theirs.category)),
  );
  return [...rows, category];
}
