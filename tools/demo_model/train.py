"""Trains the demo model: a small Llama that answers questions about facts in long documents.

    nice -n 19 python3 tools/demo_model/train.py --run runs/demo --tokenizer runs/demo/tok.model \
        --stages 128:800,256:800,512:1200,1024:1600 --seed 1

Each training sequence is one generated document in the engine's ChatML layout followed by K
question "branches": branch i is the question part + the answer + <|im_end|>, attends to the whole
document and to itself only, and continues the document's positions (RoPE position = document
length + offset), so it is exactly the prompt the engine builds for that question, and the document
is computed once for K questions. Answers restate the fact ("The access code for the north gate is
7391."). The loss is on the answer tokens and <|im_end|> (plus a small
language-model loss on a sample of document positions). Lengths follow a curriculum (--stages
LEN:STEPS,...; each step's documents have one length drawn from [max(64, LEN/4), LEN]). Data for step s comes from a generator seeded by (seed, s), so a run resumed from a
checkpoint sees the same data as an uninterrupted one. The device is CUDA when available, else CPU.
"""
import argparse
import json
import math
import os
import random
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import haystack  # noqa: E402
from chatml import ChatML  # noqa: E402
from model import Config, Llama  # noqa: E402

import spm_lite  # noqa: E402  (sentencepiece when installed, else a pure-Python reader)
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def parse_stages(text):
    stages = []
    for part in text.split(","):
        length, steps = part.split(":")
        stages.append((int(length), int(steps)))
    return stages


class Batcher:
    """Builds branch-packed training sequences (see the module docstring)."""

    def __init__(self, sp, branches, lm_fraction, answer_style="sentence", dense_per=(10, 20)):
        self.sp = sp
        self.answer_style = answer_style
        self.chat = ChatML(sp)
        self.branches = branches
        self.dense_per = dense_per
        self.lm_fraction = lm_fraction
        self.count = lambda s: len(sp.encode(s)) + 1  # +1: the space or newline before it

    def example(self, rng, length, dense=False):
        # Dense documents (by default one fact per 10-20 tokens, little filler) give many retrievals per token:
        # a short run of them at the start gets the induction mechanism going early.
        per = self.dense_per if dense else (25, 100)
        doc = haystack.training_document(rng, length, self.count, *per)
        doc_ids = self.chat.document_part(doc.text)
        facts = list(doc.facts)
        rng.shuffle(facts)
        facts = facts[:self.branches]
        branches = []
        for f in facts:
            q = self.chat.question_part(f.question())
            a = self.chat.answer(f.answer() if self.answer_style == "sentence" else f.value)
            branches.append((q, a, self._fact_span(doc_ids, f)))
        return doc_ids, branches

    def _fact_span(self, doc_ids, fact):
        """(start, end) of the fact's sentence in doc_ids, or None. The sentence's first piece depends
        on what precedes it (space or newline), so the match starts at its second piece."""
        tail = self.sp.encode(fact.sentence())[1:]
        n = len(tail)
        for i in range(len(doc_ids) - n + 1):
            if doc_ids[i:i + n] == tail:
                return i - 1, i + n
        return None

    @staticmethod
    def _visible_doc(rng, D, span, keep_tail=16, pool=3):
        """A random subset of the document positions that one branch may attend to: what a
        compressed cache leaves. SnapKV keeps the observation window (the prompt's tail), the
        positions the question attends to, and their pooling neighbourhood (kernel 7 = ±3); here
        the asked value ± `pool`, the document's last keep_tail tokens, and a random 5-50% of the rest."""
        g = torch.Generator().manual_seed(rng.getrandbits(31))
        keep = torch.rand(D, generator=g) < rng.uniform(0.05, 0.5)
        keep[max(0, D - keep_tail):] = True
        if span is not None:
            v = span[1] - 2          # the value piece (the sentence ends "... is▁7391 .")
            keep[max(0, v - pool):v + pool + 1] = True
        return keep

    def batch(self, rng, length, batch_size, device, dense=False, doc_dropout=0.0):
        """doc_dropout: the fraction of question branches that see only part of the document
        (_visible_doc), so that answers do not depend on what a compressed cache drops."""
        exs = [self.example(rng, length, dense) for _ in range(batch_size)]
        T = max(len(d) + sum(len(q) + len(a) for q, a, _ in br) for d, br in exs)
        tokens = torch.zeros(batch_size, T, dtype=torch.long)
        positions = torch.zeros(batch_size, T, dtype=torch.long)
        mask = torch.zeros(batch_size, T, T, dtype=torch.bool)
        ans_rows, ans_labels = [], []   # (b, t) predicting an answer token
        lm_rows, lm_labels = [], []
        for b, (doc, branches) in enumerate(exs):
            D = len(doc)
            tokens[b, :D] = torch.tensor(doc)
            positions[b, :D] = torch.arange(D)
            mask[b, :D, :D] = torch.ones(D, D, dtype=torch.bool).tril()
            for t in range(D - 1):
                if rng.random() < self.lm_fraction:
                    lm_rows.append((b, t))
                    lm_labels.append(doc[t + 1])
            start = D
            for q, a, span in branches:
                seq = q + a
                n = len(seq)
                tokens[b, start:start + n] = torch.tensor(seq)
                positions[b, start:start + n] = torch.arange(D, D + n)
                if doc_dropout > 0 and rng.random() < doc_dropout:
                    mask[b, start:start + n, :D] = self._visible_doc(rng, D, span)
                else:
                    mask[b, start:start + n, :D] = True
                mask[b, start:start + n, start:start + n] = torch.ones(n, n, dtype=torch.bool).tril()
                # Answer token j (and the final <|im_end|>) is predicted at the position before it.
                for j in range(len(a)):
                    ans_rows.append((b, start + len(q) - 1 + j))
                    ans_labels.append(a[j])
                start += n
            for t in range(start, T):  # padding attends to itself only
                mask[b, t, t] = True
        # Which answer rows belong to one question (for exact match).
        groups = []
        i = 0
        for b, (doc, branches) in enumerate(exs):
            for q, a, _ in branches:
                groups.append((i, i + len(a)))
                i += len(a)
        to = lambda x: x.to(device)  # noqa: E731
        return dict(tokens=to(tokens), positions=to(positions), mask=to(mask),
                    ans_rows=ans_rows, ans_labels=to(torch.tensor(ans_labels)),
                    lm_rows=lm_rows, lm_labels=to(torch.tensor(lm_labels, dtype=torch.long)), groups=groups)


