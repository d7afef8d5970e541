"""Constraint terms: the query words that rule cards out (docs/datasets.md, "Constraint terms").

A query word that names a language, a data modality, a species, a country, or a specific dataset
or benchmark is a constraint. A card satisfies it when:

* language: the card's languages include it ("Polish", "波兰语" -> ``pl``), or the card lists no
  language at all (it contradicts none); "Chinese" in "Traditional Chinese Medicine" is no language.
  The language words are every ISO 639-1 language and four Chinese varieties, in English and Chinese
  (:mod:`.languages`). A language every mention of which follows a negation ("not English", "不要越南语")
  is excluded instead: it is satisfied by the cards in some other language;
* modality, species, country: the card's own text (name, aliases, descriptions, tags, tasks) says
  one of the words of its group ("X-ray" is satisfied by a card that says "radiograph" or "影像");
  a country is also satisfied by a card in the country's own language (Japan -> ``ja``);
* named dataset: a name-like token (CamelCase ``ImageNet``, letters with digits ``CORD-19``, a
  roman-numeral version ``MIMIC-IV``) is found in the card at a full lexical tier (exact, alias,
  words, synonym or typo). A name no card carries is a constraint only when it is the data asked
  for (:func:`_is_name`), and an all-capitals word of four or more letters only when it opens the
  request ("TCGA pathology reports").

A country or modality word after a negation is none, nor a country in the asker's own context ("our
lab in Kenya", :data:`CONTEXT`); a word inside a language name (越南 in 越南语) is not read again. Chinese
words have at least two characters (牛 would match inside 牛津, Oxford), and a Chinese language name
ending in 语 is not read where its 语 starts another word (法 + 语料 in 方法语料).

Cards that do not satisfy every constraint of a query are dropped from both channels. When no
card of the catalog satisfies one, the answer is empty and names that term
(:attr:`Constraint.message`). Latin words match whole words of the card's flat text; Chinese words
match as substrings. The card sets of the fixed groups are computed once per catalog.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from rapidfuzz import process
from rapidfuzz.distance import OSA, Levenshtein

from eagle_rag_datasets.catalog.facets import normalize_language
from eagle_rag_datasets.search.languages import language_words
from eagle_rag_datasets.search.proximity import fold


class ConstraintKind(StrEnum):
    LANGUAGE = "language"
    MODALITY = "modality"
    SPECIES = "species"
    COUNTRY = "country"
    NAME = "name"
    LICENSE = "license"
    TOPIC = "topic"


# group: (label for the message, query words, words a card may carry instead).
GROUPS: dict[ConstraintKind, dict[str, tuple[str, str, str]]] = {
    ConstraintKind.MODALITY: {
        "image": ("images", "image images imaging photos photographs pictures 图像 图片 影像 照片", "photo picture"),
        "mri": ("MRI scans", "mri magnetic_resonance 核磁 磁共振", ""),
        "ct": ("CT scans", "computed_tomography ct_scan ct_scans ct_images", ""),
        "xray": ("X-ray images",
                 "x-ray x-rays xray xrays radiograph radiographs radiography x光 x线 x射线 胸片 全景片 牙片", ""),
        "ultrasound": ("ultrasound images", "ultrasound sonography 超声", ""),
        "histopathology": ("histopathology slides", "histopathology histology whole-slide 病理切片", ""),
        "dermoscopy": ("dermoscopy images", "dermoscopy dermoscopic 皮肤镜", ""),
        "fundus": ("fundus images", "fundus retinal_images 眼底", ""),
        "audio": ("audio or speech recordings", "audio speech spoken voice recordings 语音 音频 录音", ""),
        "heart_sound": ("heart sound recordings", "phonocardiogram phonocardiograms heart_sound heart_sounds 心音", ""),
        "video": ("video", "video videos 视频", ""),
        "ecg": ("ECG signals", "ecg ekg electrocardiogram electrocardiograms electrocardiography 心电 心电图", ""),
        "eeg": ("EEG signals", "eeg electroencephalogram electroencephalography 脑电 脑电图", ""),
        "signals": ("sensor or wearable signals", "wearable wearables accelerometer 可穿戴", "sensor sensors"),
        "sign_language": ("sign language video", "sign_language 手语", ""),
        "sequencing": ("sequencing reads", "fastq sequencing_reads bam_files 测序数据 测序读段", ""),
        "mass_spec": ("mass spectra", "mass_spectrometry mass_spectra lc-ms 质谱", ""),
        "sleep": ("polysomnography", "polysomnography polysomnographic 多导睡眠", ""),
        "endoscopy": ("endoscopy images or video", "endoscopy endoscopic colonoscopy gastroscopy 内镜 结肠镜 胃镜", ""),
        "electron_microscopy": ("electron microscopy images", "cryo-em cryoem electron_microscopy "
                                "electron_micrographs micrographs 冷冻电镜 电镜", ""),
        "mammography": ("mammograms", "mammogram mammograms mammography 乳腺钼靶 钼靶", ""),
        "oct": ("optical coherence tomography scans", "optical_coherence_tomography oct_scans oct_images", ""),
        "pet": ("PET scans", "pet_scan pet_scans pet_ct pet_images positron_emission_tomography", ""),
        "claims": ("insurance claims", "insurance_claims claims_data medicare medicaid 医保 理赔", ""),
    },
    ConstraintKind.SPECIES: {
        "mouse": ("mice", "mouse mice murine 小鼠", ""), "rat": ("rats", "rat rats 大鼠", ""),
        "zebrafish": ("zebrafish", "zebrafish 斑马鱼", ""), "yeast": ("yeast", "yeast 酵母", ""),
        "fly": ("fruit flies", "drosophila 果蝇", "fly flies"), "worm": ("C. elegans", "elegans 线虫", ""),
        "plant": ("plants", "plant plants botanical 植物", "arabidopsis"),
        "arabidopsis": ("Arabidopsis", "arabidopsis 拟南芥", ""),
        "animal": ("animals", "veterinary animal animals livestock wildlife 兽医 动物",
                   "canine feline bovine wildlife fauna zoology zoological taxa taxon bioacoustics"),
        "dog": ("dogs", "dog dogs canine 犬类 犬只 狗狗 宠物犬", ""),
        "cattle": ("cattle", "cattle cow cows bovine 奶牛 肉牛 牛只 黄牛 牦牛 牛群", ""),
        "bacteria": ("bacteria", "bacteria bacterial microbial 细菌",
                     "microbe microbes bacterium microorganism microorganisms microbiology"),
    },
    ConstraintKind.COUNTRY: {
        "japan": ("Japan", "japan 日本", "ja"), "korea": ("Korea", "korea 韩国", "ko"),
        "brazil": ("Brazil", "brazil brazilian 巴西", ""), "india": ("India", "india indian 印度", ""),
        "africa": ("Africa", "africa african 非洲", ""), "nigeria": ("Nigeria", "nigeria nigerian", ""),
        "kenya": ("Kenya", "kenya kenyan", ""), "mexico": ("Mexico", "mexico mexican 墨西哥", ""),
        "canada": ("Canada", "canada canadian 加拿大", ""),
        "australia": ("Australia", "australia australian 澳大利亚", ""),
        "poland": ("Poland", "poland 波兰", "pl"), "russia": ("Russia", "russia 俄罗斯", "ru"),
        "iran": ("Iran", "iran iranian 伊朗", "fa"),
        "turkey": ("Turkey", "turkey türkiye 土耳其", "tr"), "vietnam": ("Vietnam", "vietnam 越南", "vi"),
        "taiwan": ("Taiwan", "taiwan taiwanese 台湾", ""), "hongkong": ("Hong Kong", "香港", ""),
        "singapore": ("Singapore", "singapore 新加坡", ""),
        "uk": ("the United Kingdom", "uk britain british nhs 英国", ""),
    },
}
LIST_JOINER = re.compile(r"\s*(?:(?:and|or|either|in|und|y|et|as well as|plus|和|或|或者|及|以及|与|还是|跟)\s*)*")
"""What may stand between two languages of one list in the folded query (its punctuation is gone): "English or
Chinese", "in English and in Chinese", "德语、英语", "中文和英文"."""
ALSO = re.compile(r"\b(?:as well as|along with|alongside|also)\b|也")
ALSO_WORDS = 8
"""A second language added within a few words by "as well as" or "also" is an alternative too ("Chinese hospital
data is welcome as well as English", "中文的可以，英文的也可以")."""
EACH = re.compile(r"\s*(?:的|版|版本|翻译版)?\s*都")
"""A Chinese "each" after a list of languages ("波兰语和越南语的都列出来"): alternatives even in a request for
translations."""
DISJUNCTION = re.compile(r"\b(?:or|either)\b|或|还是")
"""An "or" between two languages: alternatives even in a request for multilingual data."""
TOGETHER = re.compile(
    r"\b(?:parallel|bilingual|bi ?text|aligned|translat\w*|cross ?lingual|both languages|multilingual|"
    r"code ?switch\w*|code ?mix\w*|side by side)\b|双语|平行|对照|翻译|译文|对齐|跨语言|中英对|英中对|多语")
