# Two commands matter: `make run` (the product with demo data) and `make test` (the whole suite).
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.install-stamp
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test test-fast services worker worker-grading beat lint bench migrate

install: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	# The optional compiled replay kernel (docs/ngs.md); without a C compiler the Python
	# kernel is used.
	$(PY) -m grading.engine.ngs.ckernel --build || true
	$(PY) -m grading.engine.ppi.cbulk --build || true
	@touch $(STAMP)

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
