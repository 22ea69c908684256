// The leaderboard's human judgments: the dataset's studies (GET /api/datasets/<slug>/judgments/),
// the form that uploads one (multipart POST) and Delete on the studies the user may delete.
import { counted } from "./plural.js";
import { api, el, when } from "./api.js";
import { refusal } from "./issues.js";

const REPLACE = "Replace the study of that name";

function shape(kind, perDocument) {
  return `${kind === "rank" ? "ranks" : "scores"} ${perDocument ? "per system and document" : "per system"}`;
}

export class JudgmentsPanel {
  // dataset: the slug; onChange(): reload the leaderboard (its correlations) after a change.
  constructor({ dataset, onChange }) {
    this.url = `/api/datasets/${encodeURIComponent(dataset)}/judgments/`;
    this.onChange = onChange;
    this.list = document.getElementById("studies");
    this.form = document.getElementById("judgment-form");
    this.name = document.getElementById("judgment-name");
    this.file = document.getElementById("judgment-file");
    this.replace = document.getElementById("judgment-replace");
    this.submit = document.getElementById("judgment-submit");
    this.status = document.getElementById("judgment-status");
    this.result = document.getElementById("judgment-result");
    this.form.addEventListener("submit", (event) => this.upload(event));
  }

  async refresh() {
    try {
      this.render(await api(this.url));
    } catch (error) {
      this.list.replaceChildren(el("li", `Could not load the studies: ${error.message}`, { class: "error" }));
    }
  }

  render(studies) {
    if (!studies.length) {
      this.list.replaceChildren(el("li", "No human judgment study yet.", { class: "muted" }));
      return;
    }
    this.list.replaceChildren(
      ...studies.map((study) => {
        const item = el("li", null, { "data-study": study.name });
        const facts = [shape(study.kind, study.per_document), counted(study.n_systems, "system")];
        if (study.per_document) facts.push(counted(study.n_documents, "document"));
        facts.push(counted(study.n_rows, "row"));
        facts.push(`uploaded${study.uploaded_by ? ` by ${study.uploaded_by}` : ""}, ${when(study.uploaded_at)}`);
        const text = el("div", null, { class: "study-text" });
        text.append(el("strong", study.name), el("small", facts.join(" · "), { class: "muted" }));
        item.append(text);
        if (study.can_delete) {
          const button = el("button", "Delete", {
            type: "button",
            class: "secondary small study-delete",
            "aria-label": `Delete study ${study.name}`,
          });
          button.addEventListener("click", () => this.remove(study));
          item.append(button);
        }
        return item;
      }),
    );
  }

  // The outcome, focused so that keyboard and screen-reader users land on it.
  show(state, title, ...nodes) {
    this.result.replaceChildren(el("p", title, { class: "result-title" }), ...nodes);
    this.result.dataset.state = state;
    this.result.hidden = false;
    this.result.focus();
  }

  refused(error) {
    let message = error.message;
    if (error.status === 409) message = `${message} To replace it, tick “${REPLACE}”.`;
    if (error.status === 401 || error.status === 403) message = `${message} (Only researchers and admins may upload.)`;
    const { title, nodes } = refusal(error.status, error.data && error.data.extra, message);
    this.show("refused", title, ...nodes);
  }

  async upload(event) {
    event.preventDefault();
    const file = this.file.files[0];
    if (file && file.size > Number(this.form.dataset.maxBytes)) {
      this.refused({ status: 413, message: `${file.name} is larger than the upload limit; nothing was sent.` });
      return;
    }
    const body = new FormData();
    body.set("name", this.name.value);
    body.set("file", file);
    if (this.replace.checked) body.set("replace", "true");
    this.submit.disabled = true;
    this.form.setAttribute("aria-busy", "true");
    this.status.textContent = "Uploading…";
    try {
      const study = await api(this.url, { method: "POST", body });
      this.form.reset();
      const systems = `Systems: ${study.systems.join(", ")}.`;
      const verb = study.replaced ? "Replaced" : "Uploaded";
      this.show("done", `${verb} ${study.name}: ${counted(study.rows, "row")}, ${shape(study.kind, study.per_document)}.`, el("p", systems));
      await this.changed();
    } catch (error) {
      this.refused(error);
    } finally {
      this.submit.disabled = false;
      this.form.removeAttribute("aria-busy");
      this.status.textContent = "";
    }
  }

  async remove(study) {
    if (!window.confirm(`Delete the study “${study.name}” (${counted(study.n_rows, "judgment")})? This cannot be undone.`)) return;
    try {
      await api(`${this.url}${encodeURIComponent(study.name)}/`, { method: "DELETE" });
      this.show("done", `Deleted ${study.name}.`);
      await this.changed();
    } catch (error) {
      this.show("refused", `Could not delete ${study.name}.`, el("p", error.message));
    }
  }

  async changed() {
    await Promise.all([this.refresh(), this.onChange()]);
  }
}
