// Loupe's refusals as a list: each issue of an invalid file with its file, line and field
// ({message, extra: {issues: [...]}}), and each invalid form field (extra.fields).
import { el } from "./api.js";

function where(issue) {
  let text = issue.file || "";
  if (issue.line) text += `:${issue.line}`;
  if (issue.field) text += ` [${issue.field}]`;
  return text;
}

// A <ul class="issues"> with one item per problem; empty when the refusal names none.
export function issueList(extra) {
  const list = el("ul", null, { class: "issues" });
  for (const issue of (extra && extra.issues) || []) {
    const item = el("li");
    item.append(el("code", where(issue)), ` ${issue.message}`);
    list.append(item);
  }
  for (const [field, messages] of Object.entries((extra && extra.fields) || {})) {
    list.append(el("li", `${field}: ${[].concat(messages).join(" ")}`));
  }
  return list;
}

// A refusal's title and what follows it. An invalid file's issues (400) say it all; otherwise
// `message` (the server's, with the caller's hint) explains it, then any issues.
export function refusal(status, extra, message) {
  const list = issueList(extra);
  const count = list.childElementCount;
  const title = count ? `Refused: ${count} problem(s); nothing was saved.` : "Refused; nothing was saved.";
  if (status === 400 && count) return { title, nodes: [list] };
  return { title, nodes: [el("p", message), ...(count ? [list] : [])] };
}
