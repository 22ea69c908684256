# Loupe's two quickstart commands: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
HASH := $(shell cksum < pyproject.toml | cut -d' ' -f1)
# `make run` installs what the platform runs; `make test` adds the test tools and the embedding
# scorer's extra (torch, about 1.6 GB), which the demo does not use.
RUN_STAMP := $(VENV)/.installed-run-$(HASH)
TEST_STAMP := $(VENV)/.installed-test-$(HASH)
COMPILED_STAMP := $(VENV)/.compiled-test-$(HASH)
# The front-end checks' npm packages (ESLint), installed again when package-lock.json changes.
NODE_STAMP := node_modules/.installed-$(shell cksum < package-lock.json | cut -d' ' -f1)
export DEBUG ?= 1
# Tests run with production settings (DEBUG off), over plain HTTP on the test client. Their
# Python processes (about 50: xdist workers, Celery workers, commands) write the project's
# bytecode (into __pycache__, ignored by git) even where PYTHONDONTWRITEBYTECODE is set, as on
# CI's machines: otherwise each one compiled the project's modules, and pytest rewrote the
# test modules, again on every start.
# On the embedded broker the tests keep its folders apart from `make run`'s and empty them at
# each run: a run's stopped workers stay bound to the broker's broadcast exchange (kombu keeps
# the binding), and in a shared folder every later run's broadcasts wrote a file to each of them
# (2,087 files in one checkout).
TEST_CELERY_DIR := $(or $(LOUPE_VAR_DIR),$(CURDIR)/var)/test-celery
# The test databases are thrown away at the end of the run, so SQLite's commits do not wait for
# the disk (LOUPE_SQLITE_SYNCHRONOUS=OFF, see config/settings.py).
TEST_ENV := env -u PYTHONDONTWRITEBYTECODE \
	DEBUG=0 SECURE_SSL_REDIRECT=0 SECRET_KEY=$(or $(SECRET_KEY),loupe-test-only-secret-key) \
	CELERY_QUEUE=loupe-test LOUPE_CELERY_DIR=$(TEST_CELERY_DIR) LOUPE_SQLITE_SYNCHRONOUS=OFF

# One pytest-xdist worker per core, plus one (each with its own test database and Celery
# worker; a module's tests stay on one worker, so module fixtures compute once; modules go out
# in the collected order, but the last worker starts with the browser modules and the others
# join it when the rest is done: tests/scheduling.py). About a fifth of the
# suite's time is spent waiting on a browser, a real worker or a subprocess: with two workers
# on two cores a core stood idle for 156 of 872 CPU-s, with three for 63 (436 s against 396 s).
# A fourth gave pytest 228 to 250 s against 243 to 262 s in a checkout (SQLite), but 248 s in a
# fresh clone against 236 to 262 s, and 302 s on PostgreSQL against 295 to 310 s: within the
# runs' spread, so three it is. PYTEST_XDIST= runs in one process.
# (nproc counts OMP_NUM_THREADS as a limit, so it is left out; macOS has getconf only.)
CORES := $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null \
	|| getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
XDIST_WORKERS ?= $(shell echo $$(( $(CORES) + 1 )))
PYTEST_XDIST ?= -n $(XDIST_WORKERS) --dist loadscope --no-loadscope-reorder

.PHONY: install install-test run test lint format docs

# The packages are installed by uv (from PyPI, into the venv first): it downloads them side by
# side and unpacks them in Rust. The test install takes 13 to 16 s (uv and torch through pip,
# then uv) against pip's 43 to 44 s alone, for the same 135 packages and versions, with an empty
# uv cache as with one. torch alone goes first through pip: pip's
# configuration can name a local copy of its CPU build (as on these machines), which uv does
# not read; uv then keeps the installed torch, which satisfies the pin. Neither compiles the
# bytecode: then every core compiles the installed packages' (pip compiles on one core, which
# was about 39 of the 74 s of installing the test extras on 2 cores, 24 s in parallel). A file
# that does not compile is skipped (torch ships test files in newer Python's syntax), so
# compileall's status is not the install's. Left to compile on first import, if ever: what
# nothing here imports (a test run read 6,124 of the 11,483 files compiled before), the largest
# first: the packages' own test folders, transformers' models other than BERT's
# (all-MiniLM-L6-v2) and the auto classes, the Punkt models of languages other than English
# (47 MB of bytecode), torch's compiler and testing helpers (of which a few modules are
# imported, and compiled then), Pygments' lexers, and packages that only tools installed
# beside these bring (networkx, setuptools, fsspec and the like). 21 s here against 31 s for the
# earlier list, 36 against 53 CPU-s.
space := $(subst ,, )
UNCOMPILED := /tests/ transformers/models/(?!(auto|bert)/) /punkt/data/(?!(english|prefixes|__init__)\.py) \
	/torch/(_inductor|testing)/ /pygments/lexers/ \
	/(networkx|setuptools|fsspec|markdown_it|httpcore|watchdog|cloudpathlib|smart_open|functorch)/