"""Words that ask for data in several languages at once ("English-Chinese parallel sentences"): the languages of
such a request must all hold; without them, languages named together are alternatives ("English or Chinese",
"Spanish and French are both useful")."""
EACH_LANGUAGE = re.compile(r"\b(?:(?:in )?(?:either|each|any) (?:one )?(?:of )?(?:the |these |those )?(?:two |three )?"
                           r"languages?|(?:in )?(?:those|these|the) (?:two|three|four) languages)\b")
"""Words that ask for each language apart even in a request for translations ("translated SciFact sets in those two
languages", "health documents in either language"): the languages named are alternatives."""
NOT_LANGUAGE = ("traditional chinese medicine", "chinese medicine", "chinese medicines", "chinese herbal",
                "chinese herbs", "chinese herb")
"""Phrases whose language word names no language ("Traditional Chinese Medicine")."""
_PHRASE = {ConstraintKind.LANGUAGE: "is in", ConstraintKind.MODALITY: "holds",
           ConstraintKind.SPECIES: "is about", ConstraintKind.COUNTRY: "is from", ConstraintKind.NAME: "names",
           ConstraintKind.LICENSE: "is licensed", ConstraintKind.TOPIC: "mentions"}
CJK_TEXT = re.compile(r"[\u3400-\u9fff]")
_EXCLUDED_NAMES = re.compile(
    r"(?:\b(?:not|except|excluding|exclude|other than|besides|apart from|but not|without|rather than|instead of"
    r"|skip|skipping|leave out|leaving out|omit|omitting)"
    r"|不要|不需要|除了|除去|排除|不含|不包括)((?:[\s(（]*[^\s,;:.!?，。；：！？()（）]+[)）]?){1,4})")
"""A negation and the (up to four) words after it that may name datasets the request rules out."""
_CAPITALISED = re.compile(r"[A-Za-z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*|[A-Z][A-Za-z0-9-]*[A-Z0-9]")
"""A word with two capitals or more, or letters and digits ("GENIA", "GE", "MedDialog", "PKUSEG")."""
_EXCLUDABLE = re.compile(_CAPITALISED.pattern + r"|(?<![\w.-])[vV]\d{1,2}(?![\w-])"
                         r"|(?<![\w-])[a-z]+(?:-[a-z]+)+(?![\w-])")
