// A hit's score trail (explain=true) as a small SVG bar chart: one bar per stage, longer for a better rank.

const SVG = "http://www.w3.org/2000/svg";
const ROW = 16;
const LABEL = 110;
const BAR = 150;
const WIDTH = LABEL + BAR + 150;

function svg(tag, attrs, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

function formatScore(score) {
  const abs = Math.abs(score);
  return abs !== 0 && (abs < 0.001 || abs >= 1000) ? score.toExponential(2) : score.toFixed(4);
}

/** The chart of ``trail`` (a list of {stage, rank, score, detail}); bar length is 1 / rank. */
export function trailChart(trail) {
  const height = ROW * trail.length + 4;
  const chart = svg("svg", { class: "trail", width: WIDTH, height, viewBox: `0 0 ${WIDTH} ${height}`,
    role: "img", "aria-label": "score trail: rank and score per stage" });
  trail.forEach((entry, i) => {
    const y = i * ROW + 2;
    const length = Math.max(2, BAR / Math.max(1, entry.rank));
    const row = svg("g", { "data-stage": entry.stage });
    row.append(svg("text", { x: 0, y: y + 11, class: "trail-stage" }, entry.stage));
    row.append(svg("rect", { x: LABEL, y: y + 2, width: BAR, height: ROW - 5, class: "trail-track" }));
    row.append(svg("rect", { x: LABEL, y: y + 2, width: length, height: ROW - 5, class: "trail-bar" }));
    const detail = Object.entries(entry.detail || {}).map(([k, v]) => `${k} ${formatScore(v)}`).join(", ");
    row.append(svg("text", { x: LABEL + BAR + 6, y: y + 11, class: "trail-value" },
      `#${entry.rank} · ${formatScore(entry.score)}`));
    row.append(svg("title", {}, `${entry.stage}: rank ${entry.rank}, score ${entry.score}${detail ? `; ${detail}` : ""}`));
    chart.append(row);
  });
  return chart;
}
