// Tiny JSON API client: same-origin session auth with the CSRF token for writes.

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

// Errors carry `status` (0 when the network failed: offline, DNS, connection refused) and the
// decoded JSON body as `data` (`{message, extra}` for Loupe's API errors). A FormData body is
// sent as multipart (uploads); any other body as JSON.
export async function api(path, { method = "GET", body, keepalive = false } = {}) {
  const headers = { Accept: "application/json" };
  const multipart = body instanceof FormData;
  if (body !== undefined && !multipart) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      cache: "no-store",
      keepalive,
      body: body === undefined || multipart ? body : JSON.stringify(body),
    });
  } catch (cause) {
    const error = new Error("The network is unreachable.");
    error.status = 0;
    error.cause = cause;
    throw error;
  }
  const data = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((data && data.message) || `HTTP ${response.status}`);
    error.status = response.status;
    error.data = data;
    throw error;
  }
  return data;
}

// Build an element with text content only (never innerHTML: document text is untrusted).
export function el(tag, text, attrs = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

// A short local date-time for lists ("21 Nov, 08:31").
export function when(iso) {
  if (!iso) return "";
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? String(iso)
    : date.toLocaleString(undefined, { day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" });
}
