"""The Python API: a catalog of dataset cards that answers searches and id checks.

>>> catalog = DatasetCatalog.load()                       # the bundled cards.jsonl
>>> response = catalog.search(DatasetQuery("BC5CDR"))      # or catalog.search("BC5CDR", top_k=5)
>>> response.hits[0].id, response.hits[0].match
('bigbio/bc5cdr', 'exact')
>>> catalog.check_ids(["bigbio/bc5cdr", "nope"]).unknown
('nope',)

Building is cheap; the analysed fields, postings and engines are built on first use.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from eagle_rag.plugin_api.text import analyze, compact_name
from eagle_rag_datasets.catalog.cards import DatasetCard
from eagle_rag_datasets.catalog.facets import license_matches
from eagle_rag_datasets.catalog.gloss import default_glossary, has_chinese
from eagle_rag_datasets.catalog.ingest import read_cards, validate_record
from eagle_rag_datasets.catalog.kinds import card_kind, own_names
from eagle_rag_datasets.catalog.synonyms import SynonymSet, load_synonyms
from eagle_rag_datasets.catalog.terms import TermIndex, analyze_card, camel_split, homepage_words, id_tail
from eagle_rag_datasets.catalog.vectors import card_passage, card_vectors, english_source, english_space
from eagle_rag_datasets.errors import CardValidationError, InvalidQueryError, LineError
from eagle_rag_datasets.reply.response import DatasetSearchResponse, IdCheckResponse
from eagle_rag_datasets.search.candidates import find_matches
from eagle_rag_datasets.search.constraints import (
    Constraint,
    ConstraintKind,
    detect,
    group_cards,
    group_words,
    place_words,
)
from eagle_rag_datasets.search.engines import Engine, ScoringEngine
from eagle_rag_datasets.search.engines.bm25 import BM25Engine
from eagle_rag_datasets.search.engines.substring import SubstringEngine
from eagle_rag_datasets.search.engines.tantivy_index import TantivyEngine
from eagle_rag_datasets.search.filters import FacetIndex
from eagle_rag_datasets.search.hosts import host_constraints
from eagle_rag_datasets.search.licence_terms import LICENCE_NAME, licence_constraints
from eagle_rag_datasets.search.matching import Matcher
from eagle_rag_datasets.search.pipeline import run_search
from eagle_rag_datasets.search.proximity import flat_text, fold
from eagle_rag_datasets.search.query import DatasetQuery
from eagle_rag_datasets.search.ranking import Tier
from eagle_rag_datasets.search.semantic import SemanticIndex, is_chinese, try_default_encoder, try_english_encoder
from eagle_rag_datasets.search.topics import default_vocabulary, topic_constraints
from eagle_rag_datasets.search.units import parse_query

DEFAULT_CARDS = Path(__file__).parents[1] / "data" / "cards.jsonl"
MAX_IDS = 1000


VERSION_SUFFIX = re.compile(r"[-_ ]?[vV]?\d+(?:\.\d+)*$")
"""A release number after a name ("OSIRISv1.2", "MedMentions-2"), dropped when no card carries the whole name."""
FAMILY_MIN = 5
"""The letters a name must have to stand for the family of cards whose names start with it ("BioVITA")."""
FAMILY_TEXT_MAX = 3
"""The most cards whose text may mention a name some card carries for it to stand for its family too ("ViDoRe")."""
WARM_UP_PROBES = ("clinical notes annotated for medications", "中文医学问答数据集")
"""The queries :meth:`DatasetCatalog.warm_up` embeds: one per script, so both encoders and the gloss run once."""


ENDINGS = frozenset({"", "s", "es", "al", "ic", "ical", "ed", "ing", "y", "ies", "ism", "ist", "ous", "ity", "ation",
                     "ologi", "olog"})
"""What may follow a topic's stemmed word in a card's word for the card to mention it (stems: "herbal",
"genomic", "surgic")."""


EDITION_NAMES = 3
"""At most this many cards satisfying a dataset name with a year ("CCL 2021": one) are named by it when their names
hold both run together. With any number, the CHIP 2020 cards named "CHIP2020..." outranked the task a request asked
for ("the CHIP 2020 clinical terminology standardisation task": three requests of v6-v8 lost MRR)."""


COMPACT_MIN = 8
"""The fewest letters of a name given in parts that may be found run together inside a card's name."""


