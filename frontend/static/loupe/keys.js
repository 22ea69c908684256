// The workspace's keyboard: one keydown listener that maps keys to actions, never while the
// annotator types in a field or a dialog is open, and leaves buttons and links their own keys.

const TYPING = "input[type=text], input:not([type]), textarea, select, [contenteditable]";
const CONTROL = "button, a, input, summary";

// actions: {next, previous, toggle, facet(index), escape, submit, keys: {"g": fn, ...}};
// isBlocked(): true while a modal dialog is open. A key's function gets the event (to read
// Shift, the target); returning false leaves the key to the browser (not handled).
// Ctrl+Enter (Cmd+Enter on a Mac) submits, even from the note field: it is the one key with
// a modifier, so typing never triggers it.
export function bindKeys(actions, isBlocked) {
  document.addEventListener("keydown", (e) => {
    if (e.defaultPrevented || isBlocked()) return;
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
      e.preventDefault();
      actions.submit();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target instanceof Element ? e.target : document.body;
    const typing = target.matches(TYPING);
    if (e.key === "Escape") {
      if (typing) target.blur();
      else actions.escape();
      return;
    }
    if (typing) return;
    const onSentence = target.classList.contains("sent");
    let handled = true;
    if (e.key === "j" || (onSentence && e.key === "ArrowDown")) actions.next();
    else if (e.key === "k" || (onSentence && e.key === "ArrowUp")) actions.previous();
    else if (e.key === " " || (e.key === "Enter" && onSentence)) {
      if (target.matches(CONTROL)) handled = false; // a focused button or radio keeps its space
      else actions.toggle();
    } else if (/^[1-9]$/.test(e.key)) handled = actions.facet(Number(e.key) - 1);
    else if (Object.hasOwn(actions.keys, e.key)) handled = actions.keys[e.key](e) !== false;
    else handled = false;
    if (handled) e.preventDefault();
  });
}