"""A word that may name the datasets a negation rules out: a name word, a version ("not the v2 versions"), or a
hyphenated word of card names ("leaving out the de-identification ones": n2c2 2006 De-identification)."""
_VERSIONED = re.compile(r"(?<![\w-])([A-Za-z][\w-]*[A-Z0-9][\w-]*|[A-Z]{3,})\s*((?:19|20)\d{2}(?!\d)"
                        r"|(?<=\s)(?:II|III|IV|VI|VII|VIII|IX|X)(?![\w-]))")
"""A dataset name followed by a year ("i2b2 2012", "CHIP 2020") or by a Roman edition number from II ("BioCreative
VI"; I and V are left out, a word and a letter as often as a number)."""
_EDITION = re.compile(r"\s*(?:[\w-]+\s+)?(?:tracks?|tasks?|editions?)\b|\s*(?:那一?|这一?)?届", re.IGNORECASE)
"""Words after a Roman edition number that make it the data asked for ("BioCreative VII tracks", "那一届")."""
_RELATIVE = re.compile(r"\b(?:before|after|prior to|earlier than|later than|since|until|older than|newer than)\W*$",
                       re.IGNORECASE)
_RELATIVE_AFTER = re.compile(r"\s*(?:之前|以前|之后|以后|前的|后的|and (?:earlier|later|before|after))", re.IGNORECASE)
_ACRONYM = re.compile(r"^\W*([A-Z]{4,})(?![\w-])")
"""An all-capitals word of four or more letters opening the request ("TCGA pathology reports"): a name when a
data noun follows it (:data:`DATA_NOUNS`) or the request is short, not in "GDPR makes it impossible ..."."""
SHORT_REQUEST = 4
"""Words of a request short enough that an opening acronym is what it asks for ("TCGA", "CPRD primary care")."""
_NAME_LIKE = re.compile(r"(?<![\w-])((?:[A-Za-z]*[a-z][A-Z][A-Za-z]*|[A-Z]{2,}[A-Z][a-z]{2,}[A-Za-z]*"
                        r"|[A-Za-z]+\d+[A-Za-z0-9]*|[A-Za-z]+-\d+[A-Za-z]*"
                        r"|[A-Z]{3,}-(?:I{1,3}|IV|V|VI)|[A-Z]{2,}-[A-Z]{2,}|[A-Z]{2,}-[A-Z][a-z]{2,})(?:-[A-Za-z0-9]+)*)(?![\w-])")


_LATIN_CUES = (r"not|non|no|except|excluding|exclude|without|other than|rather than|instead of|apart from"
               r"|outside(?: of)?"
               r"|skip|skipping|leave out|leaving out|omit|omitting")
_NONE_THAT = (r"none (?:of them )?(?:that|which) (?:involves?|includes?|uses?|contains?|has|have|holds?)"
              r"|(?:that|which) (?:do|does) not (?:involve|include|use|contain|have|hold)")
_CJK_CUES = r"不要|不需要|不用|不含|不包括|排除|除了|除去|除|非|不是|并非|而非"
"""The words of a negation before what it rules out ("not", "none that involve", "不要"): one vocabulary for
:data:`NEGATION` (a term right after one) and :data:`_CUE` (its whole clause)."""
NEGATION = re.compile(
    rf"(?:\b(?:{_LATIN_CUES}|{_NONE_THAT})(?: in| the| any| anything (?:with|that \w+)| those with)?|{_CJK_CUES})"
    r"(?:\s*(?:,|、|\band\b|\bor\b|\bnor\b|和|或|及))*\s*$")
"""A cue right before a term that excludes it ("not English", "non-English", "不要越南语"); the terms of a
list after it are read with the earlier ones blanked ("excluding Dutch and Persian")."""
CJK_SCOPE = re.compile(r"(?:不要|不需要|不用|不含|不包括|排除|除了|并非|而非|不是)[\u4e00-\u9fff]{1,8}$")
"""A Chinese negation a few characters before a modality, in one phrase ("也不要通用的文档图片检索")."""
EXCEPT_AFTER = re.compile(r"^(?:\s|和|及|与|或)*(?:以外|之外)")
"""A Chinese "other than" after a language or a list of them ("英语、中文以外的语言"): they are excluded."""
TRANSLATED_FROM = re.compile(r"\b(?:translat\w*|machine[ -]translated)\s+(?:\w+\s+){0,2}?from\s*$|[从由]\s*$")
"""Words before a language that make it the source of a translation ("translated from English", "从英文翻译"):
the data is in the other language (a Chinese 从/由 counts only when 翻译 or 译 follows the language)."""
CONTEXT = re.compile(
    r"(?:\b(?:(?:our|my)\s+(?:\w+\s+){0,2}?(?:lab|team|group|hospital|clinic|company|startup|users|customers|"
    r"patients|university|institute|department|project|office)s?(?:\s+\w+){0,3}?"
    r"|we|we re|we are|i m|i am|i work|we work)\s+(?:(?:a|an)\s+(?:\w+\s+){0,3}?)?(?:based\s+|located\s+|working\s+)?"
    r"(?:in|at|from)(?:\s+the)?|(?:我们|我|用户|团队|实验室|课题组|公司|医院)(?:的\w{0,4})?(?:主要|都|目前|现在)?"
    r"(?:在|位于|来自))\s*$")
