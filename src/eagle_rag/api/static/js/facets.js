// Facet counts of a search (the whole matching set, every page) shown as filters: a click narrows the
// search to that value through the form's own filter field, then searches again.

import { $, el, fill, splitList } from "./core.js";

export const FACETS = ["source_type", "doc_type", "section", "year", "kb"];
const LABELS = { source_type: "Source type", doc_type: "Document type", section: "Section", year: "Year",
  kb: "Knowledge base" };

/** Whether ``value`` of ``facet`` is the filter the form holds now. */
function active(facet, value) {
  const lists = { source_type: "source-types", doc_type: "doc-types", section: "sections" };
  if (lists[facet]) return splitList($(lists[facet]).value).length === 1 && $(lists[facet]).value.trim() === value;
  if (facet === "year") return $("date-from").value === value && $("date-to").value === value;
  return $("kb").value === value;
}

/** Put ``value`` of ``facet`` into the form's filter field (the only value of that filter). */
function choose(facet, value) {
  const lists = { source_type: "source-types", doc_type: "doc-types", section: "sections" };
  if (lists[facet]) {
    $(lists[facet]).value = value;
  } else if (facet === "year") {
    $("date-from").value = value;
    $("date-to").value = value;
  } else {
    if (![...$("kb").options].some((o) => o.value === value)) $("kb").append(el("option", { value }, value));
    $("kb").value = value;
  }
}

/** Draw the facets of ``response``; ``search()`` runs when a value is picked. */
export function renderFacets(response, search) {
  const facets = Object.entries(response.facets || {}).filter(([, counts]) => Object.keys(counts).length);
  $("facets").hidden = !facets.length;
  fill("facets", facets.map(([facet, counts]) => el("div", { class: "facet", "data-facet": facet },
    el("h4", {}, LABELS[facet] || facet),
    el("ul", {}, Object.entries(counts).map(([value, count]) => el("li", {},
      el("button", { type: "button", class: active(facet, value) ? "facet-value active" : "facet-value",
        "data-value": value, title: "narrow the search to this value",
        onclick: () => { choose(facet, value); search(); } }, `${value} (${count})`)))))));
}
