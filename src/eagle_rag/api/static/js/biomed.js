// The compounds and entities tab: POST /biomed/compounds and GET /biomed/entities/{name} (biomed plugin).

import { $, api, el, errorBox, fill, kvTable } from "./core.js";

let available = null;

/** Whether this server serves the biomed routes (they are in its OpenAPI schema). */
export async function detectBiomed() {
  if (available !== null) return available;
  try {
    const schema = await fetch("/openapi.json").then((r) => r.json());
    available = Boolean(schema.paths && schema.paths["/biomed/compounds"]);
  } catch {
    available = false;
  }
  $("biomed-forms").hidden = !available;
  fill("biomed-status", available ? "Structure similarity (Morgan fingerprints, Tanimoto) and entity lookup."
    : "This server does not serve the biomedical routes: it runs the general profile; start it with "
      + "the biomed profile (the default: unset EAGLE_RAG_PROFILE, or EAGLE_RAG_PROFILE=biomed).");
  return available;
}

async function searchCompounds() {
  const query = $("compound-q").value.trim();
  if (!query) return;
  const topK = Math.min(50, Math.max(1, parseInt($("compound-k").value, 10) || 10));
  try {
    const reply = await api("/biomed/compounds", { json: { query, top_k: topK } });
    const resolved = `query structure ${reply.resolved_smiles}`
      + (reply.resolved_name ? ` (${reply.resolved_name}, resolved by ${reply.resolved_by})` : "");
    // a weak structural neighbour (Tanimoto 0.1: hardly any shared substructure) is not a similar compound
    const floor = Math.min(1, Math.max(0, parseFloat($("compound-min").value) || 0));
    const hits = reply.hits.filter((h) => h.similarity >= floor);
    const below = reply.hits.length - hits.length;
    const cut = below ? ` ${below} more under Tanimoto ${floor.toFixed(2)} not shown (lower the minimum to see them).`
      : "";
    fill("compound-result",
      el("p", { class: "summary" }, (hits.length
        ? `${hits.length} of ${reply.total_indexed} indexed compounds; ${resolved}.`
        : reply.hits.length ? `No compound is at least ${floor.toFixed(2)} similar (Tanimoto); ${resolved}.`
          : `No results: none of the ${reply.total_indexed} indexed compounds is in the searched kbs; ${resolved}.`)
        + cut),
      el("table", { class: "table" },
        el("thead", {}, el("tr", {}, ["#", "compound", "id", "kb", "SMILES", "Tanimoto"].map((h) => el("th", {}, h)))),
        el("tbody", {}, hits.map((h) => el("tr", { "data-compound-id": h.compound_id },
          el("td", {}, String(h.rank)), el("td", {}, h.name), el("td", { class: "mono" }, h.compound_id),
          el("td", {}, h.kb_name), el("td", { class: "mono" }, h.smiles),
          el("td", { class: "tanimoto" }, el("meter", { min: "0", max: "1", value: String(h.similarity) }),
            ` ${h.similarity.toFixed(3)}`))))));
  } catch (error) {
    fill("compound-result", errorBox(error));
  }
}

async function lookupEntity() {
  const name = $("entity-q").value.trim();
  if (!name) return;
  try {
    const reply = await api(`/biomed/entities/${encodeURIComponent(name)}`);
    const list = (values) => (values && values.length ? values.join(", ") : "-");
    if (!reply.found) {
      const close = (reply.close_matches || []).map((m) => m.entity);
      fill("entity-result", el("p", { class: "empty" }, `No entity named "${reply.entity}" in the vocabulary.`,
        close.length ? ` Close names: ${close.join(", ")}.` : ""));
      return;
    }
    fill("entity-result", el("h3", {}, reply.entity),
      kvTable([["type", reply.type], ["CUI", reply.cui], ["aliases", list(reply.aliases)],
        ["pathways", list(reply.pathways)], ["related drugs", list(reply.related_drugs)],
        ["source", reply.source], ["ids", Object.entries(reply.ids || {}).map(([k, v]) => `${k}: ${v}`).join(", ")]]));
  } catch (error) {
    fill("entity-result", errorBox(error));
  }
}

export function initBiomed() {
  $("compound-form").addEventListener("submit", (event) => { event.preventDefault(); searchCompounds(); });
  $("entity-form").addEventListener("submit", (event) => { event.preventDefault(); lookupEntity(); });
}
