"""Eagle-RAG ``datasets`` plugin: search a catalog of biomedical dataset cards.

Chinese, English and mixed queries; exact names first, narrow synonyms, typo tolerance, and honest
empty and complete answers. Python API: :class:`DatasetCatalog` (``load``, ``search``,
``check_ids``) with :class:`DatasetQuery`; service functions :func:`datasets_search` and
:func:`datasets_check_ids` for the HTTP and MCP layers.
"""

from eagle_rag_datasets.catalog.cards import DatasetCard, LicenseVerdict
from eagle_rag_datasets.catalog.catalog import DatasetCatalog
from eagle_rag_datasets.errors import (
    CardValidationError,
    DatasetsError,
    InvalidQueryError,
    LineError,
    UnknownEngineError,
)
from eagle_rag_datasets.reply.response import DatasetHit, DatasetSearchResponse, FilterExclusion, IdCheckResponse
from eagle_rag_datasets.search.engines import Engine
from eagle_rag_datasets.search.query import DatasetQuery
from eagle_rag_datasets.search.ranking import MatchKind
from eagle_rag_datasets.service import DatasetsService, datasets_check_ids, datasets_search

__all__ = [
    "CardValidationError", "DatasetCard", "DatasetCatalog", "DatasetHit", "DatasetQuery", "DatasetSearchResponse",
    "DatasetsError", "DatasetsService", "Engine", "FilterExclusion", "IdCheckResponse", "InvalidQueryError",
    "LicenseVerdict", "LineError", "MatchKind", "UnknownEngineError", "datasets_check_ids", "datasets_search",
]
