// One scoring job shown live: status line, progress bar, counts and error, polled every 2 s at
// GET /api/scoring-jobs/<id>/ until it is final, or until the server refuses for good (a 4xx
// other than 429: the job is gone, or not ours to see). The leaderboard and the upload page
// share it.
import { counted } from "./plural.js";
import { el, when } from "./api.js";
import { JobFollower } from "./job-follow.js";
import { recoveryText } from "./job-recovery.js";

export const POLL_MS = 2000; // unless LOUPE_UI_POLL_MS says otherwise (timing.js)
const UNFINISHED = new Set(["queued", "running"]);

export function isUnfinished(job) {
  return Boolean(job) && UNFINISHED.has(job.status);
}

// The nodes of a job panel built in script (the leaderboard's are in its template): a
// container with data-state, the status line (a live region), progress, counts and error.
export function jobNodes() {
  const root = el("section", null, { class: "job", "data-state": "", "aria-label": "Scoring job" });
  const status = el("p", "…", { class: "job-status", role: "status", "aria-live": "polite" });
  const progress = el("progress", null, { max: "1", value: "0", "aria-label": "Scoring progress" });
  progress.hidden = true;
  const counts = el("p", null, { class: "muted job-counts" });
  const error = el("p", null, { class: "error job-error" });
  error.hidden = true;
  root.append(status, progress, counts, error);
  return { root, status, progress, counts, error };
}

// The polling, the retries and the errors are JobFollower's (job-follow.js); this draws a
// scoring job's own fields.
export class JobView extends JobFollower {
  // nodes: {root, status, progress, counts, error}; note(): text added to the status line;
  // onFinal(job): called when a followed job reaches succeeded or failed.
  constructor(nodes, { note = () => "", onFinal = () => {} } = {}) {
    super(nodes, {
      url: (id) => `/api/scoring-jobs/${id}/`,
      label: "job",
      read: (job) => ({ id: job.id, state: job.status }),
      onFinal,
      poll: POLL_MS,
    });
    this.note = note;
  }

  show(job) {
    this.root.dataset.state = job ? job.status : "none";
    this.error.hidden = true;
    if (!job) {
      this.status.textContent = "No scoring job yet.";
      this.progress.hidden = true;
      this.counts.textContent = "";
      return;
    }
    let text = `Job ${job.id} (${job.trigger}, k = ${job.ks.join(", ")}) ${job.status}`;
    if (job.finished_at) text += ` ${when(job.finished_at)}${job.seconds !== null ? ` in ${job.seconds} s` : ""}`;
    else if (job.status === "running") text += ` · ${Math.round(job.progress * 100)}%`;
    this.status.textContent = `${text}${this.note()}.`;
    this.progress.hidden = !isUnfinished(job);
    this.progress.value = job.progress;
    this.counts.textContent =
      job.status === "queued" && !job.chunks_total
        ? "Waiting for a worker to start it."
        : `${job.chunks_done} of ${counted(job.chunks_total, "chunk")} · ${counted(job.outputs_total, "output")} · ` +
          `${job.scores_written} scores written`;
    const recovered = recoveryText(job);
    if (recovered) this.counts.textContent += ` · ${recovered}`;
    if (job.status === "failed") this.showError(`Error: ${job.error || "unknown"}`);
  }
}
