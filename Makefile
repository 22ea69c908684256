# Loupe's two quickstart commands: `make run` and `make test` (see README.md).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cksum < pyproject.toml | cut -d' ' -f1)
export DEBUG ?= 1
# Tests run with production settings (DEBUG off), over plain HTTP on the test client.
TEST_ENV := DEBUG=0 SECURE_SSL_REDIRECT=0 SECRET_KEY=$(or $(SECRET_KEY),loupe-test-only-secret-key) \
	CELERY_QUEUE=loupe-test

.PHONY: install run test lint format

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -e ".[dev,embeddings]"
	rm -f $(VENV)/.installed-*
	touch $@

install: $(STAMP)

## Install, migrate, load the demo and serve http://127.0.0.1:8000/ with a Celery worker.
run: install
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py demo
	$(BIN)/python manage.py serve $(or $(ADDRPORT),127.0.0.1:8000)

## Install, lint, check formatting and run the whole test suite.
test: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(TEST_ENV) $(BIN)/python manage.py collectstatic --noinput -v0
	$(TEST_ENV) $(BIN)/pytest $(PYTEST_ARGS)

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .
