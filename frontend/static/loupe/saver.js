// Autosave with no lost work: debounced saves, a copy of every unconfirmed change in
// localStorage, retries with backoff (and at once when the browser is back online), and a
// conflict callback on 409 instead of ever overwriting someone else's save.
// The saver also keeps the base: the server's state at the version its changes started from,
// so that a conflict can be merged three ways (what changed here, what changed there).
//
// Keys (one browser profile may have several tabs on one task):
//   loupe:tab:<tabId>              this tab is alive (a heartbeat timestamp; removed on pagehide)
//   loupe:pending:<task>:<tabId>   the unconfirmed state of <task> in tab <tabId>
// A pending copy whose tab is no longer alive is "left over" and is replayed by the next page
// that loads the task (or by My tasks).
//
// What is saved is a FAM by default; a `format` (see FAM_FORMAT) lets the same machinery save
// another state, e.g. an output's error spans (span-state.js SPAN_FORMAT, copies marked
// `kind: "spans"`).
import { payload, sameState } from "./fam.js";
import { copyBody, failureKind, parseCopy } from "./save-rules.js";

// How a FAM is sent, read back from the server, stored in a copy and compared.
export const FAM_FORMAT = {
  kind: "fam",
  body: (state) => ({ facets: payload(state.facets), category: state.category || "" }),
  server: (response) => ({ facets: response.facets, category: response.category || "" }),
  stored: (state) => ({ facets: state.facets, category: state.category }),
  same: sameState,
};

const MAX_BACKOFF = 30000;
const ALIVE_MS = 6000; // a tab that has not beaten for this long is gone
const BEAT_MS = 2000;

