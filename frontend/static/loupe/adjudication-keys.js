// The adjudication page's keyboard: one keydown listener, never while typing in a field or
// while a dialog is open; buttons and links keep their own Enter and Space.
//   j / k, ArrowDown / ArrowUp   next / previous facet (item); in edit mode, sentence (error)
//   1-9                          take annotator N's facet (errors)
//   u / i                        the union / the intersection of the annotators' groups (errors)
//   e                            edit the gold by hand; Esc (or e again) ends
//   space, Enter on a sentence   edit mode: put the sentence in the group (the error in or out)
//   d                            mark the document adjudicated
//   n / p                        next / previous document
//   ?                            the keys
// Edit mode adds the page's own keys (g, [, ], x, m, o for FAMs).

const TYPING = "input[type=text], input:not([type]), textarea, select, [contenteditable]";
const CONTROL = "button, a, input, summary, select";

// actions: {next, previous, take(index), union, intersection, edit, escape, toggle, done,
// nextDocument, previousDocument, help, editing(), keys: {key: fn}, editKeys: {key: fn}}.
// A function returning false leaves the key to the browser.
export function bindAdjudicationKeys(actions, isBlocked) {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || isBlocked()) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target instanceof Element ? e.target : document.body;
    const typing = target.matches(TYPING);
    if (e.key === "Escape") {
      if (typing) target.blur();
      else actions.escape();
      return;
    }
    if (typing) return;
    const editing = actions.editing();
    const onControl = target.matches(CONTROL);
    const onRow = target.classList.contains("sent") || target.classList.contains("cand");
    let handled = true;
    if (e.key === "j" || e.key === "ArrowDown") {
      if (e.key === "ArrowDown" && onControl && target.matches("select, input[type=radio]")) handled = false;
      else actions.next();
    } else if (e.key === "k" || e.key === "ArrowUp") {
      if (e.key === "ArrowUp" && onControl && target.matches("select, input[type=radio]")) handled = false;
      else actions.previous();
    } else if (e.key === " " || (e.key === "Enter" && onRow)) {
      if (onControl || !editing) handled = false;
      else actions.toggle();
    } else if (/^[1-9]$/.test(e.key)) handled = actions.take(Number(e.key) - 1) !== false;
    else if (e.key === "u") actions.union();
    else if (e.key === "i") actions.intersection();
    else if (e.key === "e") actions.edit();
    else if (e.key === "d") actions.done();
    else if (e.key === "n") actions.nextDocument();
    else if (e.key === "p") actions.previousDocument();
    else if (e.key === "?") actions.help();
    else if (editing && Object.hasOwn(actions.editKeys, e.key)) handled = actions.editKeys[e.key](e) !== false;
    else handled = false;
    if (handled) e.preventDefault();
  });
}
