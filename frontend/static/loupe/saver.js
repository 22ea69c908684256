// Autosave with no lost work: debounced saves, a copy of every unconfirmed change in
// localStorage, retries with backoff (and at once when the browser is back online), and a
// conflict callback on 409 instead of ever overwriting someone else's save.
import { payload } from "./fam.js";

const MAX_BACKOFF = 30000;

export function pendingKey(taskId) {
  return `loupe:pending:${taskId}`;
}

// The unconfirmed state of a task kept in this browser, or null.
export function readPending(taskId) {
  try {
    const raw = localStorage.getItem(pendingKey(taskId));
    const value = raw ? JSON.parse(raw) : null;
    return value && Array.isArray(value.facets) ? value : null;
  } catch {
    return null;
  }
}

export function dropPending(taskId) {
  try {
    localStorage.removeItem(pendingKey(taskId));
  } catch {
    // Storage may be disabled; nothing to remove then.
  }
}

const tabId = () =>
  globalThis.crypto && crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;

export class Saver {
  // send(body) -> Promise of the server's {version, ...}; onState(state, detail);
  // onConflict(serverState) when the server holds a newer version; onSaved(response).
  constructor({ taskId, version, send, onState, onConflict, onSaved, delay = 600 }) {
    Object.assign(this, { taskId, version, send, onState, onConflict, onSaved, delay });
    this.tab = tabId();
    this.latest = null; // {facets, category} to be saved
    this.seq = 0; // bumps on every change
    this.dirty = false;
    this.inflight = null;
    this.conflict = false;
    this.timer = null;
    this.backoff = 1000;
    this.state = "saved";
    this.waiters = [];
    window.addEventListener("online", () => this.retryNow());
    window.addEventListener("offline", () => {
      if (this.dirty && !this.conflict) this.setState("offline");
    });
  }

  setState(state, detail = "") {
    this.state = state;
    this.onState(state, detail);
    if (state === "saved") {
      for (const resolve of this.waiters.splice(0)) resolve(true);
    }
  }

  persist() {
    try {
      localStorage.setItem(
        pendingKey(this.taskId),
        JSON.stringify({
          tab: this.tab,
          base_version: this.version,
          facets: this.latest.facets,
          category: this.latest.category,
          at: new Date().toISOString(),
        }),
      );
    } catch {
      // Storage full or disabled: the in-memory copy is still retried.
    }
  }

  forget() {
    const stored = readPending(this.taskId);
    // Another tab may have stored its own unconfirmed work meanwhile: leave that alone.
    if (!stored || !stored.tab || stored.tab === this.tab) dropPending(this.taskId);
  }

  // Record a new state to save (after `delay` ms without further changes).
  change(state, { immediate = false } = {}) {
    this.latest = state;
    this.seq += 1;
    this.dirty = true;
    this.persist();
    if (this.conflict) return;
    if (this.state !== "offline") this.setState("saving");
    this.schedule(immediate ? 0 : this.delay);
  }

  schedule(ms) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.run(), ms);
  }

  retryNow() {
    this.backoff = 1000;
    if (this.dirty && !this.conflict) this.schedule(0);
  }

  async run() {
    if (this.inflight || this.conflict || !this.dirty) return;
    const seq = this.seq;
    const body = {
      base_version: this.version,
      facets: payload(this.latest.facets),
      category: this.latest.category || "",
    };
    if (this.state !== "offline") this.setState("saving");
    this.inflight = this.send(body);
    let response;
    try {
      response = await this.inflight;
    } catch (error) {
      this.inflight = null;
      this.failed(error);
      return;
    }
    this.inflight = null;
    this.version = response.version;
    this.backoff = 1000;
    if (seq === this.seq) {
      this.dirty = false;
      this.forget();
      this.setState("saved");
    } else {
      this.persist(); // newer changes arrived meanwhile: keep them, on the new base version
      this.setState("saving");
      this.schedule(this.delay);
    }
    this.onSaved(response);
  }

  failed(error) {
    if (error.status === 409 && error.data && error.data.extra && error.data.extra.server) {
      this.conflict = true;
      this.setState("conflict");
      this.onConflict(error.data.extra.server);
      return;
    }
    if (error.status === 0 || error.status >= 500 || error.status === 429) {
      const offline = error.status === 0 || navigator.onLine === false;
      this.setState("offline", offline ? "" : error.message);
      this.schedule(this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF);
      return;
    }
    // 400/403/404: retrying the same body will not help; keep it and say why.
    this.setState("error", error.message);
  }

  // Resolve a conflict by saving this tab's state on top of the server's version.
  keepMine(server) {
    this.version = server.version;
    this.conflict = false;
    this.dirty = true;
    this.seq += 1;
    this.persist();
    this.setState("saving");
    this.schedule(0);
  }

  // Resolve a conflict by taking the server's state (the caller shows it).
  takeServer(server) {
    this.version = server.version;
    this.conflict = false;
    this.dirty = false;
    this.latest = null;
    this.forget();
    this.setState("saved");
  }

  // Save now; resolves true once everything is confirmed, false after `timeout` ms.
  flush(timeout = 8000) {
    if (!this.dirty && !this.inflight) return Promise.resolve(true);
    if (!this.conflict) this.schedule(0);
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      setTimeout(() => resolve(!this.dirty), timeout);
    });
  }
}