export const TAB = globalThis.crypto && crypto.randomUUID ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`;

const tabKey = (tab) => `loupe:tab:${tab}`;

function storageKeys() {
  const keys = [];
  try {
    for (let i = 0; i < localStorage.length; i += 1) keys.push(localStorage.key(i));
  } catch {
    // Storage disabled.
  }
  return keys;
}

function beat() {
  try {
    localStorage.setItem(tabKey(TAB), String(Date.now()));
  } catch {
    // Storage disabled: nothing to announce.
  }
}

// Announce this tab as alive while it is shown (so its pending copies are not taken over).
let beating = null;
export function startHeartbeat() {
  if (beating) return;
  beat();
  beating = setInterval(beat, BEAT_MS);
  window.addEventListener("pagehide", () => {
    try {
      localStorage.removeItem(tabKey(TAB));
    } catch {
      // Nothing to remove.
    }
  });
  window.addEventListener("pageshow", beat);
  // Forget heartbeats of tabs that crashed long ago.
  for (const key of storageKeys()) {
    if (!key || !key.startsWith("loupe:tab:")) continue;
    const at = Number(localStorage.getItem(key));
    if (!at || Date.now() - at > 60000) localStorage.removeItem(key);
  }
}

export function tabAlive(tab) {
  if (!tab) return false;
  if (tab === TAB) return true;
  try {
    const at = Number(localStorage.getItem(tabKey(tab)));
    return Boolean(at) && Date.now() - at < ALIVE_MS;
  } catch {
    return false;
  }
}

export function pendingKey(taskId, tab = TAB) {
  return `loupe:pending:${taskId}:${tab}`;
}

// This tab's unconfirmed state of a task, or null.
export function readPending(taskId, tab = TAB) {
  try {
    return parseCopy(localStorage.getItem(pendingKey(taskId, tab)));
  } catch {
    return null;
  }
}

// Every pending copy in this browser: [{key, taskId, tab, alive, ...copy}], oldest first.
// `taskId` limits them to one task; the old per-task key (no tab) counts as left over.
export function allPending(taskId = null) {
  const out = [];
  for (const key of storageKeys()) {
    const match = /^loupe:pending:(\d+)(?::(.+))?$/.exec(key || "");
    if (!match || (taskId !== null && Number(match[1]) !== Number(taskId))) continue;
    const copy = parseCopy(localStorage.getItem(key));
    if (!copy) continue;
    const tab = match[2] || null;
    out.push({ ...copy, key, taskId: Number(match[1]), tab, alive: tabAlive(tab) });
  }
  return out.sort((a, b) => String(a.at || "").localeCompare(String(b.at || "")));
}

// Copies of a task left over by tabs that are gone (to be replayed by this one).
export function leftovers(taskId) {
  return allPending(taskId).filter((copy) => !copy.alive);
}

export function dropKey(key) {
  try {
    localStorage.removeItem(key);
  } catch {
    // Storage may be disabled; nothing to remove then.
  }
}

export function dropPending(taskId, tab = TAB) {
  dropKey(pendingKey(taskId, tab));
}

// Take a left-over copy over: it becomes this tab's (so no other page replays it too).
export function claim(copy) {
  if (copy.key === pendingKey(copy.taskId)) return copy;
  const { key, taskId, tab, alive, ...stored } = copy;
  try {
    localStorage.setItem(pendingKey(taskId), JSON.stringify({ ...stored, tab: TAB, from: tab }));
  } catch {
    // Storage full: the copy stays under its old key and is still replayed from memory.
    return copy;
  }
  dropKey(key);
  return { ...copy, key: pendingKey(taskId), tab: TAB, alive: true };
}

export class Saver {
  // send(body) -> Promise of the server's {version, facets, category, ...}; onState(state,
  // detail); onConflict(serverState) when the server holds a newer version; onSaved(response).
  // base: {facets, category} of `version` (null when not known). format: what is saved
  // (FAM_FORMAT by default; the state and base then have that format's shape).
  constructor({ taskId, version, base = null, send, onState, onConflict, onSaved, delay = 600, format = FAM_FORMAT }) {
    Object.assign(this, { taskId, version, base, send, onState, onConflict, onSaved, delay, format });
    this.tab = TAB;
    startHeartbeat();
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
    // After a new login (perhaps in another tab) the session is back: try again at once.
    window.addEventListener("focus", () => {
      if (this.state === "auth") this.retryNow();
    });
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
        pendingKey(this.taskId, this.tab),
        JSON.stringify({
          tab: this.tab,
          base_version: this.version,
          base: this.base,
          ...this.format.stored(this.latest),
          at: new Date().toISOString(),
        }),
      );
    } catch {
      // Storage full or disabled: the in-memory copy is still retried.
    }
  }

  // Drop this tab's copy (other tabs keep theirs under their own keys).
  forget() {
    dropPending(this.taskId, this.tab);
  }

  // Changes not confirmed by the server yet (a failed save, a pending one, an open conflict).
  get unsaved() {
    return this.dirty || this.conflict || Boolean(this.inflight);
  }

  // Whether a save failed (offline, refused, logged out) or a conflict waits for a choice.
  get stuck() {
    return this.conflict || (this.dirty && ["offline", "error", "auth"].includes(this.state));
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
    const body = { base_version: this.version, ...this.format.body(this.latest) };
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
    this.base = this.format.server(response);
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
    const kind = failureKind(error);
    if (kind === "conflict" && error.data && error.data.extra && error.data.extra.server) {
      this.conflict = true;
      this.setState("conflict");
      this.onConflict(error.data.extra.server);
      return;
    }
    if (kind === "retry") {
      const offline = error.status === 0 || navigator.onLine === false;
      this.setState("offline", offline ? "" : error.message);
      this.schedule(this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF);
      return;
    }
    if (kind === "auth") {
      // Logged out (or the session expired): keep the copy and retry once logged in again.
      this.setState("auth", error.message);
      this.schedule(this.backoff);
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF);
      return;
    }
    // 400/404: retrying the same body will not help; keep it and say why.
    this.setState("error", error.message);
  }

  // Resolve a conflict with `state` (mine, the server's, or a merge of both): saved as one new
  // save based on the server's version from the 409, never retried by itself. Should the
  // server have moved on again meanwhile, that save gets its own 409 and the choice is asked
  // again with the fresh state. The server's state becomes the base of what follows.
  resolve(server, state) {
    this.version = server.version;
    this.base = this.format.server(server);
    this.conflict = false;
    if (this.format.same(state, this.base)) {
      this.dirty = false; // the server holds it already: nothing to send
      this.latest = null;
      this.forget();
      this.setState("saved");
      return;
    }
    this.latest = state;
    this.dirty = true;
    this.seq += 1;
    this.persist();
    this.setState("saving");
    this.schedule(0);
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

// Replay every left-over copy of the given tasks (My tasks page): tasks is [{id, status,
// campaign: {status}}]; send(taskId, body, kind) -> Promise, kind being "fam" or "spans" (what
// the copy holds: the URL to PUT it to); onNote(taskId, kind, message) tells the
// annotator what happened ("saved", "conflict", "waiting", "auth", "error"). Failed sends are
// retried with backoff until the server confirms them.
export function replayLeftovers(tasks, send, onNote) {
  startHeartbeat();
  const byId = new Map(tasks.map((task) => [Number(task.id), task]));
  const queues = new Map();
  for (const copy of allPending()) {
    if (copy.alive || !byId.has(copy.taskId)) continue;
    if (!queues.has(copy.taskId)) queues.set(copy.taskId, []);
    queues.get(copy.taskId).push(claim(copy));
  }
  for (const [taskId, copies] of queues) {
    const task = byId.get(taskId);
    if (task.status === "submitted") {
      onNote(taskId, "waiting", "This browser holds unsaved changes: reopen the task to save them.");
      continue;
    }
    if (task.campaign && task.campaign.status && task.campaign.status !== "open") {
      onNote(taskId, "error", "This browser holds unsaved changes, but the campaign is closed.");
      continue;
    }
    let backoff = 1000;
    const next = async () => {
      const copy = copies[0];
      if (!copy) return;
      try {
        await send(taskId, copyBody(copy), copy.kind === "spans" ? "spans" : "fam");
      } catch (error) {
        const kind = failureKind(error);
        if (kind === "conflict") {
          onNote(taskId, "conflict", "Changes kept in this browser conflict with a newer save: open the task to choose.");
          return; // the workspace shows both states when the task is opened
        }
        if (kind === "retry" || kind === "auth") {
          const auth = kind === "auth";
          onNote(taskId, auth ? "auth" : "waiting", auth ? "Log in again to save the changes kept in this browser." : "Changes kept in this browser: retrying…");
          setTimeout(next, backoff);
          backoff = Math.min(backoff * 2, MAX_BACKOFF);
          return;
        }
        onNote(taskId, "error", `Changes kept in this browser were refused: ${error.message}`);
        return;
      }
      dropKey(copy.key);
      copies.shift();
      backoff = 1000;
      if (copies.length) next();
      else onNote(taskId, "saved", "Changes kept in this browser are saved.");
    };
    next();
    window.addEventListener("online", () => {
      backoff = 1000;
    });
  }
  return queues.size;
}
