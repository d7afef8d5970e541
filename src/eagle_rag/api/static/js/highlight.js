// The best matching sentence of a hit: the sentence that shares the most query terms.

const STOP = new Set(["a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of",
  "on", "or", "the", "to", "with", "what", "which", "how"]);
const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;

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

/** ``[start, end]`` of the sentence sharing the most query terms (the first on a tie), or null.
 * A line that only repeats the section heading (``heading``) wins only when nothing else matches. */
export function bestSentence(text, query, heading = "") {
  const terms = queryTerms(query);
  const title = heading.trim().toLowerCase();
  let best = null;
  let bestScore = 0;
  for (const [start, end] of sentenceSpans(text)) {
    const sentence = text.slice(start, end).toLowerCase();
    const matched = terms.filter((t) => sentence.includes(t)).length;
    const score = title && sentence.trim() === title ? matched / 2 : matched;
    if (score > bestScore) { best = [start, end]; bestScore = score; }
  }
  return best;
}