"""Words before a country or place that make it the asker's own context ("our lab in Kenya", "我们的用户主要在台湾"),
not a property of the data."""
DATA_NOUNS = re.compile(
    r"^\s*(?:[\w-]+\s+){0,2}?(?:data|dataset|datasets|corpus|corpora|benchmark|benchmarks|notes|reports|records|"
    r"labels|images|scans|questions|pairs|cohort|database|challenge|task|subset|split|version|annotations|"
    r"collection|files|recordings|release)\b|^\s*(?:的)?(?:数据|语料|评测|基准|标注|任务|比赛|竞赛)")
"""Words after a name that make it the data asked for ("MIMIC-IV ICU notes", "emrQA question-answer pairs")."""
_COMPARISON = re.compile(r"-(?:style|like|type|based|inspired|format|formatted|compatible)$", re.IGNORECASE)
_WORD_AFTER_YU = "料言义音句境法种篇调序气汇素"
"""A Chinese language name ending in 语 is not one when its 语 starts a word (方法语料: 法 + 语料, not 法语)."""


@dataclass(frozen=True)
class Constraint:
    """One constraint term of a query and the cards that satisfy it."""

    kind: ConstraintKind
    term: str
    label: str
    cards: frozenset[int]
    named: frozenset[int] = frozenset()
    """For a dataset name: the cards whose own name, alias or id it is (they rank first)."""
    excluded: bool = False
    """A language or dataset the query rules out ("not English", "不要越南语", "除了 MedDialog 以外"): the cards
    satisfying it are those in another language (or listing none), or those not named so; its label reads
    "a language other than English", "a dataset other than MedDialog"."""
    alternatives: tuple[str, ...] = ()
    """For a language: the words that asked for it, or for each of the languages a request names as
    alternatives ("English or Chinese": one constraint, satisfied by a card in either)."""
    versioned: bool = False
    """A dataset name with a year ("i2b2 2012", "CHIP 2020"): satisfied by the cards carrying both."""

    @property
    def restricts(self) -> bool:
        """Whether the constraint drops the cards that do not satisfy it. A named dataset that some card
        carries does not: the exact and alias tiers already rank it first, and the other cards stay as
        neighbours; a name no card carries empties the answer."""
        return self.kind is not ConstraintKind.NAME or not self.cards or self.excluded or self.versioned

    @classmethod
    def any_of(cls, members: Sequence[Constraint]) -> Constraint:
        """One constraint satisfied by a card satisfying any of ``members`` (of one kind): "English or Chinese",
        "CHIP 2019 or CHIP 2020"; its alternatives are theirs."""
        words = tuple(t for c in members for t in c.alternatives or (c.term,))
        return cls(members[0].kind, " or ".join(c.term for c in members), " or ".join(c.label for c in members),
                   frozenset().union(*(c.cards for c in members)), frozenset().union(*(c.named for c in members)),
                   versioned=members[0].versioned, alternatives=words)

    def message(self, size: int) -> str:
        """"no card in the catalog is in Polish (0 of 386)" (or "holds images", "names MIMIC-IV", ...)."""
        return f"no card in the catalog {_PHRASE[self.kind]} {self.label} ({len(self.cards)} of {size})"

    def to_dict(self, size: int) -> dict[str, object]:
        return {"kind": self.kind.value, "term": self.term, "label": self.label, "cards": len(self.cards),
                "of": size, "excluded": self.excluded}


def says(flat: str, word: str) -> bool:
    """True when ``flat`` (padded text through :func:`~.proximity.fold`) holds ``word``: a substring for
    Chinese, else whole words ("x-ray" and "heart_sound" are two words)."""
    return word in flat if CJK_TEXT.search(word) else f" {word.replace('-', ' ').replace('_', ' ')} " in flat


def _spaced(word: str) -> str:
    return word.replace("-", " ").replace("_", " ")


@lru_cache(maxsize=64)
def _matcher(words: tuple[str, ...]) -> tuple[dict[str, str], int, re.Pattern[str] | None]:
    """For ``words``: the Latin ones by their spaced form ("x ray" -> "x-ray") and the most words one has;
    one pattern of the Chinese ones, longest first."""
    latin = {_spaced(w): w for w in words if not CJK_TEXT.search(w)}
    cjk = sorted((w for w in words if CJK_TEXT.search(w)), key=len, reverse=True)
    return (latin, max((w.count(" ") + 1 for w in latin), default=0),
            re.compile("|".join(map(re.escape, cjk))) if cjk else None)


def _occurrences(text: str, words: tuple[str, ...]) -> list[tuple[str, int]]:
    """``(word, start)`` of each of ``words`` in ``text`` (folded, padded), as :func:`says` finds them: Latin
    words whole (the longest first), Chinese ones as substrings, except a language name ending in 语 where
    its 语 starts another word (:data:`_WORD_AFTER_YU`)."""
    latin, longest, pattern = _matcher(words)
    out = []
    tokens = [(m.group(), m.start()) for m in re.finditer(r"\S+", text)] if latin else []
    for i, (_, start) in enumerate(tokens):
        for n in range(min(longest, len(tokens) - i), 0, -1):
            phrase = " ".join(t for t, _ in tokens[i:i + n])
            if phrase in latin:
                out.append((latin[phrase], start))
                break
    for match in pattern.finditer(text) if pattern is not None else ():
        word = match.group(0)
        if not (word.endswith("语") and (text[match.end():match.end() + 1] or " ") in _WORD_AFTER_YU):
            out.append((word, match.start()))
    return out


@lru_cache(maxsize=1)
def _group_table() -> tuple[tuple[str, ...], dict[str, list[tuple[ConstraintKind, str]]]]:
    """Every query word of the fixed groups, and the groups of each."""
    owners: dict[str, list[tuple[ConstraintKind, str]]] = {}
    for kind, table in GROUPS.items():
        for group, (_, words, _) in table.items():
            for word in words.split():
                owners.setdefault(word, []).append((kind, group))
    return tuple(owners), owners


