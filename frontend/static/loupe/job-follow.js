// A background job started from a page and followed live: AutoFAR-L and APES (leaderboard),
// bias (the bias panel) and the cross-dataset paired tests. The page gives its nodes, the
// job's status URL and how to read the job's JSON; this module draws the status line (a live
// region), the progress bar, the counts with the watchdog's recovery note (job-recovery.js)
// and the error, polls until the job is final, and starts jobs: 202 follows the new job,
// 409 follows the one already running (the API names it in `extra.run`), 400 shows the
// message (what is missing). The upload page and the leaderboard's scoring panel use
// scoring-job.js, whose JobView is a JobFollower that draws a scoring job's own fields.
import { api, el, when } from "./api.js";
import { recoveryText } from "./job-recovery.js";
import { pollMs } from "./timing.js";

export const POLL_MS = 1000; // unless LOUPE_UI_POLL_MS says otherwise (timing.js)
const UNFINISHED = new Set(["queued", "running"]);

export function isUnfinished(state) {
  return UNFINISHED.has(state);
}

// The nodes of a job panel under `container` (made once): status, progress, counts, error.
export function followNodes(container, label) {
  const root = el("div", null, { class: "job", "data-state": "none" });
  const status = el("p", "", { class: "job-status", role: "status", "aria-live": "polite" });
  const progress = el("progress", null, { max: "1", value: "0", "aria-label": `${label} progress` });
  progress.hidden = true;
  const counts = el("p", null, { class: "muted job-counts" });
  const error = el("p", null, { class: "error job-error", role: "alert" });
  error.hidden = true;
  root.append(status, progress, counts, error);
  container.append(root);
  return { root, status, progress, counts, error };
}

// A job's JSON read into the fields shown: {id, state, done, total, error, recoveries,
// recovery_note, finished_at}. `read` maps a type's own names (the cross-dataset run says
// `run`, `state` and `pairs_done`); the default reads the job kernel's names.
function readJob(job) {
  return {
    id: job.id,
    state: job.status,
    done: job.chunks_done,
    total: job.chunks_total,
    error: job.error,
    recoveries: job.recoveries,
    recovery_note: job.recovery_note,
    finished_at: job.finished_at,
  };
}

export class JobFollower {
  // nodes: see followNodes; url(id): the job's status URL; label: "APES run", ...;
  // unit: what a chunk is called ("chunks", "pairs"); read(json): see readJob;
  // onFinal(json): called once a followed job succeeded or failed; poll: the default ms
  // between two looks (LOUPE_UI_POLL_MS overrides it).
  constructor(nodes, { url, label, unit = "chunks", read = readJob, onFinal = () => {}, poll = POLL_MS }) {
    Object.assign(this, nodes);
    this.url = url;
    this.label = label;
    this.unit = unit;
    this.read = read;
    this.onFinal = onFinal;
    this.poll = poll;
    this.timer = null;
  }

  // Draw a job (null: none yet, `none`: the text to say so).
  show(json, none = `No ${this.label} yet.`) {
    this.error.hidden = true;
    if (!json) {
      this.root.dataset.state = "none";
      this.status.textContent = none;
      this.progress.hidden = true;
      this.counts.textContent = "";
      return;
    }
    const job = this.read(json);
    this.root.dataset.state = job.state;
    this.root.dataset.job = String(job.id);
    let text = `${this.label} ${job.id} ${job.state}`;
    if (job.finished_at) text += ` ${when(job.finished_at)}`;
    else if (job.state === "running" && job.total) text += ` · ${Math.round((100 * job.done) / job.total)}%`;
    this.status.textContent = `${text}.`;
    this.progress.hidden = !isUnfinished(job.state);
    this.progress.value = job.total ? job.done / job.total : 0;
    this.counts.textContent =
      job.state === "queued" && !job.total ? "Waiting for a worker to start it." : `${job.done} of ${job.total} ${this.unit} done.`;
    const recovered = recoveryText(job);
    if (recovered) this.counts.textContent += ` ${recovered}`;
    if (job.state === "failed") this.showError(`Error: ${job.error || "unknown"}`);
  }

  showError(message) {
    this.error.textContent = message;
    this.error.hidden = false;
  }

  // Poll job `id` (first after `delay` ms) until it is final, then call onFinal. A network
  // error, 429 or 5xx is retried; any other 4xx stops the polling and says why.
  follow(id, delay = pollMs(this.poll)) {
    this.stop();
    const timer = setTimeout(async () => {
      let json;
      try {
        json = await api(this.url(id));
      } catch (error) {
        if (this.timer !== timer) return; // stopped, or another job followed, meanwhile
        if (error.status >= 400 && error.status < 500 && error.status !== 429) {
          this.stop();
          this.progress.hidden = true;
          this.showError(`Could not check ${this.label} ${id}: ${error.message.replace(/\.$/, "")}. Reload the page to try again.`);
          return;
        }
        this.counts.textContent = `Could not check ${this.label} ${id}: ${error.message}; trying again.`;
        this.follow(id);
        return;
      }
      if (this.timer !== timer) return;
      this.show(json);
      if (isUnfinished(this.read(json).state)) this.follow(id);
      else this.onFinal(json);
    }, delay);
    this.timer = timer;
  }

  // Show `json` and follow it while it is unfinished.
  track(json) {
    this.show(json);
    if (json && isUnfinished(this.read(json).state)) this.follow(this.read(json).id);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }

  // POST `url` with `body` (the button is disabled meanwhile). 202 or 200: show and follow
  // the job `pick(response)` gives; 409: follow the job already running; any other error:
  // show its message. Returns the response, or null when refused.
  async start(button, url, body, pick = (json) => json) {
    button.disabled = true;
    this.error.hidden = true;
    this.status.textContent = `Starting the ${this.label}…`;
    try {
      const json = await api(url, { method: "POST", body });
      this.track(pick(json));
      return json;
    } catch (error) {
      const running = error.status === 409 && error.data && error.data.extra && error.data.extra.run;
      if (running) {
        this.status.textContent = `${error.message}.`;
        this.follow(running, 0);
        return null;
      }
      this.status.textContent = "";
      this.showError(error.status ? error.message : `Could not start the ${this.label}: ${error.message}`);
      return null;
    } finally {
      button.disabled = false;
    }
  }
}

// An empty state: what a job lacks before it can start (the API's `missing`), with a link to
// the upload page when that is where to add it. Hidden when nothing is missing.
export function showMissing(node, message) {
  node.hidden = !message;
  node.replaceChildren();
  if (!message) return;
  node.append(el("p", message));
  if (message.includes("/upload/")) node.append(el("a", "Go to the upload page", { href: "/upload/" }));
}
