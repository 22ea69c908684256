// A dataset's releases: every version with its status, size, checksum, manifest and the diff
// against the previous one, and its download link; admins start a new version (zip or tar.gz,
// with the annotators' anonymised FAMs or not) and the list follows the Celery job's progress.
// Data: /api/datasets/<slug>/releases/ and /api/datasets/<slug>/ (public); textContent only.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import { showError } from "./leaderboard-format.js";
import { pollMs } from "./timing.js";

const $ = (id) => document.getElementById(id);
const root = $("releases-page");
const slug = root.dataset.dataset;
const admin = root.dataset.admin === "1";
const base = `/api/datasets/${encodeURIComponent(slug)}/releases/`;
const POLL_MS = 1500; // unless LOUPE_UI_POLL_MS says otherwise (timing.js)
const BUSY = new Set(["queued", "running"]);
const STATUS = { queued: "Queued", running: "Exporting", succeeded: "Ready", failed: "Failed" };
let timer = null;
let announced = "";
let exported = null; // the version this page asked for, until it is done

export function size(bytes) {
  if (bytes === null || bytes === undefined) return "—";
  const units = ["B", "KB", "MB", "GB"];
  let value = Number(bytes);
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit ? value.toFixed(1) : value} ${units[unit]}`;
}

function facts(pairs) {
  const list = el("dl", null, { class: "facts" });
  for (const [term, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    const dd = el("dd");
    if (value instanceof Node) dd.append(value);
    else dd.textContent = String(value);
    list.append(el("dt", term), dd);
  }
  return list;
}

// The diff summary: one line per kind with what was added, changed and removed.
function diffBlock(diff) {
  const box = el("details", null, { class: "rel-diff", open: "" });
  box.append(el("summary", diff.previous_version ? `Changes since version ${diff.previous_version}` : "Changes"));
  const lines = el("ul", null, { class: "diff-lines" });
  for (const [kind, counts] of Object.entries(diff)) {
    if (!counts || typeof counts !== "object") continue;
    const parts = ["added", "changed", "removed", "unchanged"].filter((k) => k in counts).map((k) => `${counts[k]} ${k}`);
    lines.append(el("li", `${kind}: ${parts.join(", ")}`, { "data-kind": kind }));
  }
  box.append(lines);
  return box;
}

function manifestBlock(manifest) {
  const box = el("details", null, { class: "rel-manifest" });
  box.append(el("summary", "Manifest"));
  const scalars = Object.entries(manifest).filter(([, v]) => v === null || typeof v !== "object");
  const counts = manifest.counts && typeof manifest.counts === "object" ? Object.entries(manifest.counts) : [];
  const pairs = [...scalars, ...counts].map(([k, v]) => [k.replace(/_/g, " "), v === null ? "—" : String(v)]);
  if (pairs.length) box.append(facts(pairs));
  box.append(el("pre", JSON.stringify(manifest, null, 2)));
  return box;
}

function releaseItem(release) {
  const li = el("li", null, { class: "card rel", "data-version": String(release.version), "data-status": release.status });
  const head = el("div", null, { class: "rel-head" });
  head.append(el("h3", `Version ${release.version}`), el("span", STATUS[release.status] || release.status, { class: `badge ${release.status === "succeeded" ? "submitted" : release.status}` }));
  head.append(el("span", `${release.archive || ""} · ${when(release.created_at)}${release.created_by ? ` by ${release.created_by}` : ""}`, { class: "muted" }));
  if (release.status === "succeeded" && release.download_url) {
    const link = el("a", `Download (${size(release.size)})`, { href: release.download_url, class: "button primary download", download: "" });
    head.append(link);
  }
  li.append(head);
  if (BUSY.has(release.status)) {
    const progress = release.progress || {};
    const bar = el("progress", null, { max: String(progress.total || 1), "aria-label": `Export of version ${release.version}` });
    if (progress.total) bar.value = progress.done || 0;
    else bar.removeAttribute("value"); // indeterminate until the job knows its total
    const text = progress.total ? `${progress.done || 0} of ${counted(progress.total, "row")}${progress.stage ? ` · ${progress.stage}` : ""}` : release.status === "queued" ? "Waiting for a worker…" : progress.stage || "Starting…";
    li.append(bar, el("p", text, { class: "muted rel-progress" }));
  }
  if (release.status === "failed") li.append(el("p", `The export failed: ${release.error || "no reason given"}`, { class: "error" }));
  if (release.status === "succeeded") {
    const sha = release.sha256 ? el("code", release.sha256) : null;
    li.append(facts([["Size", size(release.size)], ["SHA-256", sha], ["Notes", release.notes || release.manifest?.notes || ""]]));
  }
  if (release.diff) li.append(diffBlock(release.diff));
  else if (release.status === "succeeded") li.append(el("p", "The first version: no earlier one to compare.", { class: "muted" }));
  if (release.manifest) li.append(manifestBlock(release.manifest));
  return li;
}

function keepOpen(list, draw) {
  // Keep the details the reader opened (and the focus) across a redraw.
  const open = new Set([...list.querySelectorAll("details[open]")].map((d) => `${d.closest("[data-version]")?.dataset.version}|${d.className}`));
  const active = document.activeElement;
  const focusKey = active && list.contains(active) ? `${active.closest("[data-version]")?.dataset.version}|${active.tagName}|${active.textContent}` : null;
  draw();
  for (const d of list.querySelectorAll("details")) {
    const key = `${d.closest("[data-version]")?.dataset.version}|${d.className}`;
    if (open.has(key)) d.open = true;
    else if (d.className === "rel-manifest") d.open = false;
  }
  if (focusKey) {
    for (const node of list.querySelectorAll("summary, a")) {
      if (`${node.closest("[data-version]")?.dataset.version}|${node.tagName}|${node.textContent}` === focusKey) node.focus();
    }
  }
}

async function load() {
  clearTimeout(timer);
  let releases;
  try {
    releases = await api(base);
  } catch (error) {
    showError($("error"), error.status === 403 ? `You may not see this dataset's releases: ${error.message}` : `Could not load the releases: ${error.message}`);
    root.setAttribute("aria-busy", "false");
    return;
  }
  showError($("error"), "");
  const list = $("releases");
  keepOpen(list, () => list.replaceChildren(...(releases.length ? releases.map(releaseItem) : [el("li", "No release yet.", { class: "muted" })])));
  const ready = releases.filter((r) => r.status === "succeeded").length;
  $("versions-note").textContent = releases.length ? `${ready} ready of ${releases.length}` : "";
  const busy = releases.find((r) => BUSY.has(r.status));
  const asked = releases.find((r) => r.version === exported);
  if (asked && !BUSY.has(asked.status)) {
    $("export-note").textContent = asked.status === "succeeded" ? `Version ${asked.version} is ready.` : `Version ${asked.version} failed.`;
    exported = null;
  }
  const message = busy ? `Version ${busy.version} is being exported.` : releases.length ? `Version ${releases[0].version} is ${STATUS[releases[0].status] || releases[0].status}.` : "";
  if (message !== announced) {
    $("progress-live").textContent = message;
    announced = message;
  }
  root.setAttribute("aria-busy", "false");
  if (busy) timer = setTimeout(load, pollMs(POLL_MS));
}

