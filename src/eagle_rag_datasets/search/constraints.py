"""Constraint terms: the query words that rule cards out (docs/datasets.md, "Constraint terms").

A query word that names a language, a data modality, a species, a country, or a specific dataset
or benchmark is a constraint. A card satisfies it when:

* language: the card's languages include it ("Polish", "波兰语" -> ``pl``), or the card lists no
  language at all (it contradicts none); "Chinese" in "Traditional Chinese Medicine" is no language;
* modality, species, country: the card's own text (name, aliases, descriptions, tags, tasks) says
  one of the words of its group ("X-ray" is satisfied by a card that says "radiograph" or "影像");
  a country is also satisfied by a card in the country's own language (Japan -> ``ja``);
* named dataset: a name-like token (CamelCase ``ImageNet``, letters with digits ``CORD-19``, a
  roman-numeral version ``MIMIC-IV``) is found in the card at a full lexical tier (exact, alias,
  words, synonym or typo).

Cards that do not satisfy every constraint of a query are dropped from both channels. When no
card of the catalog satisfies one, the answer is empty and names that term
(:attr:`Constraint.message`). Latin words match whole words of the card's flat text; Chinese words
match as substrings. The card sets of the fixed groups are computed once per catalog.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from eagle_rag_datasets.catalog.facets import normalize_language
from eagle_rag_datasets.search.proximity import fold


class ConstraintKind(StrEnum):
    LANGUAGE = "language"
    MODALITY = "modality"
    SPECIES = "species"
    COUNTRY = "country"
    NAME = "name"


# code: (label, query words). The words are matched in the query only.
LANGUAGES: dict[str, tuple[str, str]] = {
    "en": ("English", "english 英文 英语"), "zh": ("Chinese", "chinese mandarin 中文 汉语 普通话"),
    "es": ("Spanish", "spanish 西班牙语 西班牙文"), "de": ("German", "german 德语 德文"),
    "fr": ("French", "french 法语 法文"), "it": ("Italian", "italian 意大利语"),
    "pt": ("Portuguese", "portuguese 葡萄牙语"), "nl": ("Dutch", "dutch 荷兰语"),
    "pl": ("Polish", "polish 波兰语 波兰文"), "ru": ("Russian", "russian 俄语 俄文"),
    "ja": ("Japanese", "japanese 日语 日文"), "ko": ("Korean", "korean 韩语 韩文 朝鲜语"),
    "vi": ("Vietnamese", "vietnamese 越南语"), "ar": ("Arabic", "arabic 阿拉伯语"),
    "fa": ("Persian", "persian farsi 波斯语"), "hi": ("Hindi", "hindi 印地语"),
    "sv": ("Swedish", "swedish 瑞典语"), "no": ("Norwegian", "norwegian 挪威语"),
    "da": ("Danish", "danish 丹麦语"), "fi": ("Finnish", "finnish 芬兰语"), "cs": ("Czech", "czech 捷克语"),
    "sk": ("Slovak", "slovak 斯洛伐克语"), "hu": ("Hungarian", "hungarian 匈牙利语"),
    "ro": ("Romanian", "romanian 罗马尼亚语"), "el": ("Greek", "greek 希腊语"),
    "tr": ("Turkish", "turkish 土耳其语"), "he": ("Hebrew", "hebrew 希伯来语"), "th": ("Thai", "thai 泰语"),
    "id": ("Indonesian", "indonesian 印尼语"), "ms": ("Malay", "malay 马来语"),
    "uk": ("Ukrainian", "ukrainian 乌克兰语"), "bn": ("Bengali", "bengali bangla 孟加拉语"),
    "ur": ("Urdu", "urdu 乌尔都语"), "sw": ("Swahili", "swahili 斯瓦希里语"), "ta": ("Tamil", "tamil 泰米尔语"),
    "ca": ("Catalan", "catalan 加泰罗尼亚语"), "eu": ("Basque", "basque 巴斯克语"),
    "bg": ("Bulgarian", "bulgarian 保加利亚语"), "hr": ("Croatian", "croatian 克罗地亚语"),
    "sr": ("Serbian", "serbian 塞尔维亚语"), "lt": ("Lithuanian", "lithuanian 立陶宛语"),
    "et": ("Estonian", "estonian 爱沙尼亚语"), "sl": ("Slovenian", "slovenian 斯洛文尼亚语"),
}

# group: (label for the message, query words, words a card may carry instead).
GROUPS: dict[ConstraintKind, dict[str, tuple[str, str, str]]] = {
    ConstraintKind.MODALITY: {
        "image": ("images", "image images imaging photos photographs pictures 图像 图片 影像 照片", "photo picture"),
        "mri": ("MRI scans", "mri magnetic_resonance 核磁 磁共振", ""),
        "ct": ("CT scans", "computed_tomography ct_scan ct_scans ct_images", ""),
        "xray": ("X-ray images", "x-ray x-rays xray xrays radiograph radiographs radiography x光", ""),
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
    },
    ConstraintKind.SPECIES: {
        "mouse": ("mice", "mouse mice murine 小鼠", ""), "rat": ("rats", "rat rats 大鼠", ""),
        "zebrafish": ("zebrafish", "zebrafish 斑马鱼", ""), "yeast": ("yeast", "yeast 酵母", ""),
        "fly": ("fruit flies", "drosophila 果蝇", "fly flies"), "worm": ("C. elegans", "elegans 线虫", ""),
        "plant": ("plants", "plant plants arabidopsis botanical 植物", ""),
        "animal": ("animals", "veterinary animal animals livestock wildlife 兽医 动物",
                   "canine feline bovine wildlife fauna zoology zoological taxa taxon bioacoustics"),
        "dog": ("dogs", "dog dogs canine 犬", ""), "cattle": ("cattle", "cattle cow cows bovine 牛", ""),
        "bacteria": ("bacteria", "bacteria bacterial microbial 细菌", "microbe microbes"),
    },
    ConstraintKind.COUNTRY: {
        "japan": ("Japan", "japan 日本", "ja"), "korea": ("Korea", "korea 韩国", "ko"),
        "brazil": ("Brazil", "brazil brazilian 巴西", ""), "india": ("India", "india indian 印度", ""),
        "africa": ("Africa", "africa african 非洲", ""), "nigeria": ("Nigeria", "nigeria nigerian", ""),
        "kenya": ("Kenya", "kenya kenyan", ""), "mexico": ("Mexico", "mexico mexican 墨西哥", ""),
        "canada": ("Canada", "canada canadian 加拿大", ""),
        "australia": ("Australia", "australia australian 澳大利亚", ""),
        "poland": ("Poland", "poland 波兰", "pl"), "russia": ("Russia", "russia 俄罗斯", "ru"),
        "iran": ("Iran", "iran iranian 伊朗", "fa"), "vietnam": ("Vietnam", "vietnam 越南", "vi"),
        "taiwan": ("Taiwan", "taiwan taiwanese 台湾", ""), "hongkong": ("Hong Kong", "香港", ""),
        "singapore": ("Singapore", "singapore 新加坡", ""),
        "uk": ("the United Kingdom", "uk britain british nhs 英国", ""),
    },
}
NOT_LANGUAGE = ("traditional chinese medicine", "chinese medicine", "chinese medicines", "chinese herbal",
                "chinese herbs", "chinese herb")
"""Phrases whose language word names no language ("Traditional Chinese Medicine")."""
_PHRASE = {ConstraintKind.LANGUAGE: "is in", ConstraintKind.MODALITY: "holds",
           ConstraintKind.SPECIES: "is about", ConstraintKind.COUNTRY: "is from", ConstraintKind.NAME: "names"}
CJK_TEXT = re.compile(r"[\u3400-\u9fff]")
_NAME_LIKE = re.compile(r"(?<![\w-])((?:[A-Za-z]*[a-z][A-Z][A-Za-z]*|[A-Za-z]+\d+[A-Za-z0-9]*|[A-Za-z]+-\d+[A-Za-z]*"
                        r"|[A-Z]{3,}-(?:I{1,3}|IV|V|VI))(?:-[A-Za-z0-9]+)*)(?![\w-])")


@dataclass(frozen=True)
class Constraint:
    """One constraint term of a query and the cards that satisfy it."""

    kind: ConstraintKind
    term: str
    label: str
    cards: frozenset[int]
    named: frozenset[int] = frozenset()
    """For a dataset name: the cards whose own name, alias or id it is (they rank first)."""

    @property
    def restricts(self) -> bool:
        """Whether the constraint drops the cards that do not satisfy it. A named dataset that some card
        carries does not: the exact and alias tiers already rank it first, and the other cards stay as
        neighbours; a name no card carries empties the answer."""
        return self.kind is not ConstraintKind.NAME or not self.cards

    def message(self, size: int) -> str:
        """"no card in the catalog is in Polish (0 of 386)" (or "holds images", "names MIMIC-IV", ...)."""
        return f"no card in the catalog {_PHRASE[self.kind]} {self.label} ({len(self.cards)} of {size})"

    def to_dict(self, size: int) -> dict[str, object]:
        return {"kind": self.kind.value, "term": self.term, "label": self.label, "cards": len(self.cards),
                "of": size}


def says(flat: str, word: str) -> bool:
    """True when ``flat`` (padded text through :func:`~.proximity.fold`) holds ``word``: a substring for
    Chinese, else whole words ("x-ray" and "heart_sound" are two words)."""
    return word in flat if CJK_TEXT.search(word) else f" {word.replace('-', ' ').replace('_', ' ')} " in flat


def _first(query: str, words: str) -> str | None:
    return next((w for w in words.split() if says(query, w)), None)


def group_cards(flat_texts: list[str], words: str) -> frozenset[int]:
    """Cards whose flat text says any of ``words``."""
    folded = words.split()
    return frozenset(i for i, text in enumerate(flat_texts) if any(says(text, w) for w in folded))


def detect(query: str, languages: dict[str, frozenset[int]], unknown: frozenset[int],
           groups: Callable[[ConstraintKind, str], frozenset[int]],
           named: Callable[[str], tuple[frozenset[int], frozenset[int]]]) -> list[Constraint]:
    """The constraints of ``query``. ``languages``: language code -> cards; ``unknown``: the cards that
    list no language (they contradict no language); ``groups(kind, group)``: the cards satisfying a
    group; ``named(token)``: the cards carrying a name-like token, and those whose name, alias or id it is."""
    folded = fold(query)
    found: list[Constraint] = []
    spoken = folded
    for phrase in NOT_LANGUAGE:
        spoken = spoken.replace(f" {phrase} ", " ")
    for code, (label, words) in LANGUAGES.items():
        if (term := _first(spoken, words)) is not None:
            found.append(Constraint(ConstraintKind.LANGUAGE, term, label, languages.get(code, frozenset()) | unknown))
    for kind, table in GROUPS.items():
        for group, (label, words, _) in table.items():
            if (term := _first(folded, words)) is not None:
                found.append(Constraint(kind, term, label, groups(kind, group)))
    for match in _NAME_LIKE.finditer(unicodedata.normalize("NFKC", query)):
        token = match.group(1)
        found.append(Constraint(ConstraintKind.NAME, token, token, *named(token)))
    return found


IMAGE_GROUPS = ("mri", "ct", "xray", "ultrasound", "histopathology", "dermoscopy", "fundus")
"""Kinds of images: a card holding one of them also holds "images"."""


def group_words(kind: ConstraintKind, group: str) -> tuple[str, str | None]:
    """The words a card may carry for ``group`` and, for a country, its language code (or None)."""
    label, words, extra = GROUPS[kind][group]
    if kind is ConstraintKind.COUNTRY:
        return words, normalize_language(extra) if extra else None
    if kind is ConstraintKind.MODALITY and group == "image":
        words += " " + " ".join(GROUPS[kind][g][1] for g in IMAGE_GROUPS)
    return f"{words} {extra}".strip(), None
