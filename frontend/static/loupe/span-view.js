// The span workspace's drawing: the two texts with their words, the caret, the selection and
// the errors' stacked underlines, the error list, the keyed menus, the live score and the
// severity matrix of the help. DOM builders only; all text goes in with textContent.
import { el } from "./api.js";
import { counted } from "./plural.js";
import { describeError, isSpace, lanes, pieces, selectionRange, severityMatrix, SEVERITY_SHORT, SIDE_NAMES } from "./span-state.js";

const $ = (id) => document.getElementById(id);

const SEV_CLASS = { Critical: "sev-critical", Major: "sev-major", Minor: "sev-minor" };
export const sevClass = (severity) => SEV_CLASS[severity] || "sev-none";
const MAX_LANE = 5; // lanes beyond it share the last one (still drawn, just closer)

// The short tag of error i: its number and severity ("2 M"), the text cue beside the colour.
const errorTag = (error, i) => `${i + 1}${SEVERITY_SHORT[error.severity] ? ` ${SEVERITY_SHORT[error.severity]}` : ""}`;

// One text side: per sentence a line of words; each word is cut at error boundaries into
// pieces carrying one underline per covering error (in its lane), and each error's tag follows
// its last piece. Returns the word elements (index = word index).
// text: {cps, words, sentences, sentenceOf}; errors: the list (all sides); current: the
// current error's index. Pointer events are the container's (words carry data-w).
export function drawText(container, side, text, errors, current) {
  const lane = lanes(errors, side);
  const ends = new Map(); // offset -> errors whose tag goes there: after their last non-space
  errors.forEach((error, i) => {
    if (error.side !== side) return;
    let end = error.end;
    while (end > error.start + 1 && isSpace(text.cps[end - 1] || "")) end -= 1;
    if (!ends.has(end)) ends.set(end, []);
    ends.get(end).push(i);
  });
  const piece = (start, end, covering) => {
    const node = el("span", text.cps.slice(start, end).join(""), { class: "pc" });
    if (covering.length) {
      node.classList.add("marked");
      if (covering.includes(current)) node.classList.add("current-err");
      const depth = Math.min(MAX_LANE, Math.max(...covering.map((i) => lane.get(i) ?? 0)) + 1);
      node.classList.add(`depth-${depth}`);
      for (const i of covering) {
        const bar = el("span", null, { class: `bar lane-${Math.min(MAX_LANE, lane.get(i) ?? 0)} ${sevClass(errors[i].severity)}`, "aria-hidden": "true" });
        if (i === current) bar.classList.add("current-bar");
        node.append(bar);
      }
      node.title = covering.map((i) => `${i + 1}. ${describeError(errors[i])}`).join("\n");
    }
    return node;
  };
  const tags = (at, after) => {
    for (const i of ends.get(at) || []) {
      const tag = el("span", errorTag(errors[i], i), {
        class: `etag ${sevClass(errors[i].severity)}${i === current ? " current-tag" : ""}`,
        title: `${i + 1}. ${describeError(errors[i])}`,
      });
      after.append(tag);
    }
  };
  const wordNodes = [];
  const lines = [];
  let at = 0;
  text.sentences.forEach((sentence, s) => {
    const length = Array.from(sentence).length;
    const line = el("p", null, { class: "line", "data-sentence": String(s) });
    const from = at;
    const to = at + length;
    let cursor = from;
    const gap = (start, end) => {
      if (end <= start) return;
      for (const p of pieces(errors, side, start, end)) line.append(piece(p.start, p.end, p.errors));
    };
    text.words.forEach((word, w) => {
      if (word.start < from || word.start >= to) return;
      gap(cursor, word.start);
      const node = el("span", null, { class: "w", id: `w-${side}-${w}`, "data-w": String(w) });
      for (const p of pieces(errors, side, word.start, word.end)) {
        node.append(piece(p.start, p.end, p.errors));
        if (p.end < word.end) tags(p.end, node);
      }
      line.append(node);
      tags(word.end, line);
      wordNodes[w] = node;
      cursor = word.end;
    });
    gap(cursor, to);
    lines.push(line);
    at = to + 1;
  });
  container.replaceChildren(...lines);
  return wordNodes;
}

// The caret and the selection of one side (classes only: no redraw of the text).
export function drawCaret(wordNodes, sel, side, active) {
  const [lo, hi] = selectionRange(sel);
  wordNodes.forEach((node, w) => {
    if (!node) return;
    const on = active && sel.side === side;
    node.classList.toggle("caret", on && w === sel.caret);
    node.classList.toggle("sel", on && w >= lo && w <= hi);
  });
}

// The live score in the header.
export function drawScore(score, { noErrors, count }) {
  const value = $("score-value");
  const detail = $("score-detail");
  // Not annotated yet (no error, no "no errors" mark): no score, as on the server.
  value.textContent = score.score === null || (!count && !noErrors) ? "—" : score.score.toFixed(2);
  const parts = [
    counted(score.words, "word"),
    `penalty ${score.penalty}`,
    `${score.critical} critical · ${score.major} major · ${score.minor} minor`,
  ];
  if (!count && !noErrors) parts.push("not annotated yet");
  detail.textContent = parts.join(" · ");
  $("live-score").dataset.state = count ? "errors" : noErrors ? "clean" : "empty";
}

