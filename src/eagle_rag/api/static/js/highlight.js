// The best matching sentence of a hit (the sentence that shares the most query terms, never a heading
// while a sentence matches) and where the query terms occur, for highlighting.

const STOP = new Set(["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of",
  "on", "or", "the", "to", "with", "what", "which", "how"]);
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const SENTENCE_END = /[.!?。！？:;]\s*$/;
const HEADING_WORDS = 8;

/** Query terms: lower-cased words (no stop words) and, for Chinese text, character bigrams. */
export function queryTerms(query) {
  const terms = new Set();
  for (const word of query.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []) {
    if (CJK.test(word)) {
      const chars = [...word];
      if (chars.length === 1) terms.add(word);
      for (let i = 0; i + 1 < chars.length; i += 1) terms.add(chars[i] + chars[i + 1]);
    } else if (!STOP.has(word)) {
      terms.add(word);
    }
  }
  return [...terms];
}

/** Sentences of ``text`` as [start, end) offsets (split after . ! ? 。 ！ ？ and at line breaks). */
export function sentenceSpans(text) {
  const spans = [];
  const re = /[^.!?。！？\n]+(?:[.!?。！？]+|\n|$)/g;
  let match;
  while ((match = re.exec(text)) !== null) {
    if (match[0].length === 0) { re.lastIndex += 1; continue; }
    if (match[0].trim()) spans.push([match.index, match.index + match[0].length]);
  }
  return spans;
}

/** Whether ``sentence`` is a heading: one of the hit's section names (``headings``, lower-cased), or a
 * short line (at most eight words) that ends without sentence punctuation at a line break. */
export function isHeading(sentence, headings, endsLine) {
  const line = sentence.trim().toLowerCase().replace(/^#+\s*/, "");
  if (headings.includes(line)) return true;
  return endsLine && !SENTENCE_END.test(line) && line.split(/\s+/).length <= HEADING_WORDS && !CJK.test(line);
}

/** ``[start, end]`` of the sentence sharing the most query terms (the first on a tie), or null.
 * A heading (a section name of ``path``, or a short line without sentence punctuation) wins only when
 * no sentence matches any term: the answer is in a sentence, not in the title above it. */
export function bestSentence(text, query, path = "") {
  const terms = queryTerms(query);
  const headings = path.split(" > ").map((h) => h.trim().toLowerCase()).filter(Boolean);
  let best = null;
  let bestScore = 0;
  for (const [start, end] of sentenceSpans(text)) {
    const sentence = text.slice(start, end).toLowerCase();
    const matched = terms.filter((t) => sentence.includes(t)).length;
    const endsLine = end >= text.length || text[end - 1] === "\n" || text[end] === "\n";
    const score = isHeading(sentence, headings, endsLine) ? matched / 100 : matched;
    if (score > bestScore) { best = [start, end]; bestScore = score; }
  }
  return best;
}

/** Where the query terms occur in ``text``: sorted, non-overlapping [start, end) spans; a Latin term
 * matches at the start of a word and runs to the word's end (``dosage`` marks ``dosages``). */
export function termSpans(text, query) {
  const spans = [];
  const lower = text.toLowerCase();
  for (const term of queryTerms(query)) {
    const escaped = term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    const re = CJK.test(term) ? new RegExp(escaped, "gu")
      : new RegExp(`(?<![\\p{L}\\p{N}])${escaped}[\\p{L}\\p{N}]*`, "gu");
    for (const m of lower.matchAll(re)) spans.push([m.index, m.index + m[0].length]);
  }
  spans.sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  const merged = [];
  for (const span of spans) {
    const last = merged[merged.length - 1];
    if (last && span[0] < last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push([...span]);
  }
  return merged;
}
