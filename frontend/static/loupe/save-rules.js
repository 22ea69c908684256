// The no-lost-work rules of saver.js as pure functions over plain data (no storage, no DOM):
// which copies kept in localStorage are known, the body that saves a left-over copy, and what
// a failed save means (the workspace's saver and the replay of left-over copies on My tasks
// decide alike).
import { payload } from "./fam.js";

// A stored copy (the raw localStorage string) as an object, or null when it is unreadable or
// of no known kind: a FAM's (facets) or an error list's (kind "spans", errors).
export function parseCopy(raw) {
  try {
    const value = raw ? JSON.parse(raw) : null;
    const known = value && (Array.isArray(value.facets) || (value.kind === "spans" && Array.isArray(value.errors)));
    return known ? value : null;
  } catch {
    return null;
  }
}

// The body that saves a left-over copy: a FAM's, or an error list's (kind "spans").
export function copyBody(copy) {
  if (copy.kind === "spans") {
    return { base_version: copy.base_version, errors: copy.errors, no_errors: Boolean(copy.no_errors) };
  }
  return { base_version: copy.base_version, facets: payload(copy.facets), category: copy.category || "" };
}

// What a failed save means, from its error's `status` (api.js: 0 when the network failed):
// "conflict" (409: the server holds a newer version; never overwritten), "retry" (no network,
// a server error or 429: the same body later), "auth" (401/403: logged out; the copy is kept
// and retried once logged in again) or "refused" (anything else, e.g. 400/404: the same body
// would be refused again).
export function failureKind(error) {
  const status = error.status;
  if (status === 409) return "conflict";
  if (status === 401 || status === 403) return "auth";
  if (status === 0 || status >= 500 || status === 429) return "retry";
  return "refused";
}
