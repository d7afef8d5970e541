// The search tab: POST /search with explain=true; hits with their best sentence and score trail.

import { $, api, ApiError, el, errorBox, fill, splitList } from "./core.js";
import { bestSentence, termSpans } from "./highlight.js";
import { trailChart } from "./trail.js";
import { FACETS, renderFacets } from "./facets.js";

const state = { page: 1, pagingSupported: true, last: null };
// list filters of the form: request field, input id, URL parameter
const LIST_FILTERS = [["tags", "tags", "tags"], ["document_ids", "doc-ids", "ids"],
  ["source_types", "source-types", "source"], ["doc_types", "doc-types", "type"], ["sections", "sections", "section"]];
const DATE_FILTERS = [["published_from", "date-from", "from"], ["published_to", "date-to", "to"]];
// result options (numbers): request field, input id, URL parameter, parser
const NUMBER_OPTIONS = [["recency", "recency", "recency", parseFloat],
  ["max_per_document", "max-per-doc", "per_doc", (v) => parseInt(v, 10)], ["diversity", "diversity", "diversity", parseFloat]];

function formRequest() {
  const topK = Math.min(100, Math.max(1, parseInt($("top-k").value, 10) || 10));
  const body = { query: $("q").value.trim(), top_k: topK, mode: $("mode").value, explain: true };
  if ($("kb").value) body.kb_names = [$("kb").value];
  for (const [field, id] of LIST_FILTERS) {
    const values = splitList($(id).value);
    if (values.length) body[field] = values;
  }
  for (const [field, id] of DATE_FILTERS) {
    if ($(id).value.trim()) body[field] = $(id).value.trim();
  }
  for (const [field, id, , parse] of NUMBER_OPTIONS) {
    const value = parse($(id).value);
    if (!Number.isNaN(value)) body[field] = value;
  }
  body.facets = FACETS;
  return body;
}

/** Write the search into the address bar, so it can be linked and bookmarked. */
function syncUrl(body, page) {
  const params = new URLSearchParams({ q: body.query });
  if (body.mode !== "hybrid") params.set("mode", body.mode);
  if (body.kb_names) params.set("kb", body.kb_names[0]);
  for (const [field, , param] of LIST_FILTERS) if (body[field]) params.set(param, body[field].join(","));
  for (const [field, , param] of DATE_FILTERS) if (body[field]) params.set(param, body[field]);
  for (const [field, , param] of NUMBER_OPTIONS) if (body[field] !== undefined) params.set(param, String(body[field]));
  if (body.top_k !== 10) params.set("k", String(body.top_k));
  if (page > 1) params.set("page", String(page));
  history.replaceState(null, "", `/?${params}`);
}

/** Fill the form from the address bar; returns the page asked for, or 0 when there is no query. */
export function formFromUrl() {
  const params = new URLSearchParams(location.search);
  const q = params.get("q");
  if (!q) return 0;
  $("q").value = q;
  if (params.get("mode")) $("mode").value = params.get("mode");
  if (params.get("kb")) {
    const kb = params.get("kb");
    if (![...$("kb").options].some((o) => o.value === kb)) $("kb").append(el("option", { value: kb }, kb));
    $("kb").value = kb;
  }
  for (const [, id, param] of [...LIST_FILTERS, ...DATE_FILTERS, ...NUMBER_OPTIONS]) $(id).value = params.get(param) || "";
  if (params.get("k")) $("top-k").value = params.get("k");
  return Math.max(1, parseInt(params.get("page"), 10) || 1);
}

let latestSearch = 0;  // the answer of a search that a newer one superseded is dropped, never drawn over it

export async function runSearch(page = 1) {
  const body = formRequest();
  if (!body.query) return;
  const mine = ++latestSearch;
  if (page > 1) body.offset = (page - 1) * body.top_k;  // sent only when paging (older servers refuse it)
  state.page = page;
  syncUrl(body, page);
  fill("search-summary", "Searching…");
  let response;
  try {
    response = await api("/search", { json: body });
  } catch (error) {
    if (mine !== latestSearch) return;
    if (!(error instanceof ApiError)) throw error;
    const pagingRefused = page > 1 && error.status >= 400 && error.status < 500
      && JSON.stringify(error.details).includes("offset");
    if (pagingRefused) {
      state.pagingSupported = false;
      fill("search-summary", "This server does not page through results (no offset support): "
        + "raise the hits per page instead.");
      updatePager(null, body);
      return;
    }
    fill("search-summary");
    $("facets").hidden = true;
    fill("hits", el("li", {}, errorBox(error)));
    $("search-empty").hidden = true;
    return;
  }
  if (mine !== latestSearch) return;
  state.last = response;
  renderResponse(response, body);
}

