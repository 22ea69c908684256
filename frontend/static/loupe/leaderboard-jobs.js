// The leaderboard's scoring panel: the latest job's status, progress bar, counts and error,
// polled every 2 s while a job is queued or running; "Rescore" starts a job at the chosen k.
import { api, when } from "./api.js";

const POLL_MS = 2000;
const STATUS = { queued: "queued", running: "running", succeeded: "succeeded", failed: "failed" };
const UNFINISHED = new Set(["queued", "running"]);

export class JobsPanel {
  // dataset: the slug; k(): the chosen cut-off; onFinished(): reload the leaderboard.
  constructor({ dataset, k, onFinished }) {
    this.dataset = dataset;
    this.k = k;
    this.onFinished = onFinished;
    this.timer = null;
    this.pending = 0;
    this.node = document.getElementById("jobs");
    this.status = document.getElementById("job-status");
    this.progress = document.getElementById("job-progress");
    this.counts = document.getElementById("job-counts");
    this.error = document.getElementById("job-error");
    this.button = document.getElementById("rescore");
    this.button.addEventListener("click", () => this.rescore());
    this.label();
  }

  label() {
    this.button.textContent = `Rescore at k = ${this.k()}`;
  }

  // Every leaderboard response carries {pending, latest}: show it and poll while needed.
  update(jobs) {
    this.stop();
    this.pending = jobs.pending;
    this.show(jobs.latest);
    if (jobs.latest && UNFINISHED.has(jobs.latest.status)) this.poll(jobs.latest.id);
    else if (jobs.pending > 0) this.timer = setTimeout(() => this.onFinished(), POLL_MS);
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
  }

  show(job) {
    this.node.dataset.state = job ? job.status : "none";
    this.error.hidden = true;
    if (!job) {
      this.status.textContent = "No scoring job yet.";
      this.progress.hidden = true;
      this.counts.textContent = "";
      return;
    }
    const others = this.pending > 1 ? ` · ${this.pending} jobs waiting or running` : "";
    let text = `Job ${job.id} (${job.trigger}, k = ${job.ks.join(", ")}) ${STATUS[job.status] || job.status}`;
    if (job.finished_at) text += ` ${when(job.finished_at)}${job.seconds !== null ? ` in ${job.seconds} s` : ""}`;
    else if (job.status === "running") text += ` · ${Math.round(job.progress * 100)}%`;
    this.status.textContent = `${text}${others}.`;
    this.progress.hidden = !UNFINISHED.has(job.status);
    this.progress.value = job.progress;
    this.counts.textContent =
      job.status === "queued" && !job.chunks_total
        ? "Waiting for a worker to start it."
        : `${job.chunks_done} of ${job.chunks_total} chunks · ${job.outputs_total} outputs · ` +
          `${job.scores_written} scores written`;
    if (job.status === "failed") {
      this.error.textContent = `Error: ${job.error || "unknown"}`;
      this.error.hidden = false;
    }
  }

  poll(id) {
    this.timer = setTimeout(async () => {
      let job;
      try {
        job = await api(`/api/scoring-jobs/${id}/`);
      } catch (error) {
        this.counts.textContent = `Could not check job ${id}: ${error.message}; trying again.`;
        this.poll(id);
        return;
      }
      this.show(job);
      if (UNFINISHED.has(job.status)) this.poll(id);
      else this.onFinished();
    }, POLL_MS);
  }

  async rescore() {
    this.button.disabled = true;
    try {
      const job = await api(`/api/datasets/${encodeURIComponent(this.dataset)}/scoring-jobs/start/`, {
        method: "POST",
        body: { ks: [this.k()] },
      });
      this.stop();
      this.pending += 1;
      this.show(job);
      this.poll(job.id);
    } catch (error) {
      this.error.textContent = `Could not start scoring: ${error.message}`;
      this.error.hidden = false;
    } finally {
      this.button.disabled = false;
    }
  }
}
