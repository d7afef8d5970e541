"""Settings: defaults, then the active profile, then a YAML file, then ``EAGLE_RAG_*`` env vars.

Nested keys use ``__`` in env vars: ``EAGLE_RAG_ROUTER__RRF_K=30``. The YAML file is
``EAGLE_RAG_SETTINGS_FILE`` or ``./eagle-rag.yaml`` when present; it may hold its own ``profiles:``
block, which overlays the built-in profiles. ``effective_settings`` also reports, for every key,
where its value came from (``default``, ``profile:NAME``, ``file:PATH`` or ``env:VAR``).
"""

from __future__ import annotations

import copy
import difflib
import logging
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Literal

import yaml
from platformdirs import user_data_dir
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from eagle_rag.types import EncoderMode, HybridMode

ENV_PREFIX = "EAGLE_RAG_"
log = logging.getLogger(__name__)


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RouterSettings(_Block):
    rrf_k: int = Field(60, ge=1, description="RRF smoothing constant k: score += 1/(k + rank)")
    hybrid_mode: HybridMode = Field(HybridMode.RRF, description="rrf (rank fusion) or alpha (blend)")
    hybrid_alpha: float = Field(0.5, ge=0.0, le=1.0, description="alpha*dense + (1-alpha)*sparse")
    hybrid_text_collections: list[str] = Field(
        default_factory=list, description="collections fused dense+sparse; empty = registry decides"
    )
    collection_recall_top_k: int = Field(20, ge=1, le=1000, description="candidate pool per plan")
    channel_top_k: int = Field(50, ge=1, le=1000, description="per-channel depth (BM25, dense)")
    rerank_pool: int = Field(20, ge=1, le=1000, description="candidates handed to reranking")
    final_top_k: int = Field(5, ge=1, le=100, description="default hits returned")
    parent_doc_retrieval: bool = Field(True, description="group chunks by parent document")
    parent_doc_max_chunks: int = Field(1, ge=1, le=50, description="chunks one document may keep")
    lexical_weight: float = Field(
        0.5, ge=0.0, description="RRF weight of the lexical channel (Latin script; tuned on SciFact train)"
    )
    dense_weight: float = Field(1.0, ge=0.0, description="RRF weight of the dense channel (Latin script)")
    dense_weight_cjk: float = Field(
        1.0, ge=0.0, description="RRF weight of the dense channel for CJK queries"
    )
    lexical_weight_cjk: float = Field(
        0.3, ge=0.0, description="RRF weight of the lexical channel for CJK queries (tuned on KUAKE-QTR, see bench)"
    )
    lexical_weight_symbol: float = Field(
        1.0, ge=0.0, description="RRF weight of the lexical channel for a query that is one identifier (a SMILES, "
        "an accession or catalogue number: one token with digits or symbols)"
    )
    dense_weight_symbol: float = Field(
        0.1, ge=0.0, description="RRF weight of the dense channel for a one-identifier query (its embedding is "
        "close to noise; the exact lexical match leads)"
    )
    sentence_weight: float = Field(
        0.5, ge=0.0, description="RRF weight of the sentence channel (chunks ranked by their best sentence) in "
        "collections with sentence rows (ingest.sentence_collections), Latin-script queries; 0 = off "
        "(tuned on SciFact train)"
    )


class MilvusSettings(_Block):
    uri: str = Field("", description="Milvus URI; empty = Milvus Lite file under data_dir")
    db_name: str = Field("default", description="Milvus database (server only)")
    token: SecretStr = Field(SecretStr(""), description="Milvus server token, e.g. user:password or an API key "
                                                        "(env EAGLE_RAG_MILVUS__TOKEN); empty = none")
    user: str = Field("", description="Milvus server user (with milvus.password; ignored when milvus.token is set)")
    password: SecretStr = Field(SecretStr(""), description="Milvus server password (env "
                                                           "EAGLE_RAG_MILVUS__PASSWORD)")

    def credentials(self) -> str:
        """The token ``MilvusClient`` is given: ``milvus.token``, else ``user:password``, else empty."""
        token = self.token.get_secret_value()
        if token:
            return token
        return f"{self.user}:{self.password.get_secret_value()}" if self.user else ""


