// The leaderboard's background analyses: APES and AutoFAR-L, each started with its button and
// followed live (job-follow.js). GET .../apes-runs/status/ and .../autofar-runs/status/ give
// the latest run and what is missing (the empty state, with the button disabled); a finished
// run reloads the leaderboard, whose columns it fills.
import { api, el } from "./api.js";
import { followNodes, JobFollower, showMissing } from "./job-follow.js";

const figure = (value) => (value === null || value === undefined ? "–" : value.toFixed(3));

class Analysis {
  // name: "apes" or "autofar"; label: how the run is called; onFinished(): reload the board.
  constructor({ dataset, name, label, onFinished }) {
    this.base = `/api/datasets/${encodeURIComponent(dataset)}/${name}-runs`;
    this.panel = document.getElementById(`${name}-panel`);
    this.button = document.getElementById(`${name}-start`);
    this.missing = document.getElementById(`${name}-missing`);
    this.follower = new JobFollower(followNodes(document.getElementById(`${name}-job`), label), {
      url: (id) => `/api/${name}-runs/${id}/`,
      label,
      onFinal: (run) => {
        if (run.status === "succeeded") onFinished();
      },
    });
    this.button.addEventListener("click", () => this.start());
  }

  body() {
    return {};
  }

  draw() {}

  async refresh() {
    let state;
    try {
      state = await api(`${this.base}/status/`);
    } catch (error) {
      this.follower.showError(`Could not load the ${this.follower.label}s: ${error.message}`);
      this.panel.setAttribute("aria-busy", "false");
      return;
    }
    this.draw(state);
    showMissing(this.missing, state.missing);
    this.button.disabled = Boolean(state.missing);
    this.follower.track(state.latest);
    this.panel.setAttribute("aria-busy", "false");
  }

  async start() {
    await this.follower.start(this.button, `${this.base}/start/`, this.body());
  }
}

class AutoFarAnalysis extends Analysis {
  constructor({ k, ...rest }) {
    super({ ...rest, name: "autofar", label: "AutoFAR-L run" });
    this.k = k;
    this.select = document.getElementById("autofar-fit");
  }

  // The choices: a stored fit, or a new fit on a dataset with human FAMs at the board's k.
  draw(state) {
    const chosen = this.select.value;
    const options = state.fits.map((fit) => {
      const text = `Fit ${fit.id} on ${fit.dataset} (k = ${fit.k}, RMSE ${figure(fit.rmse)}, R² ${figure(fit.r2)})`;
      return el("option", text, { value: `fit:${fit.id}` });
    });
    for (const slug of state.fit_datasets) {
      options.push(el("option", `New fit on ${slug}'s human FAMs (k = ${this.k()})`, { value: `dataset:${slug}` }));
    }
    this.select.replaceChildren(...options);
    this.select.disabled = options.length === 0;
    if (options.some((o) => o.value === chosen)) this.select.value = chosen;
  }

  body() {
    const [kind, value] = this.select.value.split(/:(.*)/s);
    return kind === "fit" ? { fit: Number(value) } : { fit_dataset: value, k: this.k() };
  }
}

export class AnalysesPanel {
  // dataset: the slug; k(): the board's cut-off; onFinished(): reload the leaderboard.
  constructor({ dataset, k, onFinished }) {
    this.apes = new Analysis({ dataset, name: "apes", label: "APES run", onFinished });
    this.autofar = new AutoFarAnalysis({ dataset, k, onFinished });
  }

  refresh() {
    this.apes.refresh();
    this.autofar.refresh();
  }
}