class DatasetCatalog:
    """Dataset cards plus the indexes that search them. Card ids must be unique."""

    def __init__(self, cards: Sequence[DatasetCard], source: str = "<memory>",
                 load_errors: Sequence[LineError] = (), synonyms: SynonymSet | None = None,
                 encoder: Any = None, vector_cache: Path | None = None, english_encoder: Any = None) -> None:
        """``encoder``: the semantic channel's text encoder (None: the bundled multilingual e5, loaded
        on first use); ``english_encoder``: its English space's encoder (with ``encoder`` None: the bundled
        bge-small, loaded on first use; with an ``encoder`` given, no English space unless it is given too);
        ``vector_cache``: a folder for card vectors (:mod:`.vectors`)."""
        self.cards: tuple[DatasetCard, ...] = tuple(cards)
        self.source = source
        self.load_errors = tuple(load_errors)
        self._synonyms = synonyms
        self._by_id = {card.id: i for i, card in enumerate(self.cards)}
        if len(self._by_id) != len(self.cards):
            raise InvalidQueryError("card ids must be unique", {"source": source})
        self._engines: dict[Engine, ScoringEngine] = {}
        self._encoder = encoder
        self._english_encoder = english_encoder
        self.vector_cache = vector_cache
        self._semantic: SemanticIndex | None = None
        self.semantic_error: str | None = None
        self._groups: dict[tuple[ConstraintKind, str], frozenset[int]] = {}

    @classmethod
    def load(cls, path: str | Path | None = None, strict: bool = False, **options: Any) -> DatasetCatalog:
        """Read a JSONL or YAML card file (the bundled catalog when ``path`` is None).

        Invalid records raise :class:`CardValidationError` when ``strict``; otherwise they are skipped
        and kept in :attr:`load_errors` (responses carry a warning).
        """
        result = read_cards(path or DEFAULT_CARDS, strict=strict)
        return cls(result.cards, source=result.path, load_errors=result.errors, **options)

    @classmethod
    def from_records(cls, records: Iterable[dict[str, Any]], **options: Any) -> DatasetCatalog:
        """A catalog from plain card dicts (validated as the ingest does; raises on any error)."""
        cards, errors = [], []
        for number, record in enumerate(records, start=1):
            card, problems = validate_record(record, number)
            errors += problems
            if card is not None:
                cards.append(card)
        if errors:
            raise CardValidationError("<records>", errors)
        return cls(cards, **options)

    # ------------------------------------------------------------------ lazy state
    @property
    def size(self) -> int:
        return len(self.cards)

    @cached_property
    def version(self) -> str:
        digest = hashlib.sha1("\n".join(f"{c.id}\t{c.name}" for c in self.cards).encode()).hexdigest()
        return f"{self.size} cards, sha1 {digest[:12]}"

    @cached_property
    def kinds(self) -> list[str]:
        return [card_kind(card) for card in self.cards]

    @cached_property
    def flat_homepages(self) -> list[str]:
        """Each card's homepage address through :func:`..search.proximity.fold` ("" when it has none)."""
        return [fold(card.homepage or "") for card in self.cards]

    @cached_property
    def flat_texts(self) -> list[str]:
        return [flat_text(card) for card in self.cards]

    @cached_property
    def card_ids(self) -> list[str]:
        return [card.id for card in self.cards]

    @cached_property
    def analysed(self) -> list[Any]:
        return [analyze_card(card) for card in self.cards]

    @cached_property
    def index(self) -> TermIndex:
        return TermIndex.build(self.analysed)

    @cached_property
    def matcher(self) -> Matcher:
        return Matcher(self.index)

    @cached_property
    def facets(self) -> FacetIndex:
        return FacetIndex.build(self.cards)

    @cached_property
    def substring(self) -> SubstringEngine:
        return SubstringEngine(self.cards)

    @cached_property
    def name_keys(self) -> dict[str, set[int]]:
        keys: dict[str, set[int]] = {}
        for i, card in enumerate(self.cards):
            for text in (card.id, id_tail(card.id), *own_names(card)):
                keys.setdefault(compact_name(text), set()).add(i)
        return keys

    def synonyms(self) -> SynonymSet:
        if self._synonyms is None:
            self._synonyms = load_synonyms()
        return self._synonyms

    def engine(self, name: Engine) -> ScoringEngine:
        """The scoring engine ``index`` or ``bm25`` (built on first use)."""
        if name not in self._engines:
            self._engines[name] = TantivyEngine(self.analysed) if name is Engine.INDEX else BM25Engine(self.index)
        return self._engines[name]

    def warm_up(self, engines: Iterable[Engine] = (Engine.INDEX,), semantic: bool = False) -> None:
        """Build the indexes (and read the language tables of the constraint terms, the topic vocabulary and the
        glossary of the English semantic space, and gloss the cards' Chinese) now instead of on the first search;
        ``semantic``: also load the semantic channel (its encoders and card vectors) and embed one query per
        script in each of its spaces."""
        _ = self.facets, self.matcher, self.substring, self.flat_texts
        _ = self._word_cards, self._cards_by_part, self._homepage_words, self._words_of_names
        self.constraints("warm up")
        default_glossary()
        _ = self._card_words
        for name in engines:
            if name is not Engine.SUBSTRING:
                self.engine(name)
        index = self.semantic() if semantic else None
        if index is not None:
            for probe in WARM_UP_PROBES:
                index.scores(probe)
            index.forget_queries()

    def semantic(self) -> SemanticIndex | None:
        """The semantic channel (card vectors built or read on first use), or None when its model
        cannot be loaded here (:attr:`semantic_error` says why)."""
        if self._semantic is None and self.semantic_error is None:
            encoder, self.semantic_error = (self._encoder, None) if self._encoder is not None else try_default_encoder()
            if encoder is not None:
                chinese = [is_chinese(card_passage(card)) for card in self.cards]
                english_encoder = self._english_encoder if self._encoder is not None else try_english_encoder()
                english = (card_vectors(self.cards, english_encoder, self.vector_cache, space=english_space())
                           if english_encoder is not None else None)
                self._semantic = SemanticIndex(card_vectors(self.cards, encoder, self.vector_cache), encoder,
                                               np.array(chinese, dtype=bool), english, english_encoder)
        return self._semantic

    def attach_semantic(self, index: SemanticIndex) -> None:
        """Use ``index`` as the semantic channel (benchmarks and tests that bring their own card vectors)."""
        self._semantic, self.semantic_error = index, None

    def constraints(self, text: str) -> list[Constraint]:
        """The constraint terms of ``text`` with the cards satisfying each (:mod:`..search.constraints`)."""
        found = [self._named_with_year(c) if c.versioned and not c.named and len(c.cards) <= EDITION_NAMES else c
                 for c in detect(
            text, self.facets.languages, self.no_language, self._group_cards, self._named_cards, self._other_than,
            self._name_words, self._containing, self._known, self._part_cards)]
        names = [c for c in found if not (c.kind is ConstraintKind.NAME and LICENCE_NAME.fullmatch(c.term))]
        named_by = self._words_of_names
        hosts = {c.term.lower(): c for c in host_constraints(
            text, self._homepage_words, self._everyone, self._text_cards, lambda word: named_by.get(word, frozenset()))}
        # a name no card carries but some homepages hold ("SourceForge") is a host when the request asks by host
        names = [hosts.pop(c.term.lower(), c) if c.kind is ConstraintKind.NAME else c for c in names]
        found = names + list(hosts.values()) + licence_constraints(text, self._licensed, self._everyone)
        glossary = default_glossary() if has_chinese(text) else None
        return found + topic_constraints(text, default_vocabulary(place_words()), glossary, self._mentions, found)

    def _named_with_year(self, constraint: Constraint) -> Constraint:
        """A dataset name with a year that few cards satisfy (:data:`EDITION_NAMES`: "CCL 2021") names those
        whose own name or alias holds both run together ("CCL2021评测官网"): they are matches even when no tier
        finds them, as a card named by its name is."""
        key = compact_name(constraint.term)
        own = frozenset(i for i in constraint.cards
                        if any(key in compact_name(name) for name in own_names(self.cards[i])))
        return replace(constraint, named=own) if own else constraint

    def _mentions(self, term: str) -> bool:
        """Whether the cards' text (or English gloss) holds every word of ``term``, stemmed, each in some card
        (not necessarily the same: "medicinal herbs" in a card on medicinal plants and one on herbs), alone or with
        an ending: generous, since a topic no card mentions empties the answer."""
        known = self._mentioned.get(term)
        if known is None:
            known = self._mentioned[term] = all(self._words_from(stem) for stem in analyze(term))
        return known

    def _words_from(self, stem: str) -> list[str]:
        """The cards' stemmed words that are ``stem`` or ``stem`` and an ending (:data:`ENDINGS`: "herb" in
        "herbal", not "corn" in "cornea")."""
        words = self._card_words
        start = bisect.bisect_left(words, stem)
        end = start
        while end < len(words) and words[end].startswith(stem):
            end += 1
        return [word for word in words[start:end] if word[len(stem):] in ENDINGS]

    @cached_property
    def _card_words(self) -> list[str]:
        return sorted({*self.index.title_tf, *self.index.body_tf, *self._glossed_words})

    @cached_property
    def _mentioned(self) -> dict[str, bool]:
        return {}

    @cached_property
    def _glossed_words(self) -> frozenset[str]:
        """The stemmed words of the English gloss of the cards with Chinese text (麻醉 says "anesthesia")."""
        words: set[str] = set()
        for card in self.cards:
            source = english_source(card)
            if has_chinese(source):
                words.update(analyze(default_glossary().gloss(source)))
        return frozenset(words)

    @cached_property
    def _everyone(self) -> frozenset[int]:
        """Every card's ordinal (what an exclusion takes its cards from)."""
        return frozenset(range(self.size))

    def _licensed(self, licence: str) -> frozenset[int]:
        """The cards under ``licence`` or a version of it (``cc-by``: cc-by-4.0, cc-by-3.0)."""
        return frozenset().union(*(cards for lid, cards in self.facets.licenses.items()
                                   if license_matches(lid, licence)))

    @cached_property
    def _word_cards(self) -> dict[str, int]:
        """Folded word of the cards' text -> how many cards say it."""
        counts: dict[str, int] = {}
        for flat in self.flat_texts:
            for word in set(flat.split()):
                counts[word] = counts.get(word, 0) + 1
        return counts

    def _text_cards(self, word: str) -> int:
        """How many cards say ``word`` (folded) in their text."""
        return self._word_cards.get(word, 0)

    def _known(self, word: str) -> bool:
        """Whether some card says ``word`` (folded)."""
        return word in self._word_cards

    @cached_property
    def _words_of_names(self) -> dict[str, frozenset[int]]:
        """Lower-cased word of a card's name, aliases or id -> the cards ("BioNLP 2011 GE": bionlp, 2011, ge)."""
        words: dict[str, set[int]] = {}
        for i, card in enumerate(self.cards):
            for text in (card.id, *own_names(card)):
                for word in re.split(r"[^0-9a-z]+", text.lower()):
                    if word:
                        words.setdefault(word, set()).add(i)
        return {word: frozenset(cards) for word, cards in words.items()}

    def _name_words(self, token: str) -> frozenset[int]:
        """The cards whose name, aliases or id hold ``token`` as a word (every card for ""); when none does and
        it has :data:`FAMILY_MIN` letters or more, those holding a word that starts with it ("ChemRxiv" for
        ChemRxivRetrieval), as for a name asked for (:meth:`_named_cards`)."""
        if not token:
            return self._everyone
        key = re.sub(r"[^0-9a-z]+", "", token.lower())
        exact = self._words_of_names.get(key, frozenset())
        if exact or len(key) < FAMILY_MIN:
            return exact
        family = frozenset().union(*(cards for word, cards in self._words_of_names.items() if word.startswith(key)))
        return family or self._inside_names(token)

    @cached_property
    def _name_parts(self) -> list[tuple[int, tuple[str, ...]]]:
        """Each card's names and id tail split at capitals and digits, lower-cased ("WikipediaChemFieldsClassification"
        -> wikipedia, chem, fields, classification)."""
        return [(i, tuple(camel_split(text).lower().replace("_", " ").replace("-", " ").split()))
                for i, card in enumerate(self.cards) for text in (*own_names(card), id_tail(card.id))]

    @cached_property
    def _cards_by_part(self) -> dict[str, frozenset[int]]:
        parts: dict[str, set[int]] = {}
        for i, name in self._name_parts:
            for part in name:
                parts.setdefault(part, set()).add(i)
        return {part: frozenset(cards) for part, cards in parts.items()}

    def _part_cards(self, word: str) -> frozenset[int]:
        """The cards whose names hold ``word`` (lower case) as one of their capitalised parts ("biology")."""
        return self._cards_by_part.get(word, frozenset())

    def _inside_names(self, token: str) -> frozenset[int]:
        """The cards whose name holds ``token``'s capitalised parts in a row, inside it ("ChemFields" in
        WikipediaChemFieldsClassification, "SpecialtiesInChemistry" in WikipediaSpecialtiesInChemistryClustering);
        none for a token of one part."""
        parts = tuple(camel_split(token).lower().replace("-", " ").split())
        if len(parts) < 2:
            return frozenset()
        n = len(parts)
        found = frozenset(i for i, name in self._name_parts
                          if any(name[j:j + n] == parts for j in range(len(name) - n + 1)))
        compact = "".join(parts)
        if found or len(compact) < COMPACT_MIN:
            return found
        # the parts run together inside a name split otherwise ("PMC-Treatment" in R2MEDPMCTreatmentRetrieval,
        # whose capitals split as r2medpmc + treatment)
        return frozenset(i for i, name in self._name_parts if compact in "".join(name))

    def _containing(self, text: str) -> frozenset[int]:
        """The cards whose flat text, or their homepage's address folded the same way ("biocreative-vii/track-5":
        " biocreative vii track 5 "), holds ``text`` (lower case) anywhere."""
        needle = text.lower()
        return frozenset(i for i, flat in enumerate(self.flat_texts) if needle in flat
                         or needle in self.flat_homepages[i])

    def _other_than(self, codes: frozenset[str]) -> frozenset[int]:
        """The cards in some language outside ``codes``, or listing none (excluded languages)."""
        return frozenset(i for i, card in enumerate(self.cards) if set(card.language_codes) - codes
                         or not card.language_codes)

    @cached_property
    def no_language(self) -> frozenset[int]:
        """The cards that list no language."""
        return frozenset(i for i, card in enumerate(self.cards) if not card.language_codes)

    def _group_cards(self, kind: ConstraintKind, group: str) -> frozenset[int]:
        if (kind, group) not in self._groups:
            words, language = group_words(kind, group)
            cards = group_cards(self.flat_texts, words)
            if language:
                cards |= self.facets.languages.get(language, frozenset())
            self._groups[(kind, group)] = cards
        return self._groups[(kind, group)]

    def _named_cards(self, token: str) -> tuple[frozenset[int], frozenset[int]]:
        """The cards carrying a name-like token (at a full lexical tier), and those whose own name, alias or
        id it is; when none carries it, the family it opens: the cards whose name or id starts with it
        ("BioVITA" for BioVITAT2IReranking, BioVITAA2IReranking, ...), both carrying it and named by it, else
        the cards whose names hold its capitalised parts in a row ("ChemistryTopics"), else the cards whose
        homepage address holds it as a word ("OpenKG": openkg.cn), carrying it and named by none; a name with a
        release number no card carries is read without it (:data:`VERSION_SUFFIX`). A name carried by at most
        :data:`FAMILY_TEXT_MAX` cards' text and naming none also names its family ("ViDoRe")."""
        result = find_matches(self.matcher, parse_query(token), self.card_ids, self.synonyms(), True)
        carrying = frozenset(h.ordinal for h in result.hits if h.tier >= Tier.TYPO)
        key = compact_name(token)
        if len(phrase := fold(token)[1:-1].split()) > 1:  # "Species-800": both words, but side by side
            spaced, named = f" {' '.join(phrase)} ", self.name_keys.get(key, set())
            carrying = frozenset(i for i in carrying if spaced in self.flat_texts[i] or i in named)
        if not carrying and (base := VERSION_SUFFIX.sub("", token)) != token and len(base) >= 3 and sum(
                ch.isupper() for ch in base) >= 2:  # a name without its release, not a word ("Species-800")
            return self._named_cards(base)  # "OSIRISv1.2": the card of OSIRIS, whatever release it describes
        if not carrying and (family := self._family(key)):
            return family, family
        if not carrying and (inside := self._inside_names(token)):
            return inside, inside  # "ChemistryTopics": the cards whose names hold it, as a name of theirs
        if not carrying and (hosted := self._homepage_words.get(token.lower(), frozenset())
                             or self._homepage_words.get(key, frozenset())):
            return hosted, frozenset()  # "OpenKG": the cards at openkg.cn carry it, though none is named so
        own = frozenset(h.ordinal for h in result.hits if h.tier in (Tier.EXACT, Tier.ALIAS))
        if len(carrying) == 1 and not own and len(key) >= 4 and any(
                key in "".join(parts) for i, parts in self._name_parts if i in carrying):
            own = carrying  # "IIYi": one card carries it, and it runs inside that card's name (R2MEDIIYiClinical...)
        if carrying and not own and self._text_cards(key) <= FAMILY_TEXT_MAX and (family := self._family(key)):
            return carrying | family, family  # "ViDoRe": a few cards mention it, a family of cards is named so
        return carrying, own

    def _family(self, key: str) -> frozenset[int]:
        """The cards whose name, id or alias key (the index's) starts with ``key``, a compact name of
        :data:`FAMILY_MIN` letters or more (none for a shorter one)."""
        if len(key) < FAMILY_MIN:
            return frozenset()
        return frozenset(card for name, owners in self.matcher.index.keys.items() if name.startswith(key)
                         for card, _ in owners)

    @cached_property
    def _homepage_words(self) -> dict[str, frozenset[int]]:
        """Lower-cased word of a card's homepage address (host and path, :func:`.terms.homepage_words`) -> the cards."""
        words: dict[str, set[int]] = {}
        for i, card in enumerate(self.cards):
            for word in homepage_words(card.homepage).lower().split():
                words.setdefault(word, set()).add(i)
            for part in re.split(r"[/.?=#&:]+", (card.homepage or "").lower()):  # "UCSD-AI4H" as one word too
                if "-" in part or "_" in part:
                    words.setdefault(compact_name(part), set()).add(i)
        return {word: frozenset(cards) for word, cards in words.items()}

    def get(self, card_id: str) -> DatasetCard | None:
        index = self._by_id.get(card_id)
        return None if index is None else self.cards[index]

    # ------------------------------------------------------------------ search
    def search(self, query: DatasetQuery | str, **options: Any) -> DatasetSearchResponse:
        """Search the catalog (the stages: :mod:`eagle_rag_datasets.search.pipeline`).

        Raises :class:`InvalidQueryError` for bad input (see DatasetQuery).
        """
        request = query if isinstance(query, DatasetQuery) else DatasetQuery.from_dict({"text": query, **options})
        if isinstance(query, DatasetQuery) and options:
            request = replace(request, **options)
        return run_search(self, request.validated())

    # ------------------------------------------------------------------ id check
    def check_ids(self, ids: Sequence[str]) -> IdCheckResponse:
        """Report which ids the catalog knows, in one lookup per id (no search).

        Raises :class:`InvalidQueryError` when ``ids`` is not a list of 1..1000 non-empty strings.
        """
        if isinstance(ids, str) or not isinstance(ids, Sequence) or not 1 <= len(ids) <= MAX_IDS:
            raise InvalidQueryError(f"ids must be a list of 1 to {MAX_IDS} strings", {"field": "ids"})
        if not all(isinstance(i, str) and i.strip() and len(i) <= 300 for i in ids):
            raise InvalidQueryError("every id must be a non-empty string of at most 300 characters",
                                    {"field": "ids"})
        known, unknown = [], []
        resolved: dict[str, str] = {}
        ambiguous: dict[str, tuple[str, ...]] = {}
        for given in dict.fromkeys(i.strip() for i in ids):
            if given in self._by_id:
                known.append(given)
                continue
            matches = sorted({self.cards[i].id for i in self.name_keys.get(compact_name(given), ())})
            if len(matches) == 1:
                resolved[given] = matches[0]
            elif matches:
                ambiguous[given] = tuple(matches)
            else:
                unknown.append(given)
        return IdCheckResponse(tuple(known), tuple(unknown), resolved, ambiguous, self.size)
