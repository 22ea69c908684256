// Suggestions: load them (polling while the worker computes them) and log what the annotator
// did with them (shown, accepted, ignored), with the scorer's version.
import { api } from "./api.js";
import { startHeartbeat, TAB, tabAlive } from "./saver.js";
import { pollMs } from "./timing.js";

// Poll GET suggestions until they are ready or failed; onUpdate gets every answer. A failed
// request is retried with backoff (and at once when the browser is back online).
export function pollSuggestions(taskId, onUpdate) {
  let delay = pollMs(1500);
  let failures = 0;
  let stopped = false;
  let timer = null;
  const tick = async () => {
    clearTimeout(timer);
    if (stopped) return;
    try {
      const data = await api(`/api/tasks/${taskId}/suggestions/`);
      failures = 0;
      onUpdate(data);
      if (data.status !== "pending") {
        stopped = true;
        return;
      }
      delay = Math.min(delay * 1.3, 10000);
    } catch (error) {
      failures += 1;
      delay = Math.min(2000 * 2 ** (failures - 1), 30000);
      onUpdate(null, error);
    }
    if (!stopped) timer = setTimeout(tick, delay);
  };
  window.addEventListener("online", () => {
    if (!stopped && failures) tick();
  });
  tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// The suggestion log: events are batched, kept in localStorage until the server has them.
export class SuggestionLog {
  constructor(taskId) {
    this.taskId = taskId;
    // One queue per tab (loupe:suggestions:<task>:<tabId>), so two tabs never send the same
    // events; queues left by closed tabs are taken over (and their keys removed) here.
    this.key = `loupe:suggestions:${taskId}:${TAB}`;
    startHeartbeat();
    const stored = this.load();
    this.queue = stored.queue || [];
    this.shown = new Map(stored.shown || []); // "facet:sentence:scorer" -> event fields
    this.accepted = new Set(stored.accepted || []);
    this.adoptLeftovers();
    this.timer = null;
    this.inflight = null; // the flush on its way, if any
    window.addEventListener("online", () => this.schedule(0));
    if (this.queue.length) this.schedule(0);
  }

  load(key = this.key) {
    try {
      return JSON.parse(localStorage.getItem(key) || "{}");
    } catch {
      return {};
    }
  }

  adoptLeftovers() {
    const prefix = `loupe:suggestions:${this.taskId}`;
    const keys = [];
    try {
      for (let i = 0; i < localStorage.length; i += 1) keys.push(localStorage.key(i));
    } catch {
      return;
    }
    const adopted = [];
    for (const key of keys) {
      if (!key || key === this.key || !(key === prefix || key.startsWith(`${prefix}:`))) continue;
      const tab = key.slice(prefix.length + 1) || null;
      if (tabAlive(tab)) continue;
      const stored = this.load(key);
      this.queue.push(...(stored.queue || []));
      for (const [k, fields] of stored.shown || []) if (!this.shown.has(k)) this.shown.set(k, fields);
      for (const k of stored.accepted || []) this.accepted.add(k);
      adopted.push(key);
    }
    if (!adopted.length) return;
    this.store(); // ours first, then drop theirs: a crash in between sends twice, never loses
    for (const key of adopted) localStorage.removeItem(key);
  }

  store() {
    try {
      localStorage.setItem(
        this.key,
        JSON.stringify({ queue: this.queue, shown: [...this.shown], accepted: [...this.accepted] }),
      );
    } catch {
      // Storage disabled: events are still sent from memory.
    }
  }

  static key(facet, sentence, scorer) {
    return `${facet}:${sentence}:${scorer}`;
  }

  push(action, fields) {
    this.queue.push({ ...fields, action });
    this.store();
    this.schedule(1000);
  }

  markShown(fields) {
    const key = SuggestionLog.key(fields.facet, fields.sentence, fields.scorer);
    if (this.shown.has(key)) return;
    this.shown.set(key, fields);
    this.push("shown", fields);
  }

  markAccepted(fields) {
    const key = SuggestionLog.key(fields.facet, fields.sentence, fields.scorer);
    if (!this.shown.has(key)) this.markShown(fields);
    if (this.accepted.has(key)) return;
    this.accepted.add(key);
    this.push("accepted", fields);
  }

  // On submit: every suggestion shown but never accepted was ignored.
  markIgnored() {
    for (const [key, fields] of this.shown) {
      if (!this.accepted.has(key)) this.queue.push({ ...fields, action: "ignored" });
    }
    this.shown.clear();
    this.accepted.clear();
    this.store();
  }

  schedule(ms) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.flush(), ms);
  }

  // Send every queued event; the promise is one for all callers, and it settles only once the
  // queue is empty (events queued meanwhile go too) or a batch failed. Submitting awaits it, so
  // no event of the task reaches the server after the submission (the agreement run the
  // submission queues reads them all). Resolves true when everything was sent.
  flush() {
    if (!this.inflight) this.inflight = this.drain().finally(() => (this.inflight = null));
    return this.inflight;
  }

  async drain() {
    while (this.queue.length) {
      const batch = this.queue.slice(0, 500);
      try {
        await api(`/api/tasks/${this.taskId}/suggestion-events/`, {
          method: "POST",
          body: { events: batch },
        });
        this.queue.splice(0, batch.length);
        this.store();
      } catch (error) {
        if (error.status === 0 || error.status >= 500) this.schedule(5000);
        else if (error.status === 400) {
          this.queue.splice(0, batch.length); // the server refuses them; do not retry forever
          this.store();
        }
        return false;
      }
    }
    return true;
  }
}