class LexicalSettings(_Block):
    backend: Literal["tantivy", "milvus"] = Field(
        "tantivy", description="BM25 index: tantivy (local folder, index-wide statistics) | milvus (the "
        "Milvus BM25 function in the vector database; Milvus Lite keeps its statistics per segment)"
    )


class RegistrySettings(_Block):
    url: str = Field("", description="SQLAlchemy URL; empty = SQLite file under data_dir")


class EncoderSettings(_Block):
    mode: EncoderMode = Field(EncoderMode.AUTO, description="deterministic | require_native | auto")
    text_model: str = Field("bundled:bge-small-en-v1.5", description="model of label bge-small")
    multilingual_model: str = Field("bundled:multilingual-e5-small", description="label e5")
    rerank_model: str = Field("bundled:ms-marco-MiniLM-L-12-v2", description="label minilm-rerank")
    batch_size: int = Field(32, ge=1, le=1024, description="passages per encoder batch")
    threads: int = Field(0, ge=0, description="ONNX Runtime threads (0 = all cores)")
    cjk_ratio_threshold: float = Field(
        0.3, ge=0.0, le=1.0, description="passages above this CJK share go to the multilingual collection"
    )


class IngestSettings(_Block):
    chunk_chars: int = Field(1500, ge=100, le=20000, description="target chunk size in characters")
    chunk_overlap: int = Field(150, ge=0, le=5000, description="overlap between split chunks")
    max_file_bytes: int = Field(50_000_000, ge=1, description="files over this are refused; multi-record files "
                                "(JSONL, JSON, CSV, TSV) are read record by record, any size, and it bounds one record")
    max_record_errors: int | None = Field(
        None, ge=0, description="bad records a file may have before its ingest stops (the records before stay "
        "written); unset = the larger of 1,000 and 1% of the records read so far"
    )
    allowed_roots: list[str] = Field(default_factory=list, description="server-side ingest roots")
    commit_every: int = Field(2000, ge=1, description="chunks between lexical-index commits")
    sentence_collections: list[str] = Field(
        default_factory=list, description="collections whose chunks also get one vector per sentence, in the "
        "companion collection <name>__sentences (the sentence channel; about 3x the embedding work)"
    )
    token_vector_collections: list[str] = Field(
        default_factory=list, description="collections whose chunks also get late-interaction token vectors "
        "(eagle_embed_tokens) in <data_dir>/token_vectors.sqlite (in the registry's database when registry.url "
        "is PostgreSQL), so a query encodes only itself (biomed: "
        "eagle_text_biomed and eagle_text); it adds one model pass per chunk at ingest and about 143 KiB per "
        "chunk on disk"
    )


class SearchSettings(_Block):
    max_query_chars: int = Field(2000, ge=1, description="longer queries are refused")
    max_top_k: int = Field(100, ge=1, le=1000, description="largest top_k a request may ask")
    max_window: int = Field(100, ge=1, le=1000, description="largest offset + top_k of a request (pagination "
                                                            "depth)")
    retrieval_window: int = Field(
        100, ge=1, le=1000, description="candidates every search ranks, whatever its top_k and offset (more when "
        "offset + top_k asks more): a page is a slice of that one ranking, and total does not move with top_k; "
        "100 is the depth the quality figures of bench/README.md were measured at")
    max_filter_values: int = Field(
        100, ge=1, le=100, description="most values of one filter list (kb names, document ids, tags, ...) per "
        "request; at most 100, the limit the HTTP schema states"
    )
    min_dense_similarity: float | None = Field(
        None, ge=0.0, le=1.0,
        description="drop semantic-only hits below this cosine; unset = the floor calibrated for the "
                    "collection's encoder (bundled bge-small 0.65, others none), 0 = off",
    )
    cross_encoder_weight: float = Field(1.0, ge=0.0, description="RRF weight of the CE rank (mode full)")
    cross_encoder_pool: int = Field(20, ge=1, le=200, description="candidates scored by the core cross-encoder "
                                    "in mode full (the merged list handed to Tier-2 is at least this deep)")
    cross_encoder_max_tokens: int = Field(256, ge=16, le=512, description="CE passage truncation")
    multilingual_rerank_weight: float = Field(
        1.0, ge=0.0, description="RRF weight of the multilingual e5 query-passage cosine rank (mode full) for the "
        "candidates the cross-encoder's languages leave out (Chinese); 0 = off (tuned on KUAKE-QTR, see bench)"
    )
    full_relevance_prior: bool = Field(
        True, description="mode full: when the profile's hybrid relevance model orders the hybrid hits (a "
        "rank_depth), the candidates handed to the merged rerank are ordered by it first, so the rerank's prior "
        "(the incoming rank) is the order a hybrid search returns; false = the fused order (see bench)"
    )


