// The documents tab: list (GET /documents), open (GET /kbs/{kb}/documents/{id}/chunks), delete, upload (POST /ingest).

import { $, api, ApiError, authHeaders, el, errorBox, fill, kvTable, parseAnswer } from "./core.js";
import { loadKbs } from "./kbs.js";

const PAGE = 50;
const state = { offset: 0 };

function query() {
  const params = new URLSearchParams({ limit: String(PAGE), offset: String(state.offset) });
  if ($("docs-kb").value) params.set("kb_name", $("docs-kb").value);
  if ($("docs-status").value) params.set("status", $("docs-status").value);
  if ($("docs-type").value.trim()) params.set("type", $("docs-type").value.trim());
  return params;
}

export async function listDocuments() {
  try {
    const reply = await api(`/documents?${query()}`);
    const last = Math.min(reply.total, reply.offset + reply.documents.length);
    fill("docs-summary", reply.total ? `Documents ${reply.offset + 1}–${last} of ${reply.total}.`
      : "No document matches these filters.");
    fill("docs-rows", reply.documents.map(row));
    $("docs-prev").disabled = state.offset === 0;
    $("docs-next").disabled = last >= reply.total;
    fill("docs-page", `page ${Math.floor(state.offset / PAGE) + 1}`);
  } catch (error) {
    fill("docs-summary", errorBox(error));
    fill("docs-rows");
  }
}

function row(doc) {
  return el("tr", { "data-document-id": doc.id },
    el("td", { class: "wrap" }, doc.name), el("td", { class: "mono wrap" }, doc.id), el("td", {}, doc.kb_name),
    el("td", {}, doc.type), el("td", { title: doc.error || null }, doc.status), el("td", {}, String(doc.chunk_count)),
    el("td", { class: "nowrap" }, doc.updated_at.slice(0, 19).replace("T", " ")),
    el("td", {},
      el("button", { type: "button", class: "open", onclick: () => openDocument(doc) }, "Open"),
      el("button", { type: "button", class: "delete danger", onclick: () => deleteDocument(doc) }, "Delete")));
}

// A document is named by its kb and its id (the same id may live in several kbs).
const documentPath = (doc) => `/kbs/${encodeURIComponent(doc.kb_name)}/documents/${encodeURIComponent(doc.id)}`;

/** Show one document (``{kb_name, id}``) in the detail panel and scroll to it. */
export async function openDocument(listed) {
  const panel = $("doc-detail");
  panel.hidden = false;
  fill(panel, "Loading…");
  panel.scrollIntoView({ block: "start" });
  try {
    const reply = await api(`${documentPath(listed)}/chunks?limit=500`);
    const doc = reply.document;
    fill(panel,
      el("h2", {}, doc.name),
      kvTable([["id", doc.id], ["kb", doc.kb_name], ["source", doc.source_uri], ["type", doc.type],
        ["status", doc.status], ["tags", doc.tags.join(", ")], ["chunks", reply.total], ["updated", doc.updated_at]]),
      el("h3", {}, "Sections"),
      el("ol", { class: "sections" }, reply.sections.map((s) => el("li", {}, s))),
      el("h3", {}, "Chunks"),
      el("ol", { class: "chunks" }, reply.chunks.map((c) => el("li", { class: "chunk" },
        el("div", { class: "hit-path" }, c.path || "(no section)"),
        el("div", { class: "muted" }, `collection ${c.collection} · encoder ${c.encoder} · ${c.chunk_type}`,
          c.primary_drugs.length ? ` · primary drugs: ${c.primary_drugs.join(", ")}` : ""),
        el("p", { class: "hit-text" }, c.text)))),
      reply.total > reply.chunks.length ? el("p", { class: "muted" },
        `first ${reply.chunks.length} of ${reply.total} chunks shown`) : null);
    panel.scrollIntoView({ block: "start" });
  } catch (error) {
    fill(panel, errorBox(error));
  }
}

async function deleteDocument(doc) {
  if (!window.confirm(`Delete "${doc.name}" (${doc.id}) from every store? This cannot be undone.`)) return;
  try {
    await api(documentPath(doc), { method: "DELETE" });
    $("doc-detail").hidden = true;
    await loadKbs();  // the last document of a kb takes the kb with it
    await listDocuments();
  } catch (error) {
    fill("docs-summary", errorBox(error));
  }
}

