// The dataset cards tab: POST /datasets/search (catalog search) and POST /datasets/check (id check).

import { $, api, el, errorBox, fill, splitList } from "./core.js";

function searchBody() {
  const body = {
    query: $("ds-q").value.trim(),
    top_k: Math.min(100, Math.max(1, parseInt($("ds-top-k").value, 10) || 10)),
    strict: $("ds-strict").checked, synonyms: $("ds-synonyms").checked, typos: $("ds-typos").checked,
  };
  for (const name of ["languages", "licenses", "tasks", "sources"]) {
    const values = splitList($(`ds-${name}`).value);
    if (values.length) body[name] = values;
  }
  return body;
}

function card(hit) {
  const list = (values) => (values && values.length ? values.join(", ") : "-");
  return el("article", { class: "card", "data-card-id": hit.id },
    el("header", {},
      el("h3", {}, hit.name || hit.id),
      el("span", { class: `badge match match-${hit.match}` }, hit.match)),
    el("div", { class: "muted" }, `${hit.id} · source ${hit.source || "-"} · matched on ${hit.fields || "-"}`
      + (hit.similarity == null ? "" : ` · similarity ${hit.similarity.toFixed(2)}`)),
    el("p", {}, hit.description || ""),
    el("dl", {},
      el("dt", {}, "licence"), el("dd", {}, hit.license || hit.license_id || "-"),
      el("dt", {}, "languages"), el("dd", {}, list(hit.languages)),
      el("dt", {}, "tasks"), el("dd", {}, list(hit.tasks))),
    hit.homepage ? el("div", { class: "muted" }, `homepage: ${hit.homepage}`) : null);
}

// Cards offered when a constraint emptied the answer, or when some card came near: not matches.
function suggestions(reply) {
  const offered = reply.suggestions || [];
  if (!offered.length) return null;
  return el("section", { class: "suggestions", id: "ds-suggestions" },
    el("h3", {}, "Suggestions (not matches)"),
    el("ul", {}, offered.map((s) => el("li", { "data-card-id": s.id },
      `${s.name} (${s.id})`,
      s.similarity == null ? "" : ` · similarity ${s.similarity.toFixed(2)}`,
      (s.fails || []).length ? ` · fails ${s.fails.join(", ")}` : ""))));
}

function unsatisfied(reply) {
  const failed = reply.unsatisfied || [];
  if (!failed.length) return null;
  return el("p", { class: "constraint", id: "ds-constraint" }, "Emptied by: ",
    failed.map((c) => `${c.excluded ? "excluded " : ""}${c.kind} "${c.term}" (${c.cards} of ${c.of} cards)`).join("; "));
}

async function searchCards() {
  const body = searchBody();
  if (!body.query) return;
  fill("ds-summary", "Searching…");
  try {
    const reply = await api("/datasets/search", { json: body });
    const counts = Object.entries(reply.counts || {}).map(([kind, n]) => `${n} ${kind}`).join(", ");
    // the reply's "Ask for more cards" names this tab's own control (eagle_rag_datasets/reply/advice.py)
    const message = (reply.message || "").replace("Ask for more cards",
      `Raise Cards (at most ${$("ds-top-k").max})`);
    fill("ds-summary", message, counts ? ` [${counts}]` : "",
      reply.partial_hidden ? ` (${reply.partial_hidden} partial matches hidden by strict)` : "");
    const exclusions = reply.exclusions || [];
    $("ds-exclusions").hidden = exclusions.length === 0;
    fill("ds-exclusions", el("ul", {}, exclusions.map((x) => el("li", {},
      `filter ${x.filter} (${(x.values || []).join(", ")}) excludes ${x.excluded_matches} matching cards`))));
    fill("ds-cards", unsatisfied(reply), ...reply.hits.map(card), suggestions(reply));
  } catch (error) {
    fill("ds-summary");
    fill("ds-cards", errorBox(error));
  }
}

async function checkIds() {
  const ids = splitList($("check-ids").value);
  if (!ids.length) return;
  try {
    const reply = await api("/datasets/check", { json: { ids } });
    const rows = [
      ...(reply.known || []).map((id) => [id, "known", id]),
      ...Object.entries(reply.resolved || {}).map(([given, id]) => [given, "resolved", id]),
      ...Object.entries(reply.ambiguous || {}).map(([given, ids2]) => [given, "ambiguous", [].concat(ids2).join(", ")]),
      ...(reply.unknown || []).map((id) => [id, "unknown", ""]),
    ];
    fill("check-result", el("table", { class: "table" },
      el("thead", {}, el("tr", {}, el("th", {}, "given"), el("th", {}, "verdict"), el("th", {}, "catalog id"))),
      el("tbody", {}, rows.map(([given, verdict, id]) => el("tr", { class: `verdict-${verdict}` },
        el("td", {}, given), el("td", {}, verdict), el("td", {}, id))))));
  } catch (error) {
    fill("check-result", errorBox(error));
  }
}

export function initDatasets() {
  $("datasets-form").addEventListener("submit", (event) => { event.preventDefault(); searchCards(); });
  $("check-form").addEventListener("submit", (event) => { event.preventDefault(); checkIds(); });
}
