// A cue on every box that scrolls a wide table sideways (.table-scroll): `data-more` says on
// which side columns are out of view ("right", "left" or "both"; absent when all are shown) and
// loupe.css draws a note and fades that edge. Boxes the pages add later are watched too.
const BOX = ".table-scroll";
const watched = new WeakSet();

// Which sides of `box` hide columns: "", "right", "left" or "both".
function hiddenSides(box) {
  const extra = box.scrollWidth - box.clientWidth;
  if (extra <= 1) return "";
  const left = box.scrollLeft > 1;
  const right = box.scrollLeft < extra - 1;
  return left && right ? "both" : left ? "left" : right ? "right" : "";
}

function update(box) {
  const sides = hiddenSides(box);
  if (sides) {
    if (box.dataset.more !== sides) box.dataset.more = sides;
  } else if (box.hasAttribute("data-more")) box.removeAttribute("data-more");
}

const resized = new ResizeObserver((entries) => {
  for (const entry of entries) {
    const box = entry.target.matches(BOX) ? entry.target : entry.target.closest(BOX);
    if (box) update(box);
  }
});

function watch(box) {
  if (watched.has(box)) return;
  watched.add(box);
  box.addEventListener("scroll", () => update(box), { passive: true });
  resized.observe(box);
  for (const child of box.children) resized.observe(child);
  update(box);
}

function watchWithin(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return;
  if (node.matches(BOX)) watch(node);
  for (const box of node.querySelectorAll(BOX)) watch(box);
  // A table put into a watched box later: its size changes the box's scroll width.
  const parent = node.parentElement;
  if (parent && watched.has(parent)) {
    resized.observe(node);
    update(parent);
  }
}

watchWithin(document.body);
new MutationObserver((records) => {
  for (const record of records) for (const node of record.addedNodes) watchWithin(node);
}).observe(document.body, { childList: true, subtree: true });
