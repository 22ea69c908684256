// A cue on every box that scrolls a wide table sideways (.table-scroll): `data-more` says on
// which side columns are out of view ("right", "left" or "both"; absent when all are shown) and
// loupe.css draws a note and fades that edge. The page's boxes are watched on load; a page
// that builds a box later hands it to watch() (agreement-view.js, leaderboard-meta.js).
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
    const box = entry.target.closest(BOX);
    if (box) update(box);
  }
});

// Keep box's cue current: on scroll, and when the box or the table in it changes size.
export function watch(box) {
  if (watched.has(box)) return;
  watched.add(box);
  box.addEventListener("scroll", () => update(box), { passive: true });
  resized.observe(box);
  for (const child of box.children) resized.observe(child);
  update(box);
}

for (const box of document.querySelectorAll(BOX)) watch(box);