async function exportRelease(event) {
  event.preventDefault();
  const form = $("export-form");
  const body = {
    archive: form.elements.archive.value,
    include_annotators: $("include-annotators").checked,
    notes: $("notes").value,
  };
  $("export").disabled = true;
  try {
    const release = await api(base, { method: "POST", body });
    $("export-note").textContent = `Version ${release.version} is queued.`;
    exported = release.version;
    $("notes").value = "";
    showError($("error"), "");
  } catch (error) {
    showError($("error"), `Not exported: ${error.message}`);
  } finally {
    $("export").disabled = false;
  }
  await load();
}

// The public switch and its note as the server holds them; the switch is usable only once
// the page knows that state and while no change of it is on its way (a late answer could
// otherwise put back a state the admin has just changed).
function showPublic(isPublic) {
  $("public").checked = isPublic;
  $("public-note").textContent = isPublic ? "Anyone with a link may download the releases." : "Admins and researchers only.";
}

async function setPublic() {
  const box = $("public");
  const wanted = box.checked;
  box.disabled = true;
  try {
    const dataset = await api(`/api/datasets/${encodeURIComponent(slug)}/`, { method: "PATCH", body: { public: wanted } });
    showPublic(Boolean(dataset.public));
  } catch (error) {
    box.checked = !wanted;
    showError($("error"), `Not changed: ${error.message}`);
  } finally {
    box.disabled = false;
  }
}

async function main() {
  if (admin) {
    $("admin-side").hidden = false;
    $("export-form").addEventListener("submit", exportRelease);
    $("public-form").addEventListener("submit", (e) => e.preventDefault());
    $("public").addEventListener("change", setPublic);
    // The switch stays disabled (the template) until the dataset's setting is known.
    api(`/api/datasets/${encodeURIComponent(slug)}/`)
      .then((dataset) => {
        $("title").textContent = `Releases of ${dataset.name || slug}`;
        showPublic(Boolean(dataset.public));
        $("public").disabled = false;
      })
      .catch((error) => {
        $("public-note").textContent = `Could not read who may download: ${error.message}`;
      });
  }
  await load();
}

main();