@lru_cache(maxsize=1)
def _language_table() -> tuple[tuple[str, ...], dict[str, str]]:
    """Every language word, and the language code of each (as matched: "modern greek")."""
    table = {w: code for code, (_, words) in language_words().items() for w in words.split()}
    return tuple(table), table


@lru_cache(maxsize=1)
def place_words() -> frozenset[str]:
    """Every language and country word in small letters, spaces for underscores ("turkey", "modern greek"):
    words that name a place or a language, never a topic (:mod:`.topics`)."""
    countries = [w for _, words, _ in GROUPS[ConstraintKind.COUNTRY].values() for w in words.split()]
    return frozenset(w.replace("_", " ").lower() for w in (*_language_table()[0], *countries))


@lru_cache(maxsize=1)
def _latin_language_names() -> tuple[str, ...]:
    """Single-word Latin language names of five letters or more (the candidates of a misspelling)."""
    words, _ = _language_table()
    return tuple(w for w in words if w.isalpha() and w.isascii() and len(w) >= 5)


def _misspelt_languages(text: str, taken: list[tuple[str, int]], known: Callable[[str], bool]) -> list[tuple[str, int]]:
    """``(language name, start)`` for each word of ``text`` that no card says and that is one transposition,
    insertion or deletion away from exactly one language name ("polsih" -> polish, "germna" -> german).
    A substitution is not taken ("green" is not "greek", "trench" not "french")."""
    names = _latin_language_names()
    seen = {start for _, start in taken}
    out = []
    for match in re.finditer(r"[a-z]{5,}", text):
        word = match.group()
        if match.start() in seen or word in names or known(word):
            continue
        close = [n for n, _, _ in process.extract(word, names, scorer=OSA.distance, score_cutoff=1, limit=4)
                 if not (len(n) == len(word) and Levenshtein.distance(word, n) == 1)]
        if len(close) == 1:
            out.append((close[0], match.start()))
    return out


def _translated_from(before: str, after: str) -> bool:
    """Whether a language between ``before`` and ``after`` is the source of a translation
    (:data:`TRANSLATED_FROM`)."""
    found = TRANSLATED_FROM.search(before)
    return found is not None and (found.group(0).strip() not in "从由" or after.lstrip().startswith(("翻译", "译")))


def _blank(text: str, spans: list[tuple[str, int]]) -> str:
    """``text`` with each ``(word, start)`` span turned into spaces."""
    for word, start in spans:
        text = text[:start] + " " * len(word) + text[start + len(word):]
    return text


def group_cards(flat_texts: list[str], words: str) -> frozenset[int]:
    """Cards whose flat text says any of ``words``."""
    folded = words.split()
    return frozenset(i for i, text in enumerate(flat_texts) if any(says(text, w) for w in folded))


def _is_name(query: str, match: re.Match[str], carried: bool) -> bool:
    """Whether a name-like token is a named-dataset constraint. A name some card carries always is (it
    ranks that card first). A name no card carries is one only when it is what the request asks for:
    the request's first word, or followed within three words by a data noun (:data:`DATA_NOUNS`); a
    comparison ("NutritionFacts-style") never is. So "MIMIC-IV ICU notes" is empty, while "microRNA
    literature curation" or "the Baidu PaddlePaddle language model" keep their other words."""
    token = match.group(1)
    if carried:
        return True
    if _COMPARISON.search(token):
        return False
    before = query[:match.start()].strip(" \t\"'“‘(「")
    return not before or bool(DATA_NOUNS.search(query[match.end():]))


