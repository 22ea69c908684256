// Who else has this task open: a heartbeat to POST /api/tasks/<id>/presence/ with this tab's
// id. The server's record is the source of truth (it spans browsers and machines); between
// tabs of one browser a BroadcastChannel only makes the others ask the server at once.
import { api } from "./api.js";
import { TAB } from "./saver.js";
import { beatMs } from "./timing.js";

const MAX_BEAT_MS = 5000;
const MAX_BACKOFF_MS = 60000;

// onOthers(others) after every answer, and [] after an error (who else is there is not known
// then) or when the task is left; onAnswer() whenever the server answered (the session is
// alive). A 403 or 404 ends the heartbeat (this page may not follow the task); a network
// error, 401, 429 or 5xx backs it off, up to a minute, until the server answers again (at once
// when the browser is back online or the window gets the focus, e.g. after a new login in
// another tab). Returns a function that stops the heartbeat.
export function startPresence({ taskId, onOthers, onAnswer = () => {} }) {
  const url = `/api/tasks/${taskId}/presence/`;
  const channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(`loupe:presence:${taskId}`) : null;
  // The server keeps a tab that left as gone (a late heartbeat must not revive it), so a page
  // back from the back-forward cache announces itself under a new id.
  let generation = 0;
  let clientId = TAB;
  let every = beatMs(MAX_BEAT_MS);
  let backoff = 0; // after a failed beat: the wait before the next one
  let timer = null;
  let running = true;
  let busy = false;
  let again = false;
  let announced = false;

  async function beat() {
    clearTimeout(timer);
    if (!running) return;
    if (busy) {
      again = true; // one more right after the answer
      return;
    }
    busy = true;
    try {
      const answer = await api(url, { method: "POST", body: { client_id: clientId } });
      // Beat well within the expiry, so a live tab never drops out between two beats.
      // LOUPE_UI_BEAT_MS (timing.js), when set, replaces the 5 s bound and the 1 s floor.
      const most = beatMs(MAX_BEAT_MS);
      every = Math.max(Math.min(1000, most), Math.min(most, (answer.expires_after * 1000) / 3));
      backoff = 0;
      if (running) onOthers(answer.others);
      onAnswer();
      if (!announced && channel) channel.postMessage("hello"); // the others look again now
      announced = true;
    } catch (error) {
      // A note left up would be stale: whoever it names may have gone since.
      onOthers([]);
      // No such task for us, or no longer allowed on it: nothing to announce.
      if (error.status === 403 || error.status === 404) running = false;
      else backoff = Math.min(MAX_BACKOFF_MS, backoff ? backoff * 2 : every * 2);
    } finally {
      busy = false;
    }
    if (!running) return;
    if (again) {
      again = false;
      beat();
    } else {
      timer = setTimeout(beat, backoff || every);
    }
  }

  // Back online, or back in this window (perhaps logged in again elsewhere): try at once.
  function retry() {
    if (running && backoff) beat();
  }

  function leave() {
    if (!running) return;
    running = false;
    clearTimeout(timer);
    // keepalive: the request outlives the page that is going away.
    api(url, { method: "POST", body: { client_id: clientId, leaving: true }, keepalive: true }).catch(() => {});
    if (channel) channel.postMessage("bye");
  }

  if (channel) {
    channel.addEventListener("message", (event) => {
      // After a "bye", give the leaving tab's request a moment to reach the server.
      if (event.data === "bye") setTimeout(beat, 300);
      else beat();
    });
  }
  window.addEventListener("pagehide", leave);
  window.addEventListener("online", retry);
  window.addEventListener("focus", retry);
  window.addEventListener("pageshow", (event) => {
    if (event.persisted && !running) {
      running = true; // back from the back-forward cache
      generation += 1;
      clientId = `${TAB}-${generation}`;
      announced = false;
      beat();
    }
  });
  beat();
  return leave;
}