class PluginSettings(_Block):
    enabled: list[str] = Field(default_factory=list, description="entry-point plugins to load")
    default_namespace: str = Field("default", description="namespace requests run in")
    options: dict[str, dict[str, Any]] = Field(default_factory=dict, description="per-plugin knobs")


class AuditSettings(_Block):
    jsonl_path: str = Field("", description="JSONL audit file; empty = data_dir/audit.jsonl")
    ring_size: int = Field(500, ge=1, description="recent decisions kept in memory")
    redis_url: str = Field("", description="Redis URL for the audit list sink; empty = off")
    redis_key: str = Field("eagle_rag:audit", description="Redis list the audit sink pushes to")
    redis_max_len: int = Field(10_000, ge=1, description="the Redis list is trimmed to this length")
    redis_timeout_s: float = Field(0.25, gt=0, le=10, description="Redis connect/read timeout (seconds)")
    redis_retry_after_s: float = Field(
        30.0, ge=0, description="after a Redis failure, skip the sink for this long (seconds)"
    )
    prometheus: bool = Field(True, description="count decisions in Prometheus counters (/metrics)")


class ApiSettings(_Block):
    host: str = Field("127.0.0.1", description="eagle-rag serve: bind address")
    port: int = Field(8000, ge=1, le=65535, description="eagle-rag serve: port")
    api_key: SecretStr = Field(
        SecretStr(""), description="require this X-API-Key header (env EAGLE_RAG_API__API_KEY); empty = off"
    )
    cors_origins: list[str] = Field(
        default_factory=list, description="CORS allowed origins; empty = CORS off"
    )
    max_body_bytes: int = Field(1_000_000, ge=1, description="largest request body (except uploads)")
    max_upload_bytes: int = Field(50_000_000, ge=1, description="largest POST /ingest request body")
    max_batch: int = Field(32, ge=1, le=1000, description="most searches in one POST /search/batch")
    max_ids_per_request: int = Field(
        100, ge=1, le=100, description="most ids, paths or files in one request (ingest, datasets check); at most "
        "100, the limit the HTTP schema states"
    )
    health_timeout_s: float = Field(2.0, gt=0, le=60, description="time each store gets to answer /health")
    log_format: Literal["json", "text"] = Field("json", description="eagle-rag serve log lines: json | text")
    warm_up: bool = Field(True, description="eagle-rag serve: load and run every model, vocabulary and store of "
                                            "the profile before reporting ready (off: the first query loads them)")
    allowed_origins: list[str] = Field(
        default_factory=list, description="browser origins (scheme://host[:port]) allowed to send POST and DELETE "
        "requests, besides api.cors_origins and the server's own loopback origin; others get 403"
    )
    allowed_hosts: list[str] = Field(
        default_factory=list, description="Host names a browser request may name, besides localhost, 127.0.0.1, "
        "::1 and api.host (DNS-rebinding guard; add the public name when serving behind a proxy)"
    )
    public_docs: bool = Field(
        False, description="with api.api_key set, serve /openapi.json, /docs and /redoc without the key"
    )
    max_upload_bytes_per_kb: int = Field(
        2_000_000_000, ge=0, description="most bytes of uploaded files kept per kb under <data_dir>/uploads; "
        "0 = no quota (with a shared registry no upload is kept)"
    )
    max_concurrent_rerank: int = Field(
        2, ge=1, le=64, description="mode=full searches (cross-encoder reranking) that run at once"
    )
    rerank_queue: int = Field(
        8, ge=0, le=1000, description="mode=full searches that may wait for a slot; beyond, 429 with Retry-After"
    )
    retry_after_s: int = Field(2, ge=1, le=3600, description="the Retry-After of a 429 answer (seconds)")
    body_timeout_s: float = Field(
        10.0, gt=0, le=600, description="longest wait for the next part of a request body; then 408"
    )


