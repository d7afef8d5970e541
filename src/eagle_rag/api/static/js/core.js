// Shared helpers: building DOM nodes (text only, never HTML), calling the HTTP API with the key.

const KEY_STORAGE = "eagle-rag-api-key";

/** A DOM element; string children become text nodes, so no value is ever parsed as HTML. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of ``node`` (by id or element) with ``children``. */
export function fill(node, ...children) {
  const target = typeof node === "string" ? document.getElementById(node) : node;
  target.replaceChildren();
  append(target, children);
  return target;
}

export const $ = (id) => document.getElementById(id);

/** "a, b ,c" -> ["a", "b", "c"] */
export function splitList(text) {
  return text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
}

/** An error answered by the API in the one shape, or a network failure. */
export class ApiError extends Error {
  constructor(status, code, message, details) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details || {};
  }
}

let onUnauthorized = () => {};
export function setUnauthorizedHandler(handler) { onUnauthorized = handler; }
export function apiKey() { return sessionStorage.getItem(KEY_STORAGE) || ""; }
export function setApiKey(key) { sessionStorage.setItem(KEY_STORAGE, key); }

/** Headers for an API call: the key when one was given. */
export function authHeaders() {
  const key = apiKey();
  return key ? { "X-API-Key": key } : {};
}

/** Parse an answer: the JSON body, or an ApiError from the one error shape. */
export function parseAnswer(status, text) {
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch { body = null; }
  if (status >= 200 && status < 300) return body;
  const error = body && body.error ? body.error : { code: "http_error", message: `HTTP ${status}`, details: {} };
  if (status === 401) onUnauthorized(error.message);
  throw new ApiError(status, error.code, error.message, error.details);
}

/** Call the API: ``api("/search", {json: {...}})``, ``api("/kbs")``. Throws ApiError. */
export async function api(path, { method, json } = {}) {
  const headers = { Accept: "application/json", ...authHeaders() };
  const init = { method: method || (json ? "POST" : "GET"), headers };
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(json);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (exc) {
    throw new ApiError(0, "network_error", `the server could not be reached (${exc.message})`);
  }
  return parseAnswer(response.status, await response.text());
}

/** A block that shows an error: its code, message and details. */
export function errorBox(error) {
  const details = error.details && Object.keys(error.details).length ? JSON.stringify(error.details) : "";
  return el("div", { class: "error", role: "alert" },
    el("strong", {}, error.code || "error"), ": ", error.message,
    details ? el("div", { class: "muted" }, details) : null);
}

/** A two-column table of key/value pairs (values shown by :func:`show`). */
export function kvTable(pairs) {
  return el("table", { class: "table kv" },
    el("tbody", {}, pairs.map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, show(v))))));
}

/** A value for a table cell: text for a scalar, a comma-separated line for a list of scalars, and a
 *  list of "key: value" lines for an object or a list of objects (nested, never raw JSON). */
export function show(value) {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) {
    if (value.every((v) => v === null || typeof v !== "object")) return value.map(show).join(", ");
    return el("ol", { class: "values" }, value.map((v) => el("li", {}, show(v))));
  }
  if (typeof value === "object") {
    const entries = Object.entries(value);
    if (!entries.length) return "";
    return el("ul", { class: "values" }, entries.map(([k, v]) => el("li", {}, el("span", { class: "key" }, `${k}: `),
      show(v))));
  }
  return String(value);
}

/** Options of a <select>: the first one kept (e.g. "all"), then one per value. */
export function setOptions(select, values) {
  const first = select.options[0];
  const current = select.value;
  select.replaceChildren(first, ...values.map((v) => el("option", { value: v }, v)));
  if (values.includes(current)) select.value = current;
}
