// The health tab: GET /health (stores), /health/plugins (plugins, hooks, audit), /config (settings in force).

import { $, api, el, errorBox, fill, kvTable, show } from "./core.js";

let settings = [];

function table(headers, rows) {
  return el("table", { class: "table" },
    el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c) => el("td", {}, show(c)))))));
}

async function loadStores() {
  try {
    const health = await api("/health");
    fill("health-stores", el("h2", {}, `Status: `, el("span", { class: `state-${health.status}` }, health.status),
      ` (version ${health.version})`),
    table(["store", "state", "latency ms", "info", "error"], Object.entries(health.stores).map(([name, s]) =>
      [name, s.state, s.latency_ms === null ? "" : s.latency_ms.toFixed(1), s.info, s.error || ""])));
  } catch (error) {
    fill("health-stores", errorBox(error));
  }
}

async function loadPlugins() {
  try {
    const info = await api("/health/plugins");
    fill("health-plugins",
      el("h2", {}, "Plugins"),
      kvTable([["profile", info.profile], ["default namespace", info.default_namespace],
        ["MCP tools", info.mcp_tools.join(", ")], ["MCP error", info.mcp_error || ""]]),
      table(["plugin", "hooks it answers"], info.plugins.map((p) => [p.name, p.hooks.join(", ")])),
      el("h2", {}, "Audit counts"),
      kvTable(Object.entries(info.audit)));
    const decisions = info.recent_decisions.slice().reverse();
    fill("health-decisions", el("h2", {}, `Recent decisions (${decisions.length})`),
      table(["time", "category", "plugin", "summary", "data", "request"], decisions.map((d) =>
        [new Date(d.ts * 1000).toISOString().slice(11, 23), d.category, d.plugin, d.summary, d.data, d.request_id])));
  } catch (error) {
    fill("health-plugins", errorBox(error));
  }
}

function renderConfig() {
  const needle = $("config-filter").value.trim().toLowerCase();
  const rows = settings.filter((s) => !needle || s.key.toLowerCase().includes(needle)
    || s.help.toLowerCase().includes(needle));
  fill("health-config", table(["setting", "value", "source", "help"], rows.map((s) => [s.key, s.value, s.source, s.help])));
}

async function loadConfig() {
  try {
    const config = await api("/config");
    settings = config.settings;
    renderConfig();
  } catch (error) {
    fill("health-config", errorBox(error));
  }
}

export function loadHealth() {
  return Promise.all([loadStores(), loadPlugins(), loadConfig()]);
}

export function initHealth() {
  $("health-refresh").addEventListener("click", loadHealth);
  $("config-filter").addEventListener("input", renderConfig);
}
