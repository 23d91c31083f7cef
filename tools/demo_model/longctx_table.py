"""Markdown tables from eval-niah --trials-csv files (tools/demo_model/evaluate_longctx.sh output).

    python3 tools/demo_model/longctx_table.py OUT/niah-4k-trials.csv OUT/niah-16k-32k-trials.csv ...

Per setting x length: exact-match accuracy (the answer sentence, or the bare value), "value right"
(the answer names the asked value, whatever it echoed before it: the retrieval alone), and the needle
recall of the kept sets (the fraction of (layer, KV head) pairs whose kept set holds the value's token;
1 for full KV by definition). n = documents per cell.
"""
import csv
import sys
from collections import defaultdict


def main(paths):
    cells = defaultdict(lambda: [0, 0, 0, 0.0])  # n, exact, value, recall
    settings, lengths = [], []
    for p in paths:
        for r in csv.DictReader(open(p, encoding="utf-8")):
            s, L = r["setting"], int(r["length"])
            if s not in settings:
                settings.append(s)
            if L not in lengths:
                lengths.append(L)
            c = cells[(s, L)]
            c[0] += 1
            c[1] += int(r["correct"])
            c[2] += int(f" {r['expected']}." in r["answer"] or r["answer"].strip().rstrip(".") == r["expected"])
            c[3] += float(r["needle_recall"]) if r["needle_recall"] not in ("", "nan") else 0.0
    lengths.sort()
    head = "| setting | " + " | ".join(f"{L // 1024}K" for L in lengths) + " |"
    sep = "|---|" + "---|" * len(lengths)
    for title, k, fmt in (("exact match", 1, "{:.0%}"), ("value right", 2, "{:.0%}"), ("needle kept", 3, "{:.2f}")):
        print(f"\n{title} (n = documents per cell: " +
              ", ".join(f"{L // 1024}K {cells[(settings[0], L)][0]}" for L in lengths) + ")\n")
        print(head)
        print(sep)
        for s in settings:
            row = []
            for L in lengths:
                n = cells[(s, L)][0]
                row.append(fmt.format(cells[(s, L)][k] / n) if n else "-")
            print(f"| {s} | " + " | ".join(row) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