/** POST /ingest for one file, reporting upload progress; resolves to the ingest report. */
function uploadOne(file, kb, progress) {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append("files", file, file.name);
    form.append("kb_name", kb);
    const xhr = new XMLHttpRequest();
    xhr.open("POST", "/ingest");
    for (const [name, value] of Object.entries(authHeaders())) xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) progress.value = event.loaded / event.total;
    };
    xhr.onload = () => {
      try { resolve(parseAnswer(xhr.status, xhr.responseText)); } catch (error) { reject(error); }
    };
    xhr.onerror = () => reject(new ApiError(0, "network_error", "the upload failed: the server could not be reached"));
    xhr.send(form);
  });
}

const SHOWN_REASONS = 10;

/** Per file of an ingest report: its record counts, why reading stopped early, and the reasons of its
 *  first SHOWN_REASONS bad records (from files_detail and record_failures; text nodes only). */
function recordReport(report) {
  const failures = report.record_failures || [];
  return (report.files_detail || []).map((counts) => {
    const bad = failures.filter((f) => f.file === counts.path);
    return el("div", { class: "record-report", "data-path": counts.path },
      el("div", { class: counts.failed ? "file-counts error-text" : "file-counts" },
        `${counts.path.split("/").pop()}: ${counts.records} record(s), ${counts.ingested} ingested, `
        + `${counts.skipped} unchanged, ${counts.failed} bad`),
      counts.stopped ? el("div", { class: "stopped error-text" }, counts.stopped) : null,
      bad.length ? el("ol", { class: "record-failures" }, bad.slice(0, SHOWN_REASONS).map(badRecord)) : null,
      bad.length > SHOWN_REASONS ? el("div", { class: "muted" }, `… and ${bad.length - SHOWN_REASONS} more bad records`)
        : null);
  });
}

function badRecord(failure) {
  const where = failure.line === null || failure.line === undefined ? `record ${failure.record}` : `line ${failure.line}`;
  const id = failure.record_id === null || failure.record_id === undefined ? "" : ` (id ${failure.record_id})`;
  return el("li", { "data-record": failure.record }, `${where}${id}: ${failure.reason}`);
}

async function uploadFiles() {
  const kb = $("upload-kb").value.trim();
  const files = [...$("upload-files").files];
  for (const file of files) {
    const progress = el("progress", { max: "1", value: "0" });
    const status = el("span", { class: "upload-status" }, "uploading…");
    const item = el("li", { class: "upload", "data-file": file.name }, el("span", {}, file.name), progress, status);
    $("upload-list").append(item);
    try {
      const report = await uploadOne(file, kb, progress);
      progress.value = 1;
      const failures = report.failures || [];
      const badRecords = (report.record_failures || []).length;
      status.className = failures.length ? "upload-status error-text" : "upload-status ok";
      fill(status, failures.length ? `failed: ${failures.map((f) => f.error).join("; ")}`
        : `ingested into ${report.kb_name}: ${report.documents} document(s), ${report.chunks} chunks`
          + (report.skipped_unchanged ? `, ${report.skipped_unchanged} unchanged` : "")
          + (badRecords ? `, ${badRecords} bad record(s)` : ""));
      item.append(...recordReport(report));
    } catch (error) {
      status.className = "upload-status error-text";
      const report = (error.details && error.details.report) || {};
      const failures = report.failures || [];
      fill(status, `failed: ${error.message}`, failures.length ? ` (${failures.map((f) => f.error).join("; ")})` : "");
      item.append(...recordReport(report));
    }
  }
  $("upload-files").value = "";
  await loadKbs();
  await listDocuments();
}

export function initDocuments() {
  $("docs-filter").addEventListener("submit", (event) => { event.preventDefault(); state.offset = 0; listDocuments(); });
  $("docs-prev").addEventListener("click", () => { state.offset = Math.max(0, state.offset - PAGE); listDocuments(); });
  $("docs-next").addEventListener("click", () => { state.offset += PAGE; listDocuments(); });
  $("upload-form").addEventListener("submit", (event) => { event.preventDefault(); uploadFiles(); });
}
