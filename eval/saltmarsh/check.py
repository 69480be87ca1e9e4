"""Checks this company's questions and corpus (`../check_company.py`)."""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from check_company import check  # noqa: E402

sys.exit(check(HERE, min_questions=80))