def detect(query: str, languages: dict[str, frozenset[int]], unknown: frozenset[int],
           groups: Callable[[ConstraintKind, str], frozenset[int]],
           named: Callable[[str], tuple[frozenset[int], frozenset[int]]],
           other_than: Callable[[frozenset[str]], frozenset[int]] | None = None,
           name_words: Callable[[str], frozenset[int]] | None = None,
           containing: Callable[[str], frozenset[int]] | None = None,
           known: Callable[[str], bool] | None = None,
           name_parts: Callable[[str], frozenset[int]] | None = None) -> list[Constraint]:
    """The constraints of ``query``. ``languages``: language code -> cards; ``unknown``: the cards that
    list no language (they contradict no language); ``groups(kind, group)``: the cards satisfying a
    group; ``named(token)``: the cards carrying a name-like token, and those whose name, alias or id it
    is; ``other_than(codes)``: the cards in some language outside ``codes`` (for excluded languages;
    without it an excluded language constrains nothing); ``name_words(token)``: the cards whose name,
    aliases or id hold ``token`` as a word (for an excluded dataset); ``containing(text)``: the cards whose
    text holds ``text`` (the year of a versioned name); ``known(word)``: whether a card says ``word`` (a
    word no card says may be a misspelt language name: "polsih", "germna"). Without them, their rule does
    not apply.

    A language every mention of which is negated ("not English", "非英文") is excluded; a country or
    modality after a negation is no constraint, nor a country in the asker's own context ("our lab in
    Kenya"). Country and modality words inside a language name (越南 in 越南语) are not read again."""
    folded = fold(query)
    found: list[Constraint] = []
    spoken = folded
    for phrase in NOT_LANGUAGE:
        spoken = spoken.replace(f" {phrase} ", " " * (len(phrase) + 2))
    words, codes = _language_table()
    taken = _occurrences(spoken, words)
    if known is not None:
        taken += _misspelt_languages(spoken, taken, known)
    by_code: dict[str, list[tuple[str, int]]] = {}
    for word, start in taken:
        by_code.setdefault(codes[word], []).append((word, start))
    labels = language_words()
    ordered = sorted(taken, key=lambda place: place[1])
    prefix = {i: _blank(spoken[:i], ordered[:n]) for n, (_, i) in enumerate(ordered)}
    unlisted = _blank(spoken, ordered)  # "英语、中文、西班牙语以外的语言": what follows a list of languages
    ruled_out = _post_negated_spans(query, spoken)
    asked_at: dict[int, tuple[str, int]] = {}  # where a language is asked for -> (its word, its constraint)
    ruled: dict[str, tuple[str, str]] = {}  # the excluded languages: code -> (label, word)
    for code, places in by_code.items():
        label = labels[code][0]
        places = [(w, i) for w, i in places if not _translated_from(prefix[i], spoken[i + len(w):])]
        if not places:
            continue
        positive = [(w, i) for w, i in places if not NEGATION.search(prefix[i])
                    and not any(start <= i < end for start, end in ruled_out)
                    and not EXCEPT_AFTER.match(unlisted[i + len(w):])]
        if positive:
            found.append(Constraint(ConstraintKind.LANGUAGE, positive[0][0], label,
                                    languages.get(code, frozenset()) | unknown, alternatives=(positive[0][0],)))
            asked_at.update((i, (w, len(found) - 1)) for w, i in positive)
        elif other_than is not None:
            found.append(Constraint(ConstraintKind.LANGUAGE, places[0][0], f"a language other than {label}",
                                    other_than(frozenset({code})), excluded=True))
            ruled[code] = (label, places[0][0])
    if len(ruled) > 1 and other_than is not None:  # "other than English, Chinese and Spanish": one language
        words = tuple(word for _, word in ruled.values())  # outside all of them, not outside each
        kept = [n for n, c in enumerate(found) if not (c.kind is ConstraintKind.LANGUAGE and c.excluded)]
        moved = {old: new for new, old in enumerate(kept)}  # the languages asked for keep their constraints
        asked_at = {i: (word, moved[owner]) for i, (word, owner) in asked_at.items()}
        found = [found[n] for n in kept] + [Constraint(
            ConstraintKind.LANGUAGE, words[0], "a language other than " + ", ".join(lab for lab, _ in ruled.values()),
            other_than(frozenset(ruled)), excluded=True, alternatives=words)]
    together = bool(TOGETHER.search(folded)) and not EACH_LANGUAGE.search(folded)
    found = _alternatives(found, spoken, asked_at, together=together)
    rest = _blank(folded, taken)
    group_words_, owners = _group_table()
    said: dict[tuple[ConstraintKind, str], str] = {}
    negated: dict[tuple[ConstraintKind, str], str] = {}
    ruled_out = ruled_out + _folded_spans([m.group() for m in _CUE.finditer(query)], rest)
    places = sorted(_occurrences(rest, group_words_), key=lambda place: place[1])
    for n, (word, start) in enumerate(places):
        before = _blank(rest[:start], places[:n])  # "none that involve audio recordings": both negated
        for kind, group in owners[word]:
            if NEGATION.search(before) or CJK_SCOPE.search(before) or any(a <= start < b for a, b in ruled_out):
                if kind is ConstraintKind.MODALITY:
                    negated.setdefault((kind, group), word)
            elif (kind, group) not in said and not (kind is ConstraintKind.COUNTRY and CONTEXT.search(before)):
                said[(kind, group)] = word
    everyone = frozenset().union(*languages.values(), unknown) if negated else frozenset()
    for kind, table in GROUPS.items():  # in the order of the tables
        for group, (label, _, _) in table.items():
            if (kind, group) in said:
                found.append(Constraint(kind, said[(kind, group)], label, groups(kind, group)))
            elif (kind, group) in negated:  # "none that involve audio recordings": the cards without it
                found.append(Constraint(kind, negated[(kind, group)], f"something other than {label}",
                                        everyone - groups(kind, group), excluded=True))
    text = unicodedata.normalize("NFKC", query)
    excluded = _excluded_names(text, name_words, name_parts) if name_words is not None else {}
    for token, cards in excluded.items():
        found.append(Constraint(ConstraintKind.NAME, token, f"a dataset other than {token}", cards, excluded=True))
    for match in _NAME_LIKE.finditer(text):
        token = match.group(1)
        if token in excluded:
            continue
        carrying, own = named(token)
        if _is_name(text, match, bool(carrying)):
            found.append(Constraint(ConstraintKind.NAME, token, token, carrying, own))
    if (acronym := _ACRONYM.match(text)) is not None and not _NAME_LIKE.match(text[acronym.start(1):]) and (
            DATA_NOUNS.search(text[acronym.end(1):]) or len(text.split()) <= SHORT_REQUEST):
        carrying, own = named(acronym.group(1))
        if not carrying:  # an acronym some card carries is found by the lexical tiers; this one names no card
            found.append(Constraint(ConstraintKind.NAME, acronym.group(1), acronym.group(1), carrying, own))
    editions: dict[str, list[Constraint]] = {}
    for match in _VERSIONED.finditer(text) if containing is not None else ():
        assert containing is not None
        name, year = match.group(1), match.group(2)
        if _RELATIVE.search(text[max(0, match.start() - 20):match.start()]) or _RELATIVE_AFTER.match(
                text[match.end():]):
            continue  # "before CHIP 2020", "CHIP 2020 之前的那几届": the other editions are asked for
        if not year.isdigit() and not (DATA_NOUNS.search(text[match.end():]) or _EDITION.match(text[match.end():])):
            continue  # "BioCreative II gene mentions" among a bundle's parts: the edition is no data asked for
        carrying, own = named(name)
        if carrying and name not in excluded:
            # a Roman number: the name and number together, in the text or the homepage ("biocreative-vi/track-1")
            with_year = carrying & containing(year) if year.isdigit() else containing(fold(f"{name} {year}"))
            term = f"{name} {year}"
            editions.setdefault(name.lower(), []).append(
                Constraint(ConstraintKind.NAME, term, term, with_year, own & with_year, versioned=True))
    for same in editions.values():  # "CHIP 2019 ... and the CHIP 2020 task": a card is one edition, either will do
        found.append(same[0] if len(same) == 1 else Constraint.any_of(same))
    return found


