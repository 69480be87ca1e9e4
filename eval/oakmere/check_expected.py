"""Every expected string must occur at most 3 times in the corpus (case-insensitive)."""
import glob, json, os, sys

HERE = os.path.dirname(os.path.abspath(__file__))
C = os.path.join(HERE, "corpus")
texts = [open(p, encoding="utf-8").read().lower()
         for p in glob.glob(C + "/**/*", recursive=True) if os.path.isfile(p)]
bad = 0
for line in open(os.path.join(HERE, "questions.jsonl"), encoding="utf-8"):
    q = json.loads(line)
    for x in q["expected"]:
        n = sum(t.count(x.lower()) for t in texts)
        if n > 3 or n == 0:
            bad += 1
            print(f"{q['id']}: {x!r} occurs {n} times")
print("EXPECTED FREQUENCY OK" if not bad else f"{bad} expected strings out of range")
sys.exit(1 if bad else 0)