function renderResponse(response, body) {
  const offset = body.offset || 0;
  const hits = response.hits;
  $("search-empty").hidden = hits.length > 0;
  if (!hits.length) renderEmpty(response);
  const parts = [];
  if (hits.length) {
    const relation = response.total_relation === "gte" ? "at least " : "";
    const total = response.total_relation ? ` of ${relation}${response.total}` : "";
    parts.push(`Hits ${offset + 1}–${offset + hits.length}${total}.`);
    parts.push(response.exhaustive ? " This is the complete list: no other indexed text matched."
      : " More matches may exist.");
  }
  if (response.undated) {
    parts.push(` ${response.undated} matching hit${response.undated === 1 ? " has" : "s have"} no publication date:`
      + " recency did not decay them.");
  }
  const collapsed = response.dropped && response.dropped.max_per_document;
  if (collapsed) parts.push(` ${collapsed} more chunk${collapsed === 1 ? "" : "s"} of the same documents left out.`);
  const ms = response.timings_ms && response.timings_ms.total;
  if (ms !== undefined) parts.push(` (${ms.toFixed(0)} ms)`);
  for (const warning of response.warnings || []) parts.push(` Warning: ${warning}.`);
  fill("search-summary", parts.join(""));
  fill("hits", hits.map((hit, i) => renderHit(hit, offset + i + 1, body.query)));
  renderFacets(response, () => { state.pagingSupported = true; runSearch(1); });
  updatePager(response, body);
}

function renderEmpty(response) {
  const excluded = Object.entries(response.excluded_by_filter || {});
  const values = Object.entries(response.filter_values || {});
  fill("search-empty",
    el("p", { class: "empty-reason" }, "No results: ", el("strong", {}, response.empty_reason || "nothing matched")),
    excluded.length ? el("ul", { class: "exclusions" }, excluded.map(([name, count]) =>
      el("li", {}, `the ${name} filter alone excludes ${count} document${count === 1 ? "" : "s"}`))) : null,
    values.length ? el("ul", { class: "filter-values" }, values.map(([name, found]) =>
      el("li", {}, `${name} of the documents the query matches: ${found.join(", ") || "none"}`))) : null);
}

/** ``text`` from ``start`` to ``end`` with the query terms in it marked. */
function withTerms(text, start, end, spans) {
  const out = [];
  let at = start;
  for (const [s, e] of spans) {
    if (e <= start || s >= end) continue;
    const from = Math.max(s, start);
    const to = Math.min(e, end);
    if (from > at) out.push(text.slice(at, from));
    out.push(el("mark", { class: "term" }, text.slice(from, to)));
    at = to;
  }
  if (at < end) out.push(text.slice(at, end));
  return out;
}

function highlighted(text, query, path) {
  const terms = termSpans(text, query);
  const span = bestSentence(text, query, path || "");
  if (!span) return el("p", { class: "hit-text" }, ...withTerms(text, 0, text.length, terms));
  const [start, end] = span;
  return el("p", { class: "hit-text" }, ...withTerms(text, 0, start, terms),
    el("mark", { class: "best" }, ...withTerms(text, start, end, terms)), ...withTerms(text, end, text.length, terms));
}

/** The console address of a document's view (the Documents tab opens it: main.js). */
export function documentHref(kb, id) {
  return `#document/${encodeURIComponent(kb)}/${encodeURIComponent(id)}`;
}

/** The hit's relevance as a percentage (the calibrated probability); the raw score stays in the trail.
 * Without a fitted model (relevance null) the raw score is shown, named as such. */
function relevanceBadge(hit) {
  if (hit.relevance === null || hit.relevance === undefined) {
    return el("span", { class: "score", title: "no relevance model for this profile and mode" }, `score ${hit.score}`);
  }
  return el("span", { class: "score relevance", title: `probability that the hit is relevant; raw score ${hit.score}` },
    `${Math.round(hit.relevance * 100)}% relevant`);
}

function renderHit(hit, rank, query) {
  const meta = hit.metadata || {};
  const title = meta.document_name || hit.document_id;
  const href = documentHref(hit.kb_name || meta.kb_name || "", hit.document_id);
  return el("li", { class: "hit", "data-document-id": hit.document_id },
    el("div", { class: "hit-head" },
      el("span", { class: "rank" }, `${rank}.`),
      el("h3", { class: "hit-title" }, el("a", { href, class: "doc-link", title: "open the document" }, title)),
      el("span", { class: `badge match match-${hit.match}`, title: "why it matched" }, hit.match),
      relevanceBadge(hit)),
    el("div", { class: "hit-path" }, el("a", { href, class: "doc-link" }, hit.path || "(no section)")),
    el("div", { class: "muted" }, `${hit.document_id} · ${hit.collection} · kb ${meta.kb_name || ""}`),
    highlighted(hit.text, query, hit.path),
    hit.trail && hit.trail.length ? trailChart(hit.trail) : null);
}

function updatePager(response, body) {
  const more = response && !response.exhaustive && response.hits.length === body.top_k;
  $("prev-page").disabled = state.page <= 1;
  $("next-page").disabled = !(more && state.pagingSupported);
  fill("page-label", response ? `page ${state.page}` : "");
}

export function initSearch() {
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.pagingSupported = true;
    runSearch(1);
  });
  $("prev-page").addEventListener("click", () => runSearch(Math.max(1, state.page - 1)));
  $("next-page").addEventListener("click", () => runSearch(state.page + 1));
}
