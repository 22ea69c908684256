// The leaderboard's scoring panel: the latest job, followed live (scoring-job.js) while it is
// queued or running; "Rescore" starts a job at the chosen k.
import { api } from "./api.js";
import { isUnfinished, JobView, POLL_MS } from "./scoring-job.js";
import { pollMs } from "./timing.js";

export class JobsPanel {
  // dataset: the slug; k(): the chosen cut-off; onFinished(): reload the leaderboard.
  constructor({ dataset, k, onFinished }) {
    this.dataset = dataset;
    this.k = k;
    this.onFinished = onFinished;
    this.timer = null;
    this.pending = 0;
    const nodes = {
      root: document.getElementById("jobs"),
      status: document.getElementById("job-status"),
      progress: document.getElementById("job-progress"),
      counts: document.getElementById("job-counts"),
      error: document.getElementById("job-error"),
    };
    this.view = new JobView(nodes, {
      note: () => (this.pending > 1 ? ` · ${this.pending} jobs waiting or running` : ""),
      onFinal: () => this.onFinished(),
    });
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
    this.view.show(jobs.latest);
    if (isUnfinished(jobs.latest)) this.view.follow(jobs.latest.id);
    else if (jobs.pending > 0) this.timer = setTimeout(() => this.onFinished(), pollMs(POLL_MS));
  }

  stop() {
    clearTimeout(this.timer);
    this.timer = null;
    this.view.stop();
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
      this.view.show(job);
      this.view.follow(job.id);
    } catch (error) {
      this.view.showError(`Could not start scoring: ${error.message}`);
    } finally {
      this.button.disabled = false;
    }
  }
}
