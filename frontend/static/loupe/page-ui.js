// The flash line and focus-keeping redraws that the workspaces and the adjudication page share.

const timers = new WeakMap();

// Show `message` in the page's #flash line for `ms` milliseconds (a new message replaces it).
export function flash(message, ms = 3000) {
  const node = document.getElementById("flash");
  node.textContent = message;
  node.hidden = false;
  clearTimeout(timers.get(node));
  timers.set(
    node,
    setTimeout(() => {
      node.hidden = true;
    }, ms),
  );
}

// Rebuild a container's children, keeping keyboard focus on the element with the same key.
export function rebuild(container, build) {
  const active = document.activeElement;
  const key = container.contains(active) && active.dataset ? active.dataset.focusKey : null;
  container.replaceChildren(...build());
  if (key) {
    const again = container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
    if (again) again.focus();
  }
}