class McpSettings(_Block):
    transport: Literal["stdio", "http"] = Field(
        "stdio", description="eagle-rag mcp: stdio | http (streamable HTTP)"
    )
    host: str = Field("127.0.0.1", description="eagle-rag mcp --transport http: bind address")
    port: int = Field(8765, ge=1, le=65535, description="eagle-rag mcp --transport http: port")
    default_top_k: int = Field(5, ge=1, le=50, description="hits a search tool returns by default")
    max_top_k: int = Field(50, ge=1, le=50, description="most hits a search tool may return")
    hit_text_chars: int = Field(1200, ge=100, description="hit text is cut to this many characters")
    namespaces: list[str] = Field(
        default_factory=list, description="tool namespaces served besides core; empty = the default namespace "
        "and every enabled plugin's (its name in plugins.enabled)"
    )


DEFAULT_PROFILE = "biomed"
"""The profile of a plain install: the biomedical pipeline (the ``biomed`` plugin, in the base install)."""
BASE_PROFILE = "general"
"""The core's own pipeline, for non-biomedical corpora; every other profile is laid over it."""
RENAMED_PROFILES = {"default": BASE_PROFILE}
"""Old profile names and what they are called now (``default`` was the general profile's name)."""


class Settings(BaseSettings):
    """The effective settings. Build with :func:`load_settings`."""

    model_config = SettingsConfigDict(extra="forbid")

    profile: str = Field(DEFAULT_PROFILE, description="active profile: biomed (the default) or general "
                                                      "(non-biomedical corpora)")
    data_dir: str = Field("", description="where indexes live; empty = per-user data folder")
    snapshot_dir: str = Field("", description="where eagle-rag snapshot keeps snapshots of the data folder; empty "
                                              "= <data_dir>-snapshots, next to the data folder")
    allow_deterministic: bool = Field(False, description="auto mode may fall back to hash vectors")
    router: RouterSettings = Field(default_factory=RouterSettings)
    milvus: MilvusSettings = Field(default_factory=MilvusSettings)
    lexical: LexicalSettings = Field(default_factory=LexicalSettings)
    registry: RegistrySettings = Field(default_factory=RegistrySettings)
    encoders: EncoderSettings = Field(default_factory=EncoderSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    plugins: PluginSettings = Field(default_factory=PluginSettings)
    audit: AuditSettings = Field(default_factory=AuditSettings)
    api: ApiSettings = Field(default_factory=ApiSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)

    @field_validator("profile")
    @classmethod
    def _known_profile(cls, value: str) -> str:
        return value.strip().lower()

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, *args, **kwargs):  # type: ignore[no-untyped-def,override]
        return (init_settings,)

    # ------------------------------------------------------------------ derived paths
    @property
    def data_path(self) -> Path:
        return Path(self.data_dir) if self.data_dir else Path(user_data_dir("eagle-rag"))

    @property
    def milvus_uri(self) -> str:
        return self.milvus.uri or str(self.data_path / "milvus.db")

    @property
    def registry_url(self) -> str:
        return self.registry.url or f"sqlite:///{self.data_path / 'registry.db'}"

    @property
    def lexical_path(self) -> Path:
        return self.data_path / "lexical"

    @property
    def snapshot_path(self) -> Path:
        data = self.data_path
        return Path(self.snapshot_dir) if self.snapshot_dir else data.with_name(f"{data.name}-snapshots")

    def plugin_options(self, name: str) -> dict[str, Any]:
        """The ``plugins.options.NAME`` block (empty dict when unset)."""
        return dict(self.plugins.options.get(name, {}))


