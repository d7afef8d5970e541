// The console's entry point: tabs, the API key prompt, and a query in the URL (/?q=...) run on load.

import { $, apiKey, fill, setApiKey, setUnauthorizedHandler } from "./core.js";
import { detectBiomed, initBiomed } from "./biomed.js";
import { initDatasets } from "./datasets.js";
import { initDocuments, listDocuments, openDocument } from "./documents.js";
import { initHealth, loadHealth } from "./health.js";
import { loadKbs } from "./kbs.js";
import { formFromUrl, initSearch, runSearch } from "./search.js";

const loaders = { documents: listDocuments, health: loadHealth, biomed: detectBiomed };
let current = "search";

function showTab(name) {
  current = name;
  for (const button of document.querySelectorAll("#tabs button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const section of document.querySelectorAll("main > section.tab")) {
    section.hidden = section.id !== `tab-${name}`;
  }
  if (loaders[name]) loaders[name]();
}

/** ``#document/KB/ID`` (a hit's title or path) opens that document in the Documents tab. */
async function followHash() {
  const match = location.hash.match(/^#document\/([^/]+)\/(.+)$/);
  if (!match) return;
  const [kb, id] = [decodeURIComponent(match[1]), decodeURIComponent(match[2])];
  showTab("documents");
  await openDocument({ kb_name: kb, id });
}

async function start() {
  await loadKbs();
  const page = formFromUrl();  // after the pickers are filled: an unknown kb in the URL is kept, and refused
  if (page) await runSearch(page);
  await followHash();
}

function initKeyPrompt() {
  setUnauthorizedHandler((message) => {
    $("key-form").hidden = false;
    fill("key-message", apiKey() ? `the key was refused (${message})` : "");
    $("key-input").focus();
  });
  $("key-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    setApiKey($("key-input").value);
    $("key-form").hidden = true;
    fill("key-message");
    await start();
    if (loaders[current]) loaders[current]();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("#tabs button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  initKeyPrompt();
  initSearch();
  initDatasets();
  initDocuments();
  initHealth();
  initBiomed();
  window.addEventListener("hashchange", followHash);
  start();
});
