// The campaign's instructions in both workspaces: a collapsible panel under the header, filled
// from the task's `campaign.instructions` (as text), hidden when there are none. It opens by
// itself the first time this browser sees a campaign's instructions (and again when they
// change); afterwards it stays as the annotator left it. The key i toggles it.
const panel = document.getElementById("instructions");
const text = document.getElementById("instructions-text");

// A short fingerprint of the text, so changed instructions open the panel again.
function fingerprint(value) {
  let hash = 0;
  for (let i = 0; i < value.length; i += 1) hash = (Math.imul(hash, 31) + value.charCodeAt(i)) | 0;
  return `${value.length}:${hash}`;
}

function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // storage full or refused: the panel just opens again next time
  }
}

export function showInstructions(task) {
  const campaign = task.campaign || {};
  const value = (campaign.instructions || "").trim();
  panel.hidden = !value;
  if (!value) return;
  text.textContent = value;
  const key = `loupe:instructions:${campaign.id}`;
  const seen = fingerprint(value);
  let before = null;
  try {
    before = localStorage.getItem(key);
  } catch {
    before = null;
  }
  panel.open = before !== seen;
  remember(key, seen);
}

// The key's action: false (the key is not handled) when the campaign has no instructions.
export function toggleInstructions() {
  if (panel.hidden) return false;
  panel.open = !panel.open;
  return true;
}