BUILTIN_PROFILES: dict[str, dict[str, Any]] = {
    BASE_PROFILE: {"plugins": {"enabled": ["datasets"], "default_namespace": "default"}},
    "biomed": {
        "plugins": {"enabled": ["biomed", "datasets"], "default_namespace": "biomed"},
        "router": {"hybrid_text_collections": ["eagle_text_biomed", "eagle_text_medcpt"]},
        "ingest": {"sentence_collections": ["eagle_text_biomed"],
                   "token_vector_collections": ["eagle_text_biomed", "eagle_text"]},
        "milvus": {"db_name": "biomed"},
    },
}


class SettingsError(ValueError):
    """Raised for an unknown profile, an unreadable settings file or an invalid value."""


def check_data_folder(data_path: Path) -> None:
    """Raise SettingsError (one line) unless ``data_path`` is a folder, or can be made one: a file in
    its place or in place of a folder above it, or no permission to create it."""
    where = "(data_dir, env EAGLE_RAG_DATA_DIR)"
    if data_path.exists():
        if not data_path.is_dir():
            raise SettingsError(f"the data folder {data_path} is not a folder {where}")
        return
    above = next((p for p in data_path.parents if p.exists()), None)
    if above is None:
        return
    if not above.is_dir():
        raise SettingsError(f"the data folder {data_path} cannot be created: {above} is not a folder {where}")
    if not os.access(above, os.W_OK | os.X_OK):
        raise SettingsError(f"the data folder {data_path} cannot be created: no permission to write in {above} "
                            f"{where}")


def _deep_merge(base: dict[str, Any], over: Mapping[str, Any], source: str,
                sources: dict[str, str], prefix: str = "") -> dict[str, Any]:
    out = copy.deepcopy(base)
    for key, value in over.items():
        dotted = f"{prefix}{key}"
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value, source, sources, dotted + ".")
        else:
            out[key] = copy.deepcopy(value)
            _mark(dotted, value, source, sources)
    return out


def _mark(dotted: str, value: Any, source: str, sources: dict[str, str]) -> None:
    if isinstance(value, Mapping) and value:
        for k, v in value.items():
            _mark(f"{dotted}.{k}", v, source, sources)
    else:
        sources[dotted] = source


def _is_list_field(keys: list[str]) -> bool:
    model: Any = Settings
    for key in keys[:-1]:
        field = model.model_fields.get(key)
        if field is None or not (isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)):
            return False
        model = field.annotation
    field = model.model_fields.get(keys[-1])
    return field is not None and getattr(field.annotation, "__origin__", None) is list


def _env_overrides(environ: Mapping[str, str]) -> list[tuple[str, list[str], Any]]:
    """``EAGLE_RAG_A__B=value`` pairs as (var, [a, b], value). Lists: JSON/YAML or comma-separated."""
    found: list[tuple[str, list[str], Any]] = []
    for var, raw in sorted(environ.items()):
        if not var.startswith(ENV_PREFIX) or var == f"{ENV_PREFIX}SETTINGS_FILE":
            continue
        keys = var[len(ENV_PREFIX):].lower().split("__")
        if keys[0] not in Settings.model_fields:
            if len(keys) > 1:
                log.warning("%s is ignored: %s", var, unknown_name_message("settings block", keys[0], _blocks()))
            continue
        value: Any = raw
        stripped = raw.strip()
        if stripped.startswith(("[", "{")):
            try:
                value = yaml.safe_load(stripped)
            except yaml.YAMLError as exc:
                raise SettingsError(f"{var}: cannot parse {raw!r}: {exc}") from exc
        elif _is_list_field(keys):
            value = [item.strip() for item in stripped.split(",") if item.strip()]
        found.append((var, keys, value))
    return found


def _blocks() -> list[str]:
    """The names of the settings blocks (``registry``, ``search``, ...): the nested models."""
    return [name for name, field in Settings.model_fields.items()
            if isinstance(field.annotation, type) and issubclass(field.annotation, BaseModel)]


