"""The language words of constraint terms (docs/datasets.md, "Constraint terms").

Every ISO 639-1 language, with its English name and its Simplified Chinese name, is read from the
ISO 639 tables that pycountry ships (Debian's iso-codes data and its translations), so a request
for an Icelandic, Yoruba or 藏语 corpus is recognised as a language no card is in. Four Chinese
varieties of ISO 639-3 (Cantonese, Wu, Min Nan, Hakka) are languages of their own here: a request
for Cantonese data is not answered by a Mandarin card. The curated words of :data:`CURATED`
(Mandarin, Farsi, 英文, 汉语 ...) are added to the tables' names.

Names that are also ordinary English words (:data:`AMBIGUOUS`: "Latin America", "ewe") are left
out, as are Chinese names of one character.
"""

from __future__ import annotations

import gettext
import re
from functools import lru_cache

import pycountry

CURATED: dict[str, tuple[str, str]] = {
    "en": ("English", "english 英文 英语"), "zh": ("Chinese", "chinese mandarin 中文 汉语 普通话 华语 汉文"),
    "es": ("Spanish", "spanish castilian 西班牙文"), "de": ("German", "german 德文"), "fr": ("French", "french 法文"),
    "pl": ("Polish", "polish 波兰文"), "ru": ("Russian", "russian 俄文"), "ja": ("Japanese", "japanese 日文"),
    "ko": ("Korean", "korean 韩语 韩文 朝鲜语"), "fa": ("Persian", "persian farsi"),
    "bn": ("Bengali", "bengali bangla"),
    "el": ("Greek", "greek 希腊语"), "ms": ("Malay", "malay 马来语"), "sw": ("Swahili", "swahili 斯瓦希里语"),
    "ne": ("Nepali", "nepali 尼泊尔语"), "pa": ("Punjabi", "punjabi panjabi"),
    "ky": ("Kyrgyz", "kyrgyz kirghiz 吉尔吉斯语"), "ug": ("Uyghur", "uyghur uighur 维语"),
    "ii": ("Yi", "sichuan_yi nuosu 彝语 彝文"), "lo": ("Lao", "lao 老挝语"), "my": ("Burmese", "burmese myanmar 缅语"),
    "id": ("Indonesian", "indonesian bahasa 印度尼西亚语"), "he": ("Hebrew", "hebrew 希伯来文"),
    "ar": ("Arabic", "arabic 阿拉伯文"), "vi": ("Vietnamese", "vietnamese 越南文"),
    "nb": ("Norwegian Bokmål", "bokmal bokmål"), "ht": ("Haitian Creole", "haitian creole"),
    "gd": ("Scottish Gaelic", "gaelic 苏格兰盖尔语"), "dv": ("Divehi", "divehi dhivehi maldivian"),
    "ny": ("Chichewa", "chichewa nyanja"), "ps": ("Pashto", "pashto pushto"),
    "mi": ("Maori", "te_reo te_reo_maori 毛利语"),
}
"""code: (label, extra query words); the label replaces the table's name where given."""

VARIETIES: dict[str, tuple[str, str]] = {
    "yue": ("Cantonese", "cantonese 粤语 广东话 粤方言"), "wuu": ("Wu Chinese", "shanghainese 吴语 上海话"),
    "nan": ("Min Nan", "hokkien 闽南语 闽南话"), "hak": ("Hakka", "hakka 客家话 客家语"),
    "tdd": ("Dai", "傣语 傣文"), "hmn": ("Hmong (Miao)", "hmong 苗语 苗文"),
    "pcc": ("Bouyei", "bouyei 布依语 布依文"), "kmc": ("Dong", "侗语 侗文"), "hni": ("Hani", "哈尼语 哈尼文"),
    "kac": ("Jingpo", "jingpo 景颇语 景颇文"), "nxq": ("Naxi", "naxi 纳西语 纳西文 东巴文"),
    "tji": ("Tujia", "tujia 土家语"), "lis": ("Lisu", "lisu 傈僳语 傈僳文"), "lhu": ("Lahu", "lahu 拉祜语 拉祜文"),
    "lic": ("Li (Hlai)", "hlai 黎语"), "shx": ("She", "畲语"), "prk": ("Wa", "佤语 佤文"),
    "qxs": ("Qiang", "qiang 羌语"), "sjo": ("Xibe", "xibe 锡伯语 锡伯文"), "mnc": ("Manchu", "manchu 满语"),
    "bca": ("Bai", "白族语"),
}
"""Chinese varieties that are languages of their own, and languages of China that ISO 639-1 lacks (Dai, Miao,
Bouyei, Dong, Hani ...: the written languages of China's peoples), by their ISO 639-3 code; only the words
given here, since the table's English names (She, Wa) are ordinary words."""

AMBIGUOUS = frozenset({
    "latin", "ewe", "ido", "twi", "tonga", "ganda", "komi", "kongo", "sango", "venda", "herero", "ndonga", "avaric",
    "interlingua", "interlingue", "kuanyama", "limburgan", "manx", "cree", "fulah", "luba", "katanga", "tsonga",
    "bislama", "nauru", "ojibwa", "swati", "rundi", "sindhi", "sotho", "bashkir", "chuvash", "church", "slavic",
    "ossetian", "kalaallisut", "tahitian", "volapük", "volapuk", "walloon", "romansh", "sardinian", "corsican",
    "cornish", "breton", "occitan", "faroese", "aragonese", "marshallese", "chamorro", "fijian", "samoan",
    "malagasy", "maori", "navajo",
})
"""Table names left out of the query words: ordinary English words, or names a biomedical request uses
for something else. Their languages keep the other words (the Chinese name)."""

_PAREN = re.compile(r"\s*\(([^)]*)\)")


def _names(value: str) -> list[str]:
    """"Malay (macrolanguage)" -> ["malay"]; "汉语 (粤语)" -> ["粤语"]; "A; B" -> ["a", "b"]."""
    out = []
    for part in value.split(";"):
        inner = _PAREN.search(part)
        base = _PAREN.sub("", part).strip()
        if inner and base in ("汉语", "Chinese"):
            base = inner.group(1).strip()
        if base:
            out.append(base.lower().replace(" ", "_"))
    return out


def _usable(word: str) -> bool:
    if re.search(r"[\u3400-\u9fff]", word):
        return len(word) >= 2
    return word not in AMBIGUOUS and len(word) >= 3


@lru_cache(maxsize=1)
def language_words() -> dict[str, tuple[str, str]]:
    """``code -> (label, query words)`` for every language of :mod:`this module <.languages>`."""
    chinese = gettext.translation("iso639-3", pycountry.LOCALES_DIR, languages=["zh_CN"], fallback=True)
    table: dict[str, tuple[str, str]] = {}
    entries = [(lang.alpha_2, lang) for lang in pycountry.languages if hasattr(lang, "alpha_2")]
    entries += [(code, pycountry.languages.get(alpha_3=code)) for code in VARIETIES]
    for code, lang in entries:
        english = _names(lang.name)
        if code in VARIETIES:
            english = []
        words = [w for w in english + _names(chinese.gettext(lang.name)) if _usable(w)]
        label, extra = CURATED.get(code) or VARIETIES.get(code) or (_PAREN.sub("", lang.name).strip(), "")
        words += extra.split()
        table[code] = (label, " ".join(dict.fromkeys(words)))
    return table
