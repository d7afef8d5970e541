"""Documents: find one by the id search hits show, its public fields, delete one from every store.

:func:`delete_document` is what ``DELETE /documents/{id}``, ``eagle-rag delete --local`` and the client's
server call; the registry record says which stores and which upload hold the document.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from eagle_rag.errors import AmbiguousDocument, InvalidRequest, NotFound
from eagle_rag.protocols import DocumentRecord
from eagle_rag.redact import UPLOADS_DIR, public_path
from eagle_rag.service.requests import require_kb_name
from eagle_rag.stores.registry import source_file_name
from eagle_rag.types import document_key, is_legacy_key, public_document_id, split_document_key

__all__ = ["delete_document", "document_to_dict", "find_document", "get_document", "remove_empty",
           "remove_upload", "source_file_name"]

if TYPE_CHECKING:
    from eagle_rag.kernel.runtime import Runtime as Engine


def find_document(engine: Engine, document_id: str, kb_name: str | None = None) -> DocumentRecord:
    """The registry record of the document ``document_id`` (its own id, as search hits show it) of
    ``kb_name``; without a kb, of the one kb that holds that id.

    A document written before identity was (kb, id) is found under its unscoped id too. A record id
    that is no valid document id (``doi/10.1000/xyz``: the ingest stored it under ``h-<hash>``,
    :func:`eagle_rag.ingest.records.record_document_id`) finds its document through the same mapping.

    Raises:
        NotFound: no such document (in that kb).
        AmbiguousDocument: no kb named and several kbs hold the id (the message does not name them).
    """
    if kb_name is not None:
        require_kb_name(kb_name)
    by_record_id = _hashed_record_documents(engine, document_id, kb_name)
    if len(by_record_id) > 1:
        raise _ambiguous(document_id)
    if by_record_id:
        return by_record_id[0]
    given_kb, own_id = split_document_key(document_id)
    if given_kb is not None:  # "../etc/passwd", "a b/c": no storage key, an unknown id
        try:
            require_kb_name(given_kb)
        except InvalidRequest:
            where = f" in kb {kb_name!r}" if kb_name is not None else ""
            raise NotFound(f"no document with id {document_id!r}{where}", {"document_id": document_id}) from None
    kb_name = kb_name or given_kb  # both validated above
    if kb_name is not None:
        if given_kb not in (None, kb_name):
            raise NotFound(f"no document with id {document_id!r} in kb {kb_name!r}", {"document_id": document_id})
        kbs = [kb_name]
    else:
        kbs = sorted(engine.registry.kb_names())
    found = [r for r in (engine.registry.get(document_key(kb, own_id)) for kb in kbs) if r is not None]
    legacy = engine.registry.get(own_id) if is_legacy_key(own_id) else None
    if legacy is not None and (kb_name is None or legacy.kb_name == kb_name) \
            and all(r.kb_name != legacy.kb_name for r in found):
        found.append(legacy)
    if not found:
        where = f" in kb {kb_name!r}" if kb_name is not None else ""
        raise NotFound(f"no document with id {document_id!r}{where}", {"document_id": document_id})
    if len(found) > 1:
        raise _ambiguous(own_id)
    return found[0]


def _ambiguous(document_id: str) -> AmbiguousDocument:
    return AmbiguousDocument(f"the document id {document_id!r} exists in several kbs; name the kb: "
                             f"/kbs/{{kb}}/documents/{{id}}, or kb_name", {"document_id": document_id})


def _hashed_record_documents(engine: Engine, record_id: str, kb_name: str | None) -> list[DocumentRecord]:
    """The documents (of ``kb_name``, else of every kb) stored under the ``h-<hash>`` id of
    ``record_id``; none when ``record_id`` is a valid document id, stored as it is."""
    from eagle_rag.ingest.records import is_document_id, record_document_id

    if not record_id.strip() or is_document_id(record_id):
        return []
    kbs = [kb_name] if kb_name is not None else sorted(engine.registry.kb_names())
    found = (engine.registry.get(document_key(kb, record_document_id(record_id, kb))) for kb in kbs)
    return [record for record in found if record is not None]


def get_document(engine: Engine, document_id: str, kb_name: str | None = None) -> dict[str, object]:
    """The registry record of a document (see :func:`find_document`) as a client sees it: ``source_uri``
    is the upload's name or relative to its ingest root, never a path of the server machine.
    Raises NotFound, AmbiguousDocument."""
    record = document_to_dict(find_document(engine, document_id, kb_name))
    settings = engine.settings
    return {**record, "source_uri": public_path(str(record["source_uri"]), settings.data_path,
                                                settings.ingest.allowed_roots)}


def document_to_dict(record: DocumentRecord) -> dict[str, object]:
    """The JSON form of a registry record (``GET /kbs/{kb}/documents/{id}``): ``id`` is the document's
    own id, ``kb_name`` its kb."""
    return {"id": public_document_id(record.id), "kb_name": record.kb_name, "name": record.name,
            "source_uri": record.source_uri,
            "status": record.status.value, "chunk_count": record.chunk_count, "tags": list(record.tags),
            "content_hash": record.content_hash, "created_at": record.created_at.isoformat(),
            "updated_at": record.updated_at.isoformat()}


def delete_document(engine: Engine, document_id: str, kb_name: str | None) -> dict[str, Any]:
    """Remove one document (:func:`find_document` names it) from every store and the registry, and its
    upload. Raises NotFound, AmbiguousDocument."""
    record = find_document(engine, document_id, kb_name)
    if not engine.ingestor.delete_document(engine.request_context(), record.id):
        raise NotFound(f"no document with id {document_id!r}", {"document_id": document_id})
    remove_upload(record.source_uri, engine.settings.data_path)
    return {"document_id": public_document_id(record.id), "kb_name": record.kb_name, "deleted": True}


def remove_empty(folder: Path) -> None:
    """Remove ``folder`` when it is empty (quietly otherwise)."""
    with contextlib.suppress(OSError):
        folder.rmdir()


def remove_upload(source_uri: str, data_path: Path) -> None:
    """Delete an uploaded source file (only when it lies under ``<data_dir>/uploads``) and its folder
    when that is left empty."""
    root = (data_path / UPLOADS_DIR).resolve()
    path = Path(source_uri.split("#", 1)[0]).resolve()
    if path.is_relative_to(root) and path.is_file():
        path.unlink(missing_ok=True)
        if path.parent != root and path.parent.parent != root:
            remove_empty(path.parent)