// The list of errors: number and severity tag, subtype / label, the words, where; the current
// one also has its reason field and its Edit and Delete buttons. handlers: {select(i),
// edit(i), remove(i), reason(i, value)}.
export function errorItems(errors, current, { readOnly, handlers }) {
  if (!errors.length) return [el("li", "No error marked yet.", { class: "muted empty" })];
  return errors.map((error, i) => {
    const isCurrent = i === current;
    const li = el("li", null, { class: `err ${sevClass(error.severity)}${isCurrent ? " current" : ""}`, "data-index": String(i) });
    const head = el("button", null, {
      type: "button",
      class: "ehead",
      "aria-pressed": String(isCurrent),
      "data-focus-key": `err-${i}`,
      "aria-label": `Error ${i + 1}: ${describeError(error)}`,
    });
    const kind = [error.type, error.label].filter(Boolean).join(" / ");
    head.append(
      el("span", errorTag(error, i), { class: `etag ${sevClass(error.severity)}` }),
      el("span", kind, { class: "ekind" }),
      el("span", error.severity || "", { class: "esev" }),
    );
    head.addEventListener("click", () => handlers.select(i));
    const words = el("p", null, { class: "ewords" });
    if (error.words) words.append(el("span", `“${error.words}” `, { class: "wtext" }));
    const where = error.side === "none" ? "(no span)" : `in the ${SIDE_NAMES[error.side] || error.side}`;
    words.append(el("span", where, { class: "muted" }));
    li.append(head, words);
    if (isCurrent) {
      const label = el("label", null, { class: "reason" });
      const input = el("input", null, { type: "text", maxlength: "2000", placeholder: "Reason (optional)", "data-focus-key": `reason-${i}`, id: "reason-input" });
      input.value = error.reason || "";
      input.disabled = readOnly;
      input.addEventListener("input", () => handlers.reason(i, input.value, input));
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter" && !e.ctrlKey && !e.metaKey) {
          e.preventDefault();
          input.blur();
        }
      });
      label.append(el("span", "Reason"), input);
      const actions = el("div", null, { class: "eactions" });
      const change = el("button", "Change ", { type: "button", class: "secondary small", "data-focus-key": `edit-${i}` });
      change.append(el("kbd", "e"));
      change.addEventListener("click", () => handlers.edit(i));
      const remove = el("button", "Delete ", { type: "button", class: "secondary small danger", "data-focus-key": `del-${i}` });
      remove.append(el("kbd", "x"));
      remove.addEventListener("click", () => handlers.remove(i));
      change.disabled = readOnly;
      remove.disabled = readOnly;
      actions.append(change, remove);
      li.append(label, actions);
    } else if (error.reason) {
      li.append(el("p", `Reason: ${error.reason}`, { class: "ereason muted" }));
    }
    return li;
  });
}

// The open menu: numbered options ([{label, detail, enabled, reason, value}]), the first
// enabled one (or `focus`) focused. onPick(index).
export function drawMenu(title, options, { focus = -1, onPick }) {
  $("menu-title").textContent = title;
  const items = options.map((option, i) => {
    const li = el("li");
    const button = el("button", null, {
      type: "button",
      class: `opt${option.enabled ? "" : " na"}`,
      "data-option": String(i),
      "aria-disabled": String(!option.enabled),
      "aria-keyshortcuts": String(i + 1),
    });
    button.append(el("kbd", i + 1), el("span", option.label, { class: "oname" }));
    if (option.detail) button.append(el("span", option.detail, { class: `odetail ${option.detailClass || ""}`.trim() }));
    if (!option.enabled && option.short) button.append(el("span", option.short, { class: "oreason" }));
    if (option.reason) button.title = option.reason;
    button.addEventListener("click", () => onPick(i));
    li.append(button);
    return li;
  });
  $("menu-options").replaceChildren(...items);
  $("menu-note").textContent = "";
  $("menu").hidden = false;
  const buttons = items.map((li) => li.firstChild);
  const target = buttons[focus] || buttons.find((b) => b.getAttribute("aria-disabled") === "false") || buttons[0];
  if (target) target.focus();
}

// Move the focus within the open menu by `delta` options (wrapping).
export function menuFocus(delta) {
  const buttons = Array.from($("menu-options").querySelectorAll("button.opt"));
  if (!buttons.length) return;
  const at = buttons.indexOf(document.activeElement);
  const next = at < 0 ? 0 : (at + delta + buttons.length) % buttons.length;
  buttons[next].focus();
}

export function closeMenu() {
  $("menu").hidden = true;
  $("menu-options").replaceChildren();
}

// The severity matrix of the help, from the scheme: subtypes as rows, labels as columns.
export function drawMatrix(table, scheme, weights) {
  $("help-weights").textContent = Object.entries(weights)
    .map(([name, weight]) => `${weight} (${name})`)
    .join(", ");
  if (!scheme.has_severity) {
    table.replaceChildren(el("caption", "This scheme has no severities."));
    return;
  }
  const head = el("tr");
  head.append(el("th", "Subtype \\ label", { scope: "col" }), ...scheme.labels.map((label) => el("th", label, { scope: "col" })));
  const rows = severityMatrix(scheme).map(({ type, cells }) => {
    const row = el("tr");
    row.append(el("th", type, { scope: "row" }));
    for (const { severity } of cells) {
      row.append(el("td", severity ? `${SEVERITY_SHORT[severity]} ${severity}` : "N/A", { class: severity ? sevClass(severity) : "na" }));
    }
    return row;
  });
  const thead = el("thead");
  thead.append(head);
  const tbody = el("tbody");
  tbody.append(...rows);
  table.replaceChildren(thead, tbody);
}
