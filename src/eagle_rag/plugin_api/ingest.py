"""What an ingest hook works with: parsed records and their failures, document ids, the source files
under the allowed roots, and the dispatch helpers of the embed stage.

Part of the plugin API (:mod:`eagle_rag.plugin_api`): stable, and the only place a plugin takes these from.
"""

from __future__ import annotations

from eagle_rag.ingest.dispatch import embed_input, is_visual_chunk
from eagle_rag.ingest.parsers import file_document_id, record_document_id
from eagle_rag.ingest.records import ParseResult, Record, RecordFailure
from eagle_rag.ingest.sources import allowed_ingest_roots, iter_source_files

__all__ = [
    "ParseResult",
    "Record",
    "RecordFailure",
    "allowed_ingest_roots",
    "embed_input",
    "file_document_id",
    "is_visual_chunk",
    "iter_source_files",
    "record_document_id",
]