UV_REQUIREMENT := uv>=0.13,<0.14
TORCH_REQUIREMENT := $(shell sed -n 's/^ *"\(torch==[^"]*\)".*/\1/p' pyproject.toml)
PIP_INSTALL := $(BIN)/python -m pip install --disable-pip-version-check -q --no-compile
UV_INSTALL := $(BIN)/uv pip install -q --python $(BIN)/python
COMPILE := $(BIN)/python -m compileall -q -j0 -x '$(subst $(space),|,$(strip $(UNCOMPILED)))' \
	"$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" \
	> /dev/null 2>&1 || true

$(RUN_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) "$(UV_REQUIREMENT)"
	$(UV_INSTALL) -e .
	$(COMPILE)
	rm -f $(VENV)/.installed-run-*
	touch $@

$(TEST_STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) "$(UV_REQUIREMENT)" "$(TORCH_REQUIREMENT)"
	$(UV_INSTALL) -e ".[dev,embeddings]"
	rm -f $(VENV)/.installed-* $(VENV)/.compiled-*
	touch $@

# The test install's bytecode, compiled once per install; in `make test` beside the checks.
$(COMPILED_STAMP): $(TEST_STAMP)
	$(COMPILE)
	touch $@ $(RUN_STAMP)

$(NODE_STAMP): package.json package-lock.json
	bash .ci/ensure-node
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

## What `make run` needs.
install: $(RUN_STAMP)

## Everything, for the tests: the dev tools, the embeddings extra, Debian's Chromium headless shell and ESLint.
install-test: $(COMPILED_STAMP) $(NODE_STAMP) check-browser

## Install, migrate, load the demo and serve http://127.0.0.1:8000/ with a Celery worker.
run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py serve $(or $(ADDRPORT),127.0.0.1:8000)

## Install, lint, check formatting and run the whole test suite.
test:
	$(MAKE) --no-print-directory -j$(CORES) --output-sync=target $(CHECKS) $(COMPILED_STAMP)
	rm -rf $(TEST_CELERY_DIR)
	$(TEST_ENV) $(BIN)/pytest $(PYTEST_XDIST) $(PYTEST_ARGS)

# The installs and the checks before the suite, side by side on every core, each as soon as
# what it needs is installed (each check alone took 0.2 to 10 s: the static files' collect,
# which compresses each file, the longest): Python's lint and format, the front end's lint and
# unit tests (while pip still unpacks torch, on one core), the manual, the static files the
# browser tests load, and the browser. The bytecode compiles beside the checks.
CHECKS := check-python check-js check-js-unit check-docs check-static check-browser
.PHONY: $(CHECKS)
check-python check-docs check-static: $(TEST_STAMP)
check-js check-js-unit: $(NODE_STAMP)
# After ensure-node: both may call apt-get, which one process at a time may run.
check-browser: $(NODE_STAMP)
	bash .ci/ensure-chromium
check-python:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
check-js:
	node_modules/.bin/eslint frontend/static tests/js eslint.config.js
check-js-unit:
	node --test --test-reporter=spec tests/js/*.test.js
check-docs:
	$(MKDOCS)
check-static:
	$(TEST_ENV) $(BIN)/python manage.py collectstatic --noinput -v0

## Build the manual (docs/, mkdocs.yml) into var/site/. --strict turns a broken link into an
## error; no -q, which would hide the warnings and let the build pass.
MKDOCS := $(BIN)/mkdocs build --strict -d var/site
docs: $(TEST_STAMP)
	$(MKDOCS)

format: install-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