def _alternatives(found: list[Constraint], spoken: str, asked_at: dict[int, tuple[str, int]],
                  together: bool) -> list[Constraint]:
    """``found`` with the languages asked for in one list ("English or Chinese", "Spanish and French",
    "德语、英语都可以") merged into one constraint that a card in any of them satisfies. Languages named
    apart stay separate constraints, all of which must hold ("we know you carry Swedish ..., but we need
    Latvian"); so do those of a request for data in several languages at once (``together``:
    :data:`TOGETHER`), unless an "or" joins them ("multilingual document images with Thai or Indonesian")."""
    places = sorted(asked_at.items())
    parent = list(range(len(found)))

    def root(n: int) -> int:
        while parent[n] != n:
            n = parent[n]
        return n

    pairs = []
    for (start, (word, owner)), (after, (second, other)) in zip(places, places[1:], strict=False):
        gap = spoken[start + len(word):after]
        joined = bool(LIST_JOINER.fullmatch(gap) or (len(gap.split()) <= ALSO_WORDS and ALSO.search(gap)))
        each = bool(DISJUNCTION.search(gap) or EACH.match(spoken[after + len(second):]))
        pairs.append((owner, other, joined, each))
    for n in range(len(pairs) - 2, -1, -1):  # "Danish, Swedish or Norwegian": the last "or" joins the whole list
        owner, other, joined, each = pairs[n]
        if joined and pairs[n + 1][2] and pairs[n + 1][3]:
            pairs[n] = (owner, other, joined, True)
    for owner, other, joined, each in pairs:
        if root(owner) != root(other) and joined and (not together or each):
            parent[root(other)] = root(owner)
    groups: dict[int, list[int]] = {}
    for n in range(len(found)):
        groups.setdefault(root(n), []).append(n)
    return [found[members[0]] if len(members) == 1 else Constraint.any_of([found[m] for m in members])
            for members in groups.values()]


def _excluded_names(text: str, name_words: Callable[[str], frozenset[int]],
                    name_parts: Callable[[str], frozenset[int]] | None = None) -> dict[str, frozenset[int]]:
    """The datasets a request rules out ("other than the GENIA (GE) ones", "除了 MedDialog 以外"): each word
    with capitals among the four after a negation that is a word of some card's name, aliases or id,
    with the cards NOT named so (those are the cards that satisfy the exclusion); with ``name_parts`` (the cards
    whose names hold a word as a capitalised part), also a word in small letters of five or more that is such a
    part of at most :data:`PART_MAX` cards' names ("excluding the biology and bioinformatics ones":
    R2MEDBiologyRetrieval, R2MEDBioinformaticsRetrieval)."""
    out: dict[str, frozenset[int]] = {}
    for cue in _EXCLUDED_NAMES.finditer(text):
        depth = 0
        for token in cue.group(1).split():
            if token in ("-", "–", "—"):  # "without labels - clustering rather than ...": the clause ends
                break
            depth += token[0] in "(（"
            for word in _EXCLUDABLE.findall(token):
                if word not in out and (hit := name_words(word)):
                    out[word] = hit
            word = token.strip("()（）,.;:!?'\"")
            if name_parts is not None and _PART_WORD.fullmatch(word) and word not in out and (
                    0 < len(hit := name_parts(word)) <= PART_MAX):
                out[word] = hit
            if token[-1] in ")）":
                if not depth:  # "(not datasets) from the CMeKG project": the negation ends with its bracket
                    break
                depth -= 1
    for clause in _negated_clauses(text):
        for word in _EXCLUDABLE.findall(clause):
            if word not in out and (hit := name_words(word)):
                out[word] = hit
        for year in _YEAR.findall(clause):
            if name_parts is not None and year not in out and 0 < len(hit := name_parts(year)) <= PART_MAX:
                out[year] = hit  # "2020 年那届不要"
    everyone = name_words("")
    return {word: everyone - hit for word, hit in out.items()}


PART_MAX = 20
"""The most cards whose names a ruled-out word in small letters or year may be part of ("biology", "2020")."""
_YEAR = re.compile(r"(?<!\d)(?:19|20)\d{2}(?!\d)")
_PART_WORD = re.compile(r"[a-z]{5,}|(?:19|20)\d{2}")
"""A ruled-out word that may be a part of card names: a word in small letters of five or more, or a year."""
_SENTENCE = re.compile(r"(?:[^。；;!?！？\n.]|\.(?!\s))+")
_CLAUSE = re.compile(r"(?:[^，,：:()—–-]|(?<!\s)[—–-]|[—–-](?!\s))+")
_POST_CUES = r"(?:不需要|不要|不用|用不到|用不上|不考虑)了?"
_LATIN_POST_CUES = (
    r"\b(?:(?:is|are)(?: not|n t) (?:what (?:i|we|they) (?:need|want|mean|am looking for|are looking for)|enough"
    r"|needed|wanted|useful|in scope)|(?:won t|will not|doesn t|does not|don t|do not) (?:help|do|count|suffice)"
    r"|(?:is|are) out(?: of scope)?|(?:is|are)(?: not|n t) it|we (?:already )?have (?:\w+ ){0,3}already)")
