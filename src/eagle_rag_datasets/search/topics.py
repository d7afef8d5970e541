"""Topics a request names that no card mentions: a disease, an organism or a procedure of MeSH ("sepsis
prediction from ICU vitals", "malaria abstracts", "乳腺癌患者的中文病历", "radiotherapy planning notes").

The vocabulary is the MeSH descriptors of ``data/topics.tsv.gz`` (:mod:`..catalog.topic_build`). A request
names a descriptor by one of its entry terms ("breast cancer", "insomnia"), as whole words in small letters (a
plural's "s" aside; the longest term wins); Chinese words are read through their English gloss
(:mod:`..catalog.gloss`: 麻醉 -> anesthesia), words of one character left out. What a negation rules out, and
examples (in brackets, after "such as", "e.g.", "比如"), are not asked for and name no topic. The cards mention a
descriptor when each word of one of its terms, or of a narrower descriptor's (its tree numbers' descendants), is
said by some card, stemmed, alone or with an ending (``mentions``, given by the catalog): a card on "breast cancer"
mentions neoplasms. A topic no card mentions is a
constraint no card satisfies: the answer is empty and says so ("no card in the catalog mentions sepsis (0 of
386)"), with the nearest cards as suggestions. A topic some card mentions constrains nothing: the ranking
weighs it. Country and language names ("Turkey") are not topics. Rules and figures: docs/datasets.md, section 5.
"""

from __future__ import annotations

import bisect
import gzip
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import ahocorasick

from eagle_rag_datasets.catalog.gloss import CJK_RUN, FUNCTION_WORDS, Glossary
from eagle_rag_datasets.search.constraints import Constraint, ConstraintKind, negated_spans

TOPICS_FILE = Path(__file__).parents[1] / "data" / "topics.tsv.gz"
EXAMPLES = re.compile(
    r"\([^)]*\)|（[^）]*）|\b(?:such as|like|e\.g\.|for example|for instance|including)\b[^.;:!?]*"
    r"|(?:比如|例如|譬如|诸如)[^。；;！？]*", re.IGNORECASE)
"""Examples in a request ("risk factors (hypertension, hyperlipidemia ...)", "症状比如头痛"): named to illustrate,
not asked for."""


@dataclass
class TopicVocabulary:
    """MeSH descriptors: their terms and their places in the tree."""

    asked: dict[str, set[str]] = field(default_factory=dict)
    """Lower-cased term (either number) -> the descriptors it names."""
    said: dict[str, list[str]] = field(default_factory=dict)
    """Descriptor -> its terms."""
    trees: dict[str, list[str]] = field(default_factory=dict)
    numbers: list[tuple[str, str]] = field(default_factory=list)
    """(tree number, descriptor), sorted: a descriptor's descendants follow its tree numbers."""
    automaton: ahocorasick.Automaton | None = None

    @classmethod
    def load(cls, path: Path = TOPICS_FILE, skip: frozenset[str] = frozenset()) -> TopicVocabulary:
        """Read the vocabulary file; ``skip``: lower-cased words that are no topic (country and language names)."""
        vocab = cls()
        with gzip.open(path, "rt", encoding="utf-8") as handle:
            for line in handle:
                if line.startswith("#"):
                    continue
                ui, trees, terms = line.rstrip("\n").split("\t")
                vocab.trees[ui] = trees.split("|")
                vocab.said[ui] = [t for t in terms.split("|") if t]
                for term in vocab.said[ui]:
                    forms = _forms(term.lower())
                    if not skip.intersection(forms):
                        for form in forms:
                            vocab.asked.setdefault(form, set()).add(ui)
        vocab.numbers = sorted((tree, ui) for ui, trees in vocab.trees.items() for tree in trees)
        automaton = ahocorasick.Automaton()
        for form in vocab.asked:
            automaton.add_word(form, form)
        automaton.make_automaton()
        vocab.automaton = automaton
        return vocab

    def named(self, text: str) -> list[tuple[str, set[str]]]:
        """``(term, descriptors)`` for the whole-word terms of lower-cased ``text``, longest first, not overlapping."""
        return [(form, self.asked[form]) for _, _, form in self.spans(text)]

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """``(start, end, term)`` of :meth:`named`'s terms, in the order of ``text``."""
        if self.automaton is None:
            return []
        found = []
        for end, form in self.automaton.iter(text):
            start = end - len(form) + 1
            if (start == 0 or not text[start - 1].isalnum()) and (end + 1 == len(text) or not text[end + 1].isalnum()):
                found.append((start, end + 1, form))
        out: list[tuple[int, int, str]] = []
        for start, end, form in sorted(found, key=lambda m: m[0] - m[1]):
            if all(end <= s or start >= e for s, e, _ in out):
                out.append((start, end, form))
        return sorted(out)

    def descendants(self, ui: str) -> set[str]:
        """``ui`` and every descriptor under one of its tree numbers."""
        out = {ui}
        for tree in self.trees.get(ui, ()):
            start = bisect.bisect_right(self.numbers, (tree, "~"))
            while start < len(self.numbers) and self.numbers[start][0].startswith(tree + "."):
                out.add(self.numbers[start][1])
                start += 1
        return out