def compute_loss(model, batch, lm_weight):
    h = model.hidden(batch["tokens"], batch["positions"], batch["mask"])
    rows = torch.tensor(batch["ans_rows"], device=h.device)
    ha = h[rows[:, 0], rows[:, 1]]
    logits = model.output(ha)
    ans_loss = F.cross_entropy(logits, batch["ans_labels"])
    loss = ans_loss
    lm_loss = torch.zeros((), device=h.device)
    if lm_weight > 0 and batch["lm_rows"]:
        r = torch.tensor(batch["lm_rows"], device=h.device)
        lm_loss = F.cross_entropy(model.output(h[r[:, 0], r[:, 1]]), batch["lm_labels"])
        loss = loss + lm_weight * lm_loss
    with torch.no_grad():
        correct = (logits.argmax(-1) == batch["ans_labels"]).cpu()
        exact = [bool(correct[a:b].all()) for a, b in batch["groups"]]
    return loss, ans_loss.detach(), lm_loss.detach(), exact


def lr_at(step, total, base, warmup, floor=0.1):
    if step < warmup:
        return base * (step + 1) / warmup
    p = (step - warmup) / max(1, total - warmup)
    return base * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * min(1.0, p))))


def save_checkpoint(path, model, opt, step, args, cfg):
    tmp = path + ".tmp"
    torch.save(dict(model=model.state_dict(), opt=opt.state_dict(), step=step, args=vars(args),
                    config=cfg.to_dict()), tmp)
    os.replace(tmp, path)