def nearest_name(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to a misspelt ``name`` (difflib ratio >= 0.6), or None."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return close[0] if close else None


def unknown_name_message(kind: str, name: str, known: Iterable[str]) -> str:
    """``unknown settings block 'registy'; did you mean 'registry'?`` (or the list of known names)."""
    names = sorted(known)
    guess = nearest_name(name, names)
    hint = f"did you mean {guess!r}?" if guess else f"known: {', '.join(names)}"
    return f"unknown {kind} {name!r}; {hint}"


def _nest(keys: list[str], value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {keys[-1]: value}
    for key in reversed(keys[:-1]):
        out = {key: out}
    return out


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise SettingsError(f"cannot read settings file {path}: {exc}") from exc
    if not isinstance(loaded, dict):
        raise SettingsError(f"settings file {path} must hold a mapping at the top level")
    return loaded


def effective_settings(environ: Mapping[str, str] | None = None,
                       overrides: Mapping[str, Any] | None = None) -> tuple[Settings, dict[str, str]]:
    """Build the settings and a map ``dotted.key -> source`` for every key that was set."""
    env = dict(os.environ if environ is None else environ)
    sources: dict[str, str] = {}
    file_path_raw = env.get(f"{ENV_PREFIX}SETTINGS_FILE", "")
    file_path = Path(file_path_raw) if file_path_raw else Path("eagle-rag.yaml")
    file_data: dict[str, Any] = {}
    if file_path_raw or file_path.is_file():
        if not file_path.is_file():
            raise SettingsError(f"settings file {file_path} does not exist")
        file_data = _read_yaml(file_path)
    env_items = _env_overrides(env)
    profile = str(
        (overrides or {}).get("profile")
        or next((v for _, k, v in env_items if k == ["profile"]), None)
        or file_data.get("profile")
        or DEFAULT_PROFILE
    ).lower()
    profiles = {**BUILTIN_PROFILES, **(file_data.get("profiles") or {})}
    if profile not in profiles:
        renamed = f"; it is called {RENAMED_PROFILES[profile]!r} now" if profile in RENAMED_PROFILES else ""
        raise SettingsError(f"unknown profile {profile!r}{renamed}; known profiles: {', '.join(sorted(profiles))}")
    merged: dict[str, Any] = {}
    if profile != BASE_PROFILE:
        merged = _deep_merge(merged, profiles.get(BASE_PROFILE, {}), f"profile:{BASE_PROFILE}", sources)
    merged = _deep_merge(merged, profiles[profile], f"profile:{profile}", sources)
    body = {k: v for k, v in file_data.items() if k != "profiles"}
    merged = _deep_merge(merged, body, f"file:{file_path}", sources)
    for var, keys, value in env_items:
        merged = _deep_merge(merged, _nest(keys, value), f"env:{var}", sources)
    if overrides:
        merged = _deep_merge(merged, overrides, "override", sources)
    merged["profile"] = profile
    try:
        settings = Settings(**merged)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()
        )
        raise SettingsError(f"invalid settings: {problems}") from exc
    return settings, sources


def load_settings(environ: Mapping[str, str] | None = None,
                  overrides: Mapping[str, Any] | None = None) -> Settings:
    """The effective settings (see module docstring for the order of layers)."""
    return effective_settings(environ, overrides)[0]


def flatten(settings: Settings) -> dict[str, Any]:
    """Every leaf setting as ``dotted.key -> value`` (for ``config show``)."""
    out: dict[str, Any] = {}

    def walk(prefix: str, value: Any) -> None:
        if isinstance(value, dict) and value and prefix != "plugins.options":
            for k, v in value.items():
                walk(f"{prefix}.{k}" if prefix else k, v)
        else:
            out[prefix] = value

    walk("", settings.model_dump(mode="json"))
    return out


def describe_fields() -> dict[str, str]:
    """Help text for every leaf setting, keyed like :func:`flatten`."""
    out: dict[str, str] = {}
    for name, field in Settings.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            for sub, subfield in annotation.model_fields.items():
                out[f"{name}.{sub}"] = subfield.description or ""
        else:
            out[name] = field.description or ""
    return out
