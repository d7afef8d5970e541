"""The command line (``eagle-rag``): :mod:`eagle_rag.cli.app` declares the commands, one module a group
of them; every command calls the service through a :class:`~eagle_rag.service.backend.Backend`."""
