"""Writes the demo's sample document and its suggested questions (with answers) from the generator.

    python3 tools/demo_model/make_sample.py --tokenizer runs/demo/tok.model --tokens 1900 \
        --out resources/samples/demo-report.txt

The questions go to the side file the app reads (`demo-report.questions.tsv`: question, tab,
expected value), in document order.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import haystack  # noqa: E402

import spm_lite  # noqa: E402  (sentencepiece when installed, else a pure-Python reader)


def write_atomically(path, text):
    """Whole file or nothing: a full disk or an interrupt leaves the previous file in place."""
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--tokens", type=int, default=1900)
    ap.add_argument("--facts", type=int, default=8)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    sp = spm_lite.load(args.tokenizer)
    rng = random.Random(args.seed)
    facts = haystack.make_facts(rng, args.facts, distractor_rate=0.5)
    depths = [(i + 0.5) / len(facts) for i in range(len(facts))]
    doc = haystack.build_document(rng, args.tokens, lambda s: len(sp.encode(s)) + 1, facts, depths)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    questions = os.path.splitext(args.out)[0] + ".questions.tsv"  # app/services/suggested_questions.h
    write_atomically(args.out, doc.text + "\n")
    write_atomically(questions, "".join(f"{fact.question()}\t{fact.value}\n" for fact in doc.facts))
    print(f"wrote {args.out} ({len(sp.encode(doc.text))} tokens, {len(doc.facts)} facts) and {questions}")


if __name__ == "__main__":
    main()
