// How often pages poll the server and beat: the server's LOUPE_UI_POLL_MS and LOUPE_UI_BEAT_MS
// (rendered on <body> as data-poll-ms and data-beat-ms when set; the browser tests set 200),
// else each caller's own default. Read at each use, so a module may load before <body>.
function fromBody(body, name) {
  const value = Number(body && body.dataset ? body.dataset[name] : undefined);
  return Number.isFinite(value) && value > 0 ? value : null;
}

const body = () => (globalThis.document ? globalThis.document.body : null);

// Milliseconds between two looks at a running job (or run, or pending suggestions).
export function pollMs(fallback, from = body()) {
  return fromBody(from, "pollMs") ?? fallback;
}

// Milliseconds between two heartbeats at most (the task's presence).
export function beatMs(fallback, from = body()) {
  return fromBody(from, "beatMs") ?? fallback;
}
