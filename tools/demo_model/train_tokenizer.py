"""Trains the demo model's SentencePiece tokenizer (BPE, byte fallback) on generated documents.

    python3 tools/demo_model/train_tokenizer.py --out runs/demo/tokenizer --seed 1

Writes OUT.model / OUT.vocab. Settings match how snapdoc rebuilds a tokenizer from GGUF metadata
(identity normalization, dummy prefix, runs of spaces kept), so Python and the engine tokenize alike.
The fact values (wordlists.VALUE_POOL, 1000 four-digit numbers) and the entities (modifier + place,
"\u2581north\u2581gate") are user-defined pieces, one token each wherever they occur, and so is the
engine's question prefix "Question:" (the wired answer's question marker). A fact
"... for the north gate is 7391." then reads [..., north gate, is, 7391, .] (or [..., north gate,
is 7391, .] with --value-pieces with-verb), and an answer that restates it needs what an induction
head does: find the earlier occurrence of the entity and copy what follows it. Other digits are
split (one piece per digit), and newlines are never part of a piece (the corpus is line-based): they
encode as the byte <0x0A>.
"""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import haystack  # noqa: E402
import wordlists  # noqa: E402

import sentencepiece as spm  # noqa: E402


def corpus_document(rng, target_words):
    # Fixed here (not haystack.training_document) so that the tokenizer stays the same when the
    # training mix changes: one fact per 40-160 words, at least 2.
    per = rng.uniform(40, 160)
    n = max(2, int(target_words / per))
    facts = haystack.make_facts(rng, n, distractor_rate=rng.uniform(0.2, 0.8))
    return haystack.build_document(rng, target_words, haystack.word_count, facts)


def corpus_lines(seed: int, n_docs: int):
    rng = random.Random(seed)
    for _ in range(n_docs):
        doc = corpus_document(rng, rng.randint(100, 400))
        for line in doc.text.split("\n"):
            if line.strip():
                yield line
        for f in doc.facts:
            yield f.question()
            yield f.value
    # Chat scaffolding the engine's ChatML layout uses as text.
    for _ in range(2000):
        yield "user"
        yield "assistant"
        yield "Question: What is it?"


def user_pieces(value_pieces="plain"):
    """Whole pieces for the fact values ("\u25817391", or "\u2581is\u25817391" with the verb) and for the
    entities ("\u2581north\u2581gate")."""
    prefix = "\u2581is\u2581" if value_pieces == "with-verb" else "\u2581"
    values = [prefix + v for v in wordlists.VALUE_POOL]
    entities = [f"\u2581{m}\u2581{p}" for m in wordlists.MODIFIERS for p in wordlists.PLACES]
    if value_pieces == "entity-verb":  # "\u2581north\u2581gate\u2581is" as well (longest match wins)
        entities += [e + "\u2581is" for e in entities]
    # The engine's question prefix as one piece: the wired answer marks the question by it
    # (wire_answer.MARKER), so it must not occur in ordinary text as the "Qu" of "Queue" or "Quite"
    # did when the marker was the first BPE piece of "Question".
    return values + entities + [QUESTION_PIECE]


QUESTION_PIECE = "Question:"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True, help="output prefix (writes PREFIX.model, PREFIX.vocab)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--vocab-size", type=int, default=4096)
    ap.add_argument("--value-pieces", choices=["plain", "with-verb", "entity-verb"], default="plain",
                    help="a value is one piece on its own, or one piece together with the verb before it; "
                         "entity-verb: values alone, and each entity also as one piece with the verb after it")
    args = ap.parse_args()
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    corpus = args.out + ".corpus.txt"  # a fixed name: the trainer records it in the .model file
    with open(corpus, "w", encoding="utf-8") as f:
        for line in corpus_lines(args.seed, args.docs):
            f.write(line + "\n")
    try:
        spm.SentencePieceTrainer.train(
            input=corpus, model_prefix=args.out, model_type="bpe", vocab_size=args.vocab_size,
            byte_fallback=True, split_digits=True, character_coverage=1.0,
            normalization_rule_name="identity", remove_extra_whitespaces=False, add_dummy_prefix=True,
            unk_id=0, bos_id=1, eos_id=2, pad_id=-1,
            control_symbols=["<|im_start|>", "<|im_end|>"], user_defined_symbols=user_pieces(args.value_pieces),
            hard_vocab_limit=False, seed_sentencepiece_size=100000, shuffle_input_sentence=False,
            num_threads=1, minloglevel=1,
        )
    finally:
        os.unlink(corpus)
    sp = spm.SentencePieceProcessor(model_file=args.out + ".model")
    print(f"tokenizer: {sp.get_piece_size()} pieces -> {args.out}.model")


if __name__ == "__main__":
    main()