def _forms(term: str) -> tuple[str, ...]:
    """A term and its other number ("vaccines" / "vaccine"), by a final "s" only."""
    other = term[:-1] if term.endswith("s") and not term.endswith("ss") else term + "s"
    return (term, other) if len(other) >= 4 else (term,)


_VOCABULARY: list[TopicVocabulary] = []
_LOCK = threading.Lock()


def default_vocabulary(skip: frozenset[str]) -> TopicVocabulary:
    """The bundled vocabulary, read once per process (about a second)."""
    with _LOCK:
        if not _VOCABULARY:
            _VOCABULARY.append(TopicVocabulary.load(skip=skip))
        return _VOCABULARY[0]


JOINERS = {"和": "and", "与": "and", "及": "and", "以及": "and", "跟": "and", "或": "or", "或者": "or"}
"""Chinese words that join the members of a list, kept as English joining words so that a list of topics reads as one
(:data:`LIST_GAP`: "疟疾和乳腺癌"), and topics glossed side by side do not ("小麦病害": wheat, disease)."""


def asked_english(query: str, glossary: Glossary | None) -> str:
    """``query`` in small letters without what it rules out or gives as an example, its Chinese words of two
    characters or more glossed in English (words of one character left out: 注 is not "inject" in 图注)."""
    spans = negated_spans(query)
    text = "".join(" " if any(a <= i < b for a, b in spans) else ch for i, ch in enumerate(query))
    text = EXAMPLES.sub(" ", text)
    if glossary is not None:
        text = CJK_RUN.sub(lambda m: " " + " ".join(
            JOINERS.get(w) or glossary.words[w] for w in glossary.segment(m.group())
            if w in JOINERS or (len(w) > 1 and w not in FUNCTION_WORDS and w in glossary.words)) + " ", text)
    return " ".join(text.lower().split())


def topic_constraints(query: str, vocabulary: TopicVocabulary, glossary: Glossary | None,
                      mentions: Callable[[str], bool], found: Sequence[Constraint] = ()) -> list[Constraint]:
    """The topics ``query`` names that no card mentions, each a constraint no card satisfies;
    ``mentions(term)``: whether some card's text holds every word of ``term``; ``found``: the query's other
    constraints: a topic sharing a word with one of them says it again ("Arabidopsis thaliana" after the species
    Arabidopsis, "sign language" after the modality 手语) and is left out."""
    taken = set()
    for constraint in found:
        for text in (constraint.term, *constraint.alternatives):
            english = glossary.gloss(text) if glossary is not None and CJK_RUN.search(text) else text
            taken.update(re.findall(r"[a-z0-9]+", english.lower().replace("_", " ")))
    out: dict[str, Constraint] = {}
    for group in _lists(asked_english(query, glossary), vocabulary):
        terms = [t for t in group if not taken.intersection(re.findall(r"[a-z0-9]+", t))]
        unsaid = [t for t in terms if not _mentioned(t, vocabulary, mentions)]
        if len(unsaid) < len(terms):  # a list is asked for as alternatives: one member some card mentions will do
            continue
        for term in unsaid:
            out.setdefault(term, Constraint(ConstraintKind.TOPIC, term, term, frozenset()))
    return list(out.values())


LIST_GAP = re.compile(r"^\s*(?:(?:[,、/]\s*)+(?:(?:and|or)\s+)?|(?:and|or|and/or|as well as)\s+)(?:[a-z-]+\s+){0,2}$")
"""What may stand between two topics of one list ("melanoma, liver cancer and hereditary colorectal cancer"): a comma
or a joining word (Chinese ones glossed as English ones, :data:`JOINERS`), then at most two words (the next member's
own qualifiers)."""


def _mentioned(term: str, vocabulary: TopicVocabulary, mentions: Callable[[str], bool]) -> bool:
    """Whether some card mentions a descriptor ``term`` names, or a narrower one."""
    wider = set().union(*(vocabulary.descendants(d) for d in vocabulary.asked[term]))
    return any(mentions(said) for d in wider for said in vocabulary.said[d])


def _lists(text: str, vocabulary: TopicVocabulary) -> list[list[str]]:
    """The topics of ``text`` grouped into the lists they are named in, in order."""
    groups: list[list[str]] = []
    last = -1
    for start, end, term in vocabulary.spans(text):
        if groups and LIST_GAP.match(text[last:start]):
            groups[-1].append(term)
        else:
            groups.append([term])
        last = end
    return groups
