"""Checks that every expected string occurs 1 to 3 times in this company's corpus (`../check_company.py`)."""
import os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from check_company import check_expected  # noqa: E402

sys.exit(check_expected(HERE))
