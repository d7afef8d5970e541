"""The server fixtures of :mod:`tests.milvus_servers`, for the tests of the at-scale configuration."""

from tests.milvus_servers import (  # noqa: F401 - pytest finds fixtures by name
    milvus235,
    milvus235_uri,
    milvus_cluster_uri,
    milvus_lite_server_uri,
    postgres_database,
)
