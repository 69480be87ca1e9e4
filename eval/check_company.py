"""The checks of an evaluation company's questions and corpus (`eval/wrenfield`, `eval/corvane`):
quotes verbatim in their files, expected substrings in the evidence, halves alternating, the
category minimums met, every JSON, mail and CSV file readable. Each company's `check.py`
calls `check(its folder, its minimum question count)`; Pelham Ridge's and Oakmere's
`check_expected.py` call `check_expected(its folder)`."""
import json, os, glob, email, csv, io, collections, sys
from email import policy


def check(folder: str, min_questions: int) -> int:
    B = folder; C = B + "/corpus/"
    errs = []
    qs = [json.loads(l) for l in open(B + "/questions.jsonl", encoding="utf-8")]
    ids = [q["id"] for q in qs]
    if len(ids) != len(set(ids)): errs.append("duplicate ids")
    seen = collections.defaultdict(int)
    need = dict(single_fact=12, table_lookup=10, superlative=8, multi_hop=16, entity_attribute=8, paraphrase=8, newest_wins=6, no_answer=6)
    for q in qs:
        for k in ("id","question","category","half","evidence","expected","answer"):
            if k not in q: errs.append(f"{q.get('id')} missing {k}")
        n = seen[q["category"]]; seen[q["category"]] += 1
        want = "tune" if n % 2 == 0 else "test"
        if q["half"] != want: errs.append(f"{q['id']} half {q['half']} != {want}")
        quotes = []
        for ev in q["evidence"]:
            p = C + ev["file"]
            if not os.path.exists(p): errs.append(f"{q['id']} missing file {ev['file']}"); continue
            txt = open(p, encoding="utf-8").read()
            if ev["quote"] not in txt: errs.append(f"{q['id']} quote not in {ev['file']}: {ev['quote'][:60]}")
            quotes.append(ev["quote"])
            if ev["file"].endswith(".csv"):
                cells = [c.lower() for c in next(csv.reader([ev["quote"]]))]
        for x in q["expected"]:
            if "\n" in x: errs.append(f"{q['id']} expected spans newline")
            if not any(x.lower() in qt.lower() for qt in quotes): errs.append(f"{q['id']} expected not in evidence: {x}")
        for ev in q["evidence"]:
            if ev["file"].endswith(".csv"):
                cells = [c.lower() for c in next(csv.reader([ev["quote"]]))]
                hits = [x for x in q["expected"] if x.lower() in ev["quote"].lower()]
                for x in hits:
                    if not any(x.lower() in c for c in cells): errs.append(f"{q['id']} expected spans CSV cells: {x}")
        if q["category"] == "multi_hop":
            files = {ev["file"] for ev in q["evidence"]}
            if len(files) < 2: errs.append(f"{q['id']} multi_hop needs 2 files")
            for ev in q["evidence"]:
                if not any(x.lower() in ev["quote"].lower() for x in q["expected"]):
                    errs.append(f"{q['id']} no expected from {ev['file']}")
        if q["category"] == "no_answer" and (q["expected"] or q["evidence"]): errs.append(f"{q['id']} no_answer not empty")
        if q["category"] != "no_answer" and not (q["expected"] and q["evidence"]): errs.append(f"{q['id']} empty evidence/expected")
    for k, v in need.items():
        if seen[k] < v: errs.append(f"category {k}: {seen[k]} < {v}")
    if len(qs) < min_questions: errs.append(f"fewer than {min_questions} questions")
    # file parsing
    nj = ne = 0
    for p in glob.glob(C + "**/*.json", recursive=True):
        try: json.load(open(p, encoding="utf-8")); nj += 1
        except Exception as e: errs.append(f"json {p}: {e}")
    for p in glob.glob(C + "**/*.eml", recursive=True):
        m = email.message_from_bytes(open(p, "rb").read(), policy=policy.default)
        for h in ("From","To","Subject","Date","Message-ID"):
            if not m[h]: errs.append(f"eml {p} missing {h}")
        if "re-" in os.path.basename(p) and not m["In-Reply-To"]: errs.append(f"eml {p} reply without In-Reply-To")
        m.get_body().get_content(); ne += 1
    for p in glob.glob(C + "**/*.csv", recursive=True):
        rows = list(csv.reader(open(p, encoding="utf-8")))
        if len({len(r) for r in rows}) != 1: errs.append(f"csv {p} ragged")
    files = [p for p in glob.glob(C + "**/*", recursive=True) if os.path.isfile(p)]
    print("files:", len(files), "json parsed:", nj, "eml parsed:", ne)
    print("questions:", len(qs), dict(seen))
    print("halves:", dict(collections.Counter((q["category"], q["half"]) for q in qs)))
    print("ERRORS:" if errs else "ALL CHECKS PASSED", *errs, sep="\n")
    return 1 if errs else 0


def check_expected(folder: str) -> int:
    """Every expected string occurs 1 to 3 times in the corpus (case-insensitive), so that
    finding it means finding its evidence (`eval/pelhamridge`, `eval/oakmere`)."""
    corpus = os.path.join(folder, "corpus")
    texts = [open(p, encoding="utf-8").read().lower()
             for p in glob.glob(corpus + "/**/*", recursive=True) if os.path.isfile(p)]
    bad = 0
    for line in open(os.path.join(folder, "questions.jsonl"), encoding="utf-8"):
        q = json.loads(line)
        for x in q["expected"]:
            n = sum(t.count(x.lower()) for t in texts)
            if n > 3 or n == 0:
                bad += 1
                print(f"{q['id']}: {x!r} occurs {n} times")
    print("EXPECTED FREQUENCY OK" if not bad else f"{bad} expected strings out of range")
    return 1 if bad else 0
