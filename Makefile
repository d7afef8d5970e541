# Set-up and entry points. `make demo` and `make test` work on a fresh clone (PyPI only).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
BASE := $(VENV)/.base-installed
DEV := $(VENV)/.dev-installed

.PHONY: setup setup-dev demo test lint typecheck bench clean

$(BASE): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e .
	touch $@

# The test set-up adds the dev tools and the optional `transformers` extra. CPU torch comes
# from the local torch==2.13.0 file (a plain `torch` would pull a multi-GB CUDA build).
$(DEV): $(BASE)
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[dev,transformers,langchain,llama-index,ray]"
	touch $@

setup: $(BASE)
setup-dev: $(DEV)

demo: $(BASE)
	$(BIN)/eagle-rag demo

lint: $(DEV)
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy src/eagle_rag src/eagle_rag_biomed src/eagle_rag_datasets

# two pytest workers (pytest-xdist): one file, or the files that share a server, per worker (tests/conftest.py)
test: $(DEV) lint
	$(BIN)/pytest -n 2

bench: $(BASE)
	$(BIN)/python bench/bench_scifact.py

clean:
	rm -rf $(VENV) build *.egg-info
