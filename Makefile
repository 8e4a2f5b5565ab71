# Two commands matter: `make run` (the product with demo data) and `make test` (the whole suite).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.install-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test test-fast services worker worker-grading beat lint bench migrate

LIBS_STAMP := $(VENV)/.libs-stamp
C_SOURCES := $(wildcard grading/engine/*/csrc/*.c)
# the modules that hold the compile commands (their flags): a changed flag rebuilds too
C_BUILDERS := grading/engine/cbuild.py grading/engine/ngs/clib.py grading/engine/ppi/cbulk.py

install: $(STAMP) $(LIBS_STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	@touch $(STAMP)

# The optional compiled NGS kernel and PPI fold (docs/ngs.md, docs/schemes.md), built again
# whenever their C source changes (a library that no longer matches its source is not loaded,
# and the Python fold runs instead, correct and slower); without a C compiler Python is used.
$(LIBS_STAMP): $(STAMP) $(C_SOURCES) $(C_BUILDERS)
	$(PY) -m grading.engine.ngs.ckernel --build || true
	$(PY) -m grading.engine.ppi.cbulk --build || true
	@touch $(LIBS_STAMP)

migrate: install
	$(PY) manage.py migrate --noinput

run: migrate
	$(PY) manage.py seed_demo_if_empty
	$(PY) manage.py runserver $(HOST):$(PORT)

# Starts PostgreSQL and Redis if they are installed but stopped; the suite decides what to do
# if they are still missing (skip with a warning, or fail under REQUIRE_SERVICES=1).
services:
	@bash .ci/services || true

test: install services
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: install
	$(PY) -m pytest -m "not slow and not browser" $(PYTEST_ARGS)

# Niced (NICE, default 10): beside `make worker-grading` the emails and pages rendered ahead
# yield the CPU to grading on a shared machine (docs/decisions.md).
worker: install
	nice -n $${NICE:-10} $(VENV)/bin/celery -A grading.celery worker --loglevel=INFO --concurrency=$${CONCURRENCY:-2}

# A worker kept for grading (the default queue only): beside `make worker`, an upload never waits
# behind the emails, the other schemes or the pages rendered ahead (docs/decisions.md).
worker-grading: install
	$(VENV)/bin/celery -A grading.celery worker -Q celery --loglevel=INFO --concurrency=1 -n grading@%h

beat: install
	$(VENV)/bin/celery -A grading.celery beat --loglevel=INFO

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy grading/engine
	$(VENV)/bin/lint-imports

# Replay, upload-to-grade and page-load benchmarks (issue 9; docs/benchmarks.md). Needs the local
# PostgreSQL, Redis and wrk; SCALE=region|national for the larger runs.
bench: install services
	$(PY) manage.py bench --scale $${SCALE:-small}
