"""What a catalog entry is: a dataset, or a model, tool, product, article or link page.

The public lists behind the Chinese cards also list pre-trained models, tools, commercial
products, blog posts and link pages. A card may say what it is (``kind``); otherwise it is
inferred from the list section it came from (its tags) and a few name/description markers.
Within a ranking tier, datasets come before the other kinds; every hit reports its kind.
See docs/datasets.md, section 2.
"""

from __future__ import annotations

import re
from urllib.parse import urlparse

from eagle_rag_datasets.catalog.cards import DatasetCard

DATASET = "dataset"
KINDS = ("dataset", "model", "tool", "product", "article", "link")
_TAG_KIND = {
    "词向量/预训练模型": "model", "工业级产品解决方案": "product", "blog分享": "article", "友情链接": "link",
}
_MODEL_NAME = re.compile(r"bert|word2vec", re.IGNORECASE)
_LINK_NAME = re.compile(r"^(地址|豆瓣链接|解读文章|github项目地址|.*官网|.*官方网址|.*评测地址|.*解决方案及代码)$",
                        re.IGNORECASE)
_TOOL_TEXT = ("工具", "系统")


def card_kind(card: DatasetCard) -> str:
    """The card's stated kind, else the inferred one (see the module docstring)."""
    if card.kind:
        return card.kind
    for tag in card.tags:
        if tag in _TAG_KIND:
            return _TAG_KIND[tag]
    if _LINK_NAME.match(card.name):
        return "link"
    if _MODEL_NAME.search(card.name):
        return "model"
    if any(marker in card.name or marker in card.description for marker in _TOOL_TEXT):
        return "tool"
    return DATASET


def host_named(card: DatasetCard) -> bool:
    """Whether the card's name is only the host of its homepage ("github" for a repository at github.com): a
    link's label in the list it came from, which names no dataset. A request that mentions GitHub does not
    ask for such a card, so its name is not one of its names (:func:`own_names`)."""
    host = urlparse(card.homepage or "").netloc.lower()
    return bool(host) and card.name.strip().lower() in host.split(".")


def own_names(card: DatasetCard) -> tuple[str, ...]:
    """The card's name and aliases, without a name that is only its homepage's host (:func:`host_named`)."""
    return tuple(card.aliases) if host_named(card) else (card.name, *card.aliases)
