"""Normalisation of card facets used by filters: language codes, licence identifiers, task labels.

The sources spell the same facet many ways ("English", "eng-Latn", "en"; "cc-by-4.0",
"Creative Commons Attribution 4.0 International", "CC_BY_4p0"). Filters compare normalised
values, so a request for ``--lang zh`` or ``--license cc-by`` finds every spelling
(docs/datasets.md, section 2).
"""

from __future__ import annotations

import re
import unicodedata

import pycountry

_ISO3 = {
    "eng": "en", "cmn": "zh", "zho": "zh", "chi": "zh", "yue": "zh", "spa": "es", "vie": "vi",
    "nld": "nl", "dut": "nl", "fas": "fa", "per": "fa", "pol": "pl", "slk": "sk", "kor": "ko",
    "dan": "da", "deu": "de", "ger": "de", "fra": "fr", "fre": "fr", "ita": "it", "por": "pt",
    "jpn": "ja", "ara": "ar", "rus": "ru", "swe": "sv", "nor": "no", "nob": "no", "ces": "cs",
    "hin": "hi", "tur": "tr", "msa": "ms", "zsm": "ms", "ron": "ro", "ben": "bn", "hun": "hu",
    "ind": "id", "tha": "th", "urd": "ur", "mya": "my", "ell": "el", "heb": "he", "fin": "fi",
}
_NAMES = {
    "english": "en", "chinese": "zh", "mandarin": "zh", "spanish": "es", "vietnamese": "vi",
    "dutch": "nl", "persian": "fa", "farsi": "fa", "polish": "pl", "slovak": "sk", "korean": "ko",
    "danish": "da", "german": "de", "french": "fr", "italian": "it", "portuguese": "pt",
    "japanese": "ja", "arabic": "ar", "russian": "ru", "swedish": "sv", "norwegian": "no",
    "czech": "cs", "hindi": "hi", "turkish": "tr", "malay": "ms", "romanian": "ro", "greek": "el",
    "中文": "zh", "汉语": "zh", "漢語": "zh", "英文": "en", "英语": "en", "日语": "ja", "日文": "ja",
    "韩语": "ko", "西班牙语": "es", "德语": "de", "法语": "fr",
}
_ISO3_SCRIPT = re.compile(r"^([a-z]{3})(?:-[a-z]{4})?$")

_UNKNOWN = frozenset({
    "", "unknown", "not specified", "not-specified", "license information unavailable", "none",
    "n/a", "na", "unspecified", "licenses.unknown",
})
_LICENSE_ALIASES = {
    "mit-license": "mit", "the-mit-license": "mit", "apache-license-2.0": "apache-2.0",
    "apache-2": "apache-2.0", "isc-license": "isc", "public-domain-mark-1.0": "pdm-1.0",
    "data-user-agreement": "dua", "licenses.dua": "dua", "gnu-general-public-license-v3.0-only":
    "gpl-3.0-only", "gnu-free-documentation-license-v1.3": "gfdl-1.3", "gpl-3.0": "gpl-3.0",
    "national-library-of-medicine-terms-and-conditions": "nlm-terms", "nlm-license": "nlm-terms",
}
_CC_WORDS = (
    ("non-commercial", "nc"), ("noncommercial", "nc"), ("share-alike", "sa"), ("sharealike", "sa"),
    ("no-derivatives", "nd"), ("noderivatives", "nd"),
)
_TASK_ALIASES = {"ner": "named entity recognition", "qa": "question answering"}


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip().lower()


def normalize_language(value: str) -> str:
    """An ISO 639-1 code where known ("English", "eng-Latn", "en" -> "en"); else the folded value."""
    text = _fold(value)
    text = re.sub(r"\s*\(.*\)$", "", text)  # "chinese (simplified)" -> "chinese"
    if text in _NAMES:
        return _NAMES[text]
    if len(text) == 2 and text.isalpha():
        return text
    match = _ISO3_SCRIPT.match(text)
    if match and match.group(1) in _ISO3:
        return _ISO3[match.group(1)]
    if match:  # any other ISO 639-2/3 code with a two-letter code ("tel-Telu" -> "te")
        found = pycountry.languages.get(alpha_3=match.group(1))
        return str(getattr(found, "alpha_2", text))
    return text


def license_id(raw: str | None) -> str:
    """A normalised licence identifier: ``cc-by-4.0``, ``mit``, ``dua``, ``custom``, ``unknown``...

    Free-text custom licences (BigBIO's ``CustomLicense(...)``) and links become ``custom``.
    """
    if raw is None:
        return "unknown"
    text = raw.strip()
    if text.startswith("CustomLicense(") or text.lower().startswith("http"):
        return "custom"
    text = _fold(text)
    if text in _UNKNOWN:
        return "unknown"
    text = re.sub(r"^licenses\.", "", text)
    text = re.sub(r"[\s_]+", "-", text)
    text = re.sub(r"(\d)p(\d)", r"\1.\2", re.sub(r"-{2,}", "-", text))
    if text in _UNKNOWN:
        return "unknown"
    if text.startswith("creative-commons"):
        return _creative_commons(text)
    return _LICENSE_ALIASES.get(text, text)


def _creative_commons(text: str) -> str:
    version = re.search(r"(\d+\.\d+)", text)
    ver = f"-{version.group(1)}" if version else ""
    if "zero" in text:
        return f"cc0{ver}"
    parts = ["cc", "by"] if "attribution" in text else ["cc"]
    for word, code in _CC_WORDS:
        if word in text and code not in parts:
            parts.append(code)
    return "-".join(parts) + ver


def license_matches(card_license: str, wanted: str) -> bool:
    """True when the card's licence id equals ``wanted`` or is a version of it.

    ``cc-by`` matches ``cc-by-4.0`` and ``cc-by-3.0`` but not ``cc-by-sa-4.0``.
    """
    want = license_id(wanted)
    if card_license == want:
        return True
    rest = card_license[len(want) + 1:] if card_license.startswith(want + "-") else ""
    return bool(rest) and rest[0].isdigit()


def normalize_task(value: str) -> str:
    """A task label in lower case with spaces ("NAMED_ENTITY_RECOGNITION" -> "named entity recognition")."""
    text = re.sub(r"[\s_]+", " ", _fold(value)).strip()
    return _TASK_ALIASES.get(text, text)


def normalize_facet(value: str) -> str:
    """Source and tag comparison key: NFKC, lower case, inner whitespace collapsed."""
    return re.sub(r"\s+", " ", _fold(value))
