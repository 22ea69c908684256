// The leaderboard table: one row per system with means x100 and 95% CIs, metric headers that
// ask the server to sort (and test) by that metric, and each row's paired test against the next.
import { counted } from "./plural.js";
import { el } from "./api.js";
import {
  keepSortFocus,
  metricLabel,
  metricTitle,
  pText,
  scoreCell,
  sortHeader,
  systemUrl,
  visibleMetrics,
} from "./leaderboard-format.js";
import { polytopeAvailable, polytopeCell, severityCell } from "./leaderboard-polytope.js";

// The system's name, with a swatch of its colour in the plots (the same in every plot).
function systemCell(dataset, row, colour) {
  const th = el("th", null, { scope: "row", class: "system" });
  const name = el("span", null, { class: "system-name" });
  if (colour) {
    const swatch = el("span", null, { class: "swatch", "aria-hidden": "true", "data-colour": colour });
    swatch.style.backgroundColor = colour;
    name.append(swatch);
  }
  name.append(el("a", row.name, { href: systemUrl(dataset, row.system) }));
  th.append(name, el("small", `${row.kind} · version ${row.version}`, { class: "muted" }));
  return th;
}

// "✱ significant" or "n.s." (text, never colour alone), with p and the shared documents.
function significanceCell(test) {
  const cell = el("td", null, { class: "sig" });
  if (!test) {
    cell.append(el("span", "—", { "aria-hidden": "true" }), el("span", "no test with the next row", { class: "sr-only" }));
    return cell;
  }
  if (test.p_value === null || test.p_value === undefined) {
    cell.append(el("small", test.reason || "not tested", { class: "muted" }));
    return cell;
  }
  cell.dataset.significant = String(Boolean(test.significant));
  cell.append(
    test.significant
      ? el("span", "✱ significant", { class: "sig-mark yes" })
      : el("span", "n.s.", { class: "sig-mark no", title: "not significant" }),
    el("small", `${pText(test.p_value)} · n = ${test.n}`),
  );
  return cell;
}

function caption(envelope) {
  const ci = envelope.ci;
  const over = envelope.common_only
    ? `over the ${counted(envelope.common_documents, "document")} every system covers`
    : "over each system's own documents";
  return (
    `Means ×100 with ${Math.round(ci.level * 100)}% confidence intervals ` +
    `(${ci.method}, ${ci.resamples} resamples), ${over}.`
  );
}

// The legend under the table: which test, its alpha and the metric it compares.
export function legendText(envelope) {
  const s = envelope.significance;
  const alternative = s.alternative ? `, ${s.alternative}` : "";
  return (
    `vs next: ${s.test}${alternative} test on ${metricLabel(s.metric)} (${s.resamples} resamples) between a ` +
    `system and the one in the next row, over the documents both cover; ✱ significant means ` +
    `p < α = ${s.alpha}, n.s. not significant. Click a metric's header to sort and test by it.`
  );
}

export function renderTable(table, envelope, { showPrecisionRecall, onSort }) {
  const sorted = envelope.sort;
  const metrics = visibleMetrics(envelope.metrics, showPrecisionRecall, sorted);
  const polytope = polytopeAvailable(envelope);
  keepSortFocus(table, () => {
    table.querySelector("caption").textContent = caption(envelope);
    const head = el("tr");
    head.append(
      el("th", "#", { scope: "col", class: "rank" }),
      el("th", "System", { scope: "col" }),
      el("th", "Docs", { scope: "col", class: "num", title: "documents the system has outputs for in scope; a mean over fewer says n" }),
      ...metrics.map((m) =>
        sortHeader(m, metricLabel(m), {
          title: `${metricTitle(m)}: sort by it`,
          direction: m === sorted ? "descending" : null,
          onSort,
          className: "num",
        }),
      ),
    );
    if (polytope) {
      head.append(
        sortHeader("polytope", metricLabel("polytope"), {
          title: `${metricTitle("polytope")}: sort by it`,
          direction: sorted === "polytope" ? "descending" : null,
          onSort,
          className: "num",
        }),
        el("th", "Errors", { scope: "col", class: "num", title: "PolyTope errors by severity: critical (C), major (M), minor (m)" }),
      );
    }
    head.append(
      el("th", `vs next (${metricLabel(envelope.significance.metric)})`, { scope: "col", class: "sig" }),
    );
    table.tHead.replaceChildren(head);
    const rows = envelope.systems.map((row, index) => {
      const tr = el("tr", null, { "data-system": row.system });
      const colour = (envelope.colours || {})[row.system];
      tr.append(el("td", index + 1, { class: "rank" }), systemCell(envelope.dataset, row, colour));
      tr.append(el("td", row.n_documents, { class: "num", "data-metric": "n_documents" }));
      for (const metric of metrics) {
        const cell = row[metric];
        const td = scoreCell(metric, cell ? cell.mean : null, cell ? [cell.ci_low, cell.ci_high] : null);
        // A mean over fewer documents than the row's (FAR where a FAM has no supported facet).
        if (cell && cell.n !== row.n_documents) {
          td.append(el("small", `n = ${cell.n}`, { class: "n", title: `mean over ${cell.n} of the row's ${counted(row.n_documents, "document")}` }));
        }
        tr.append(td);
      }
      if (polytope) tr.append(polytopeCell(row), severityCell(row));
      tr.append(significanceCell(row.vs_next));
      return tr;
    });
    if (!rows.length) {
      const empty = el("td", "No system has outputs for these documents yet.", { colspan: metrics.length + (polytope ? 6 : 4) });
      rows.push(el("tr"));
      rows[0].append(empty);
    }
    table.tBodies[0].replaceChildren(...rows);
  });
}