_POST_NEGATION = re.compile(_POST_CUES + r"\W*$")
_LATIN_POST_NEGATION = re.compile(
    _LATIN_POST_CUES + r"(?: (?:for|to) (?:us|them|me|this|here|(?:our|my|the) \w+))?\W*$")
"""A clause that ends by ruling out what it names ("ICD-10 和 ICD-11 ... 不需要", "English
ClinicalTrials.gov text is not what they need", "English-only data won't help")."""
_BARE_NEGATION = re.compile(r"^\W*(?:这次|这回|暂时|目前|就|都|也|先)*" + _POST_CUES + r"\W*$")
"""A clause that is only the negation ("这次不需要"): it rules out what the clause before it names."""
_CLAUSE_CHARS = r"[^,;.!?，。；：:()（）]"
_CUE = re.compile(rf"(?:\b(?:{_LATIN_CUES}|{_NONE_THAT})\b|{_CJK_CUES})"
                  rf"(?:{_CLAUSE_CHARS}*(?:,\s*{_CLAUSE_CHARS}{{1,60}}?)*,?\s+(?:and|or|nor)\s+)?{_CLAUSE_CHARS}*",
                  re.IGNORECASE)
"""A negation and the rest of its clause ("but not the v2 versions with the added Dutch prompt"), or of the list it
opens when one runs on past commas to a last member after "and", "or" or "nor" ("skip machine-translated copies,
chemistry pair tasks and scanned page images")."""


def negated_spans(text: str) -> list[tuple[int, int]]:
    """Where, in ``text``, what a negation rules out lies: from a negation to the end of its clause ("excluding
    the ones hosted on conservancy.umn.edu"), and the clauses that a negation after them rules out."""
    spans = [(m.start(), m.end()) for m in _CUE.finditer(text)]
    for clause in _negated_clauses(text, latin=True):
        if (start := text.find(clause)) >= 0:
            spans.append((start, start + len(clause)))
    return spans


def asked_text(text: str, constraints: list[Constraint]) -> str:
    """``text`` without the spans that rule out what an excluded constraint names ("but not the v2 versions
    ...", "ICD-10 和 ICD-11 我们已经有了，这次不需要"): what is ruled out is not asked for, so its words should
    match nothing. The text as it is when nothing excluded is named, or nothing would be left."""
    terms = [t.lower().replace("_", " ") for c in constraints if c.excluded for t in c.alternatives or (c.term,)]
    if not terms:
        return text
    spans = [m.group(0) for m in _CUE.finditer(text)] + _negated_clauses(text)
    out = text
    for span in spans:
        folded = span.lower().replace("_", " ")
        if any(term in folded for term in terms):
            out = out.replace(span, " ")
    out = " ".join(out.split())
    return out if out.strip(" ,;.!?，。；：:") else text


def _post_negated_spans(query: str, spoken: str) -> list[tuple[int, int]]:
    """Where, in the folded ``spoken`` text, the clauses of ``query`` that a negation after them rules out lie
    (:func:`_negated_clauses`: "各种翻译版（荷兰语、波斯语）都先不要"), as ``(start, end)``."""
    return _folded_spans(_negated_clauses(query, latin=True), spoken)


def _folded_spans(clauses: list[str], spoken: str) -> list[tuple[int, int]]:
    """Where, in the folded ``spoken`` text, each of ``clauses`` (of the query) lies, as ``(start, end)``."""
    spans = []
    for clause in clauses:
        folded = fold(clause).strip()
        start = spoken.find(folded) if folded else -1
        while start >= 0:
            spans.append((start, start + len(folded)))
            start = spoken.find(folded, start + 1)
    return spans


def _negated_clauses(text: str, latin: bool = False) -> list[str]:
    """The clauses of ``text`` that a negation after them rules out: a clause ending in one, or the clause
    before a clause that is nothing but one ("ICD-10 和 ICD-11 我们已经有了，这次不需要"), with that one;
    ``latin``: also an English clause ending in one ("English-only data won't help"; read for languages only,
    since a dataset name in such a clause often names the wanted card's sibling: "the OMAHA terminology
    sample is not needed")."""
    out = []
    for sentence in _SENTENCE.findall(text):
        clauses = list(_CLAUSE.finditer(sentence))
        for i, clause in enumerate(clauses):
            if _BARE_NEGATION.match(clause.group()):
                if i:
                    out.append(sentence[clauses[i - 1].start():clause.end()])
            elif _POST_NEGATION.search(clause.group()) or (
                    latin and clause.group().isascii() and _LATIN_POST_NEGATION.search(fold(clause.group()))):
                out.append(clause.group())
    return out


IMAGE_GROUPS = ("mri", "ct", "xray", "ultrasound", "histopathology", "dermoscopy", "fundus", "electron_microscopy",
                "mammography", "oct", "pet")
"""Kinds of images: a card holding one of them also holds "images"."""


def group_words(kind: ConstraintKind, group: str) -> tuple[str, str | None]:
    """The words a card may carry for ``group`` and, for a country, its language code (or None)."""
    label, words, extra = GROUPS[kind][group]
    if kind is ConstraintKind.COUNTRY:
        return words, normalize_language(extra) if extra else None
    if kind is ConstraintKind.MODALITY and group == "image":
        words += " " + " ".join(GROUPS[kind][g][1] for g in IMAGE_GROUPS)
    return f"{words} {extra}".strip(), None
