// Calls to Sieve's JSON APIs with the session cookie. Every state-changing request carries the
// session's CSRF token; a 401 outside the auth routes means the session ended.

let csrfToken = null;
let onSessionEnded = () => {};

export function setCsrfToken(token) {
  csrfToken = token;
}

export function whenSessionEnds(handler) {
  onSessionEnded = handler;
}

export class ApiError extends Error {
  constructor(status, body) {
    super(describeFailure(status, body));
    this.status = status;
    this.body = body;
  }

  /** The server has no such route: that feature is not part of this server yet. */
  get routeMissing() {
    return this.status === 404 && this.body?.code === "not_found" && this.body?.detail === "no such route";
  }
}

function describeFailure(status, body) {
  if (status === 0) return "The server could not be reached.";
  const detail = body?.detail ?? body?.error?.message ?? body?.message;
  if (typeof detail === "string" && detail) return detail;
  if (detail) return JSON.stringify(detail);
  if (typeof body?.error === "string") return body.error;
  return `The server answered HTTP ${status}.`;
}

function parse(text) {
  try {
    return JSON.parse(text);
  } catch {
    return { detail: text.slice(0, 300) };
  }
}

function headersFor(method, hasJsonBody) {
  const headers = { accept: "application/json" };
  if (hasJsonBody) headers["content-type"] = "application/json";
  if (method !== "GET" && csrfToken) headers["x-csrf-token"] = csrfToken;
  return headers;
}

function failed(path, status, body) {
  if (status === 401 && !path.startsWith("/api/auth/")) onSessionEnded();
  return new ApiError(status, body);
}

export async function api(method, path, body) {
  let response;
  try {
    response = await fetch(path, {
      method,
      headers: headersFor(method, body !== undefined),
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch {
    throw new ApiError(0, null);
  }
  const text = await response.text();
  const data = text ? parse(text) : null;
  if (!response.ok) throw failed(path, response.status, data);
  return data;
}

/** Path plus the non-empty entries of `query` as a query string. */
export function withQuery(path, query = {}) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export const get = (path, query) => api("GET", withQuery(path, query));

/** Multipart upload with progress (fetch cannot report upload progress; XHR can). */
export function upload(path, formData, onProgress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", path);
    for (const [name, value] of Object.entries(headersFor("POST", false))) request.setRequestHeader(name, value);
    request.upload.addEventListener("progress", (event) => onProgress(event.loaded, event.lengthComputable ? event.total : null));
    request.addEventListener("load", () => {
      const data = request.responseText ? parse(request.responseText) : null;
      if (request.status >= 200 && request.status < 300) resolve(data);
      else reject(failed(path, request.status, data));
    });
    request.addEventListener("error", () => reject(new ApiError(0, null)));
    request.send(formData);
  });
}