@torch.no_grad()
def evaluate(model, batcher, seed, length, n_batches, batch_size, device):
    model.eval()
    exact = []
    for i in range(n_batches):
        rng = random.Random(f"eval-{seed}-{length}-{i}")
        batch = batcher.batch(rng, length, batch_size, device)
        _, _, _, ex = compute_loss(model, batch, 0.0)
        exact += ex
    model.train()
    return sum(exact) / max(1, len(exact)), len(exact)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", required=True, help="run folder (checkpoints, log)")
    ap.add_argument("--tokenizer", required=True, help="SentencePiece .model")
    ap.add_argument("--stages", default="128:800,256:800,512:1200,1024:1600")
    ap.add_argument("--tokens-per-batch", type=int, default=2048, help="document tokens per step")
    ap.add_argument("--doc-dropout", type=float, default=0.0,
                    help="fraction of question branches that see only a random part of the document plus "
                         "the asked fact's neighbourhood (robustness to KV compression)")
    ap.add_argument("--doc-dropout-from", type=int, default=0, help="first step with --doc-dropout")
    ap.add_argument("--init", default="", help="start a fresh run from these weights (wire_init.py output)")
    ap.add_argument("--branches", type=int, default=12, help="questions per document")
    ap.add_argument("--dim", type=int, default=128)
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=2)
    ap.add_argument("--head-dim", type=int, default=64, help="0: dim / heads")
    ap.add_argument("--ffn", type=int, default=384)
    ap.add_argument("--rope-theta", type=float, default=100000.0,
                    help="RoPE base; a large base keeps more rotary pairs slow enough to match content far apart")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--weight-decay", type=float, default=0.1,
                    help="AdamW decay of the matrices (it also caps how sharp attention can get)")
    ap.add_argument("--answer", choices=["sentence", "value"], default="sentence",
                    help="answers restate the fact (the value is then found by matching the restated key, as an "
                         "induction head does) or give the value alone")
    ap.add_argument("--dense-steps", type=int, default=0,
                    help="the first N steps use dense documents (mostly facts, little filler)")
    ap.add_argument("--dense-per", default="10:20",
                    help="dense documents: one fact per MIN:MAX tokens (a fact is about 9 tokens)")
    ap.add_argument("--entities", default="",
                    help="MODIFIERS:PLACES: facts name only that many modifiers x places (default: all)")
    ap.add_argument("--lm-weight", type=float, default=0.1)
    ap.add_argument("--lm-fraction", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--ckpt-every", type=int, default=200)
    ap.add_argument("--eval-every", type=int, default=400)
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--stop-at", type=int, default=0,
                    help="stop (with a checkpoint) after this step; a later run with the same or longer --stages resumes")
    ap.add_argument("--bench", type=int, default=0, help="only time N steps at each stage length")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    os.makedirs(args.run, exist_ok=True)
    sp = spm_lite.load(args.tokenizer)
    stages = parse_stages(args.stages)
    total = sum(s for _, s in stages)
    cfg = Config(vocab_size=sp.get_piece_size(), dim=args.dim, n_layers=args.layers, n_heads=args.heads,
                 n_kv_heads=args.kv_heads, ffn_dim=args.ffn, rope_theta=args.rope_theta, head_size=args.head_dim, max_seq_len=max(l for l, _ in stages) * 2)
    torch.manual_seed(args.seed)
    model = Llama(cfg).to(device)
    n_params = sum(p.numel() for p in model.parameters())
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([dict(params=decay, weight_decay=args.weight_decay), dict(params=no_decay, weight_decay=0.0)],
                            lr=args.lr, betas=(0.9, 0.95), eps=1e-8)
    if args.entities:
        haystack.use_fact_entities(*(int(x) for x in args.entities.split(":")))
    batcher = Batcher(sp, args.branches, args.lm_fraction, args.answer,
                      tuple(float(x) for x in args.dense_per.split(":")))

    if args.bench:
        for length, _ in stages:
            bs = max(1, args.tokens_per_batch // length)
            t_data = t_step = 0.0
            for i in range(args.bench):
                t0 = time.time()
                batch = batcher.batch(random.Random(i), length, bs, device)
                t1 = time.time()
                loss, *_ = compute_loss(model, batch, args.lm_weight)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                t_data += t1 - t0
                t_step += time.time() - t1
            print(f"bench len={length} batch={bs} T={batch['tokens'].shape[1]}: data {t_data / args.bench:.3f} s, "
                  f"train {t_step / args.bench:.3f} s/step, params={n_params}", flush=True)
        return

    ckpt_path = os.path.join(args.run, "checkpoint.pt")
    log_path = os.path.join(args.run, "train.log")
    step = 0
    if not os.path.exists(ckpt_path) and args.init:
        # A fresh run starting from prepared weights (wire_init.py), not from a random init.
        model.load_state_dict(torch.load(args.init, map_location=device, weights_only=False)["model"])
        print(f"initialised from {args.init}", flush=True)
    if os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path, map_location=device, weights_only=False)  # our own file (2.6+ defaults to True)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        step = ck["step"]
        print(f"resumed from {ckpt_path} at step {step}", flush=True)
    with open(os.path.join(args.run, "config.json"), "w") as f:
        json.dump(dict(config=cfg.to_dict(), args=vars(args), params=n_params), f, indent=1)
    log = open(log_path, "a")

    def say(msg):
        print(msg, flush=True)
        log.write(msg + "\n")
        log.flush()

    say(f"device={device} params={n_params} stages={stages} total_steps={total}")
    t_start = time.time()
    win_loss, win_exact, win_lm = [], [], []
    end = min(total, args.stop_at) if args.stop_at > 0 else total
    # Ctrl-C / SIGINT / SIGTERM (a sweep's time limit) stop after the current step with a checkpoint.
    stop = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.append(True))
    while step < end and not stop:
        acc = 0
        for length, steps in stages:
            if step < acc + steps:
                break
            acc += steps
        rng = random.Random(f"train-{args.seed}-{step}")
        # Document length of this step: uniform in [max(64, LEN/4), LEN], so that retrieval works at
        # every length up to the stage's (a fixed length per stage lets it latch onto one).
        doc_len = rng.randint(min(length, max(64, length // 4)), length)
        bs = max(1, args.tokens_per_batch // doc_len)
        batch = batcher.batch(rng, doc_len, bs, device, dense=step < args.dense_steps,
                              doc_dropout=args.doc_dropout if step >= args.doc_dropout_from else 0.0)
        for g in opt.param_groups:
            g["lr"] = lr_at(step, total, args.lr, args.warmup)
        loss, ans_loss, lm_loss, exact = compute_loss(model, batch, args.lm_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        step += 1
        win_loss.append(float(ans_loss))
        win_lm.append(float(lm_loss))
        win_exact += exact
        if step % args.log_every == 0:
            el = time.time() - t_start
            say(f"step {step}/{total} len<={length} T={batch['tokens'].shape[1]} ans_loss={sum(win_loss)/len(win_loss):.4f} "
                f"lm_loss={sum(win_lm)/len(win_lm):.3f} train_exact={sum(win_exact)/len(win_exact):.3f} "
                f"lr={lr_at(step, total, args.lr, args.warmup):.2e} elapsed={el:.0f}s")
            win_loss, win_exact, win_lm = [], [], []
        if step % args.ckpt_every == 0 or step == end:
            save_checkpoint(ckpt_path, model, opt, step, args, cfg)
        if step % args.eval_every == 0 or step == total:
            lens = sorted({l for l, _ in stages if l <= length} | {length})
            for l in lens[-3:]:
                acc_, n = evaluate(model, batcher, args.seed, l, 4, max(1, args.tokens_per_batch // l), device)
                say(f"eval step {step} len={l}: exact={acc_:.3f} over {n} questions")
    save_checkpoint(ckpt_path, model, opt, step, args, cfg)
    if step < total:
        say(f"stopped at step {step} of {total} ({'signal' if stop else '--stop-at'}); run again to resume")
        return
    torch.save(dict(model=model.state_dict(), config=cfg.to_dict()), os.path.join(args.run, "final.pt"))
    say(f"done: {step} steps in {time.time() - t_start:.0f}s")


if __name__ == "__main__":
    main()
