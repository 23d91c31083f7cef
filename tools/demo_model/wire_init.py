"""Wired initialisation: a fresh model whose first two layers already hold an induction circuit.

Why: on the 2-core build machine, runs from a random init learn to copy *a* value within a few
hundred steps but need thousands of steps to learn to look up the value of the entity asked about
(induction keyed on the entity token), and CPU time runs out first. The circuit that does the lookup
is well understood (a previous-token head, then a head whose query is the current token and whose
keys are the previous tokens), so we write it into the weights and let training learn everything
else (echoing the question, stopping, the language model) and refine the circuit.

Layout of the residual stream (dim 128; requires the with-verb tokenizer, where an entity such as
"▁north▁gate" and a value "▁is▁7391" are one token each):
  0..63    token identity (random unit vectors: the tied embedding)
  64..124  the previous token's identity (written by layer 0, head 0)
  125      "is an entity" flag, 126 "is a value" flag, 127 a constant (for position-only attention)
Layer 0 head 0 attends to the previous position using RoPE phases alone (query and key read the
constant). Layer 1 head 2 compares the current token with each position's previous token through the
8 lowest-frequency RoPE pairs (nearly position-independent up to ~2K tokens), adds a bonus for value
positions when the current token is an entity, and copies the attended token's identity.
Everything else keeps the usual random init.

Long context (--match-pairs 16 --rope-theta 1e12, the committed model): RoPE turns a pair by
theta_j * distance, so "nearly position-independent" only holds while theta_j * N << 1. With base
1e5 the 8 slowest pairs turn by up to 1.9 rad at 128K tokens and the match falls apart past ~4K
(mean cos 0.86 at 6K, 0.36 at 16K). With base 1e12 pairs 16..31 turn by at most 0.13 rad at 128K
(theta_16 = 1e-6), and 32 match dimensions instead of 16 halve the relative interference of random
token vectors (std/peak ~ 0.18): a match logit of ~28 then beats ~1300 value distractors and
log(131072) = 11.8 other positions with room. The previous-token head keeps the 16 fastest pairs
(theta 1 .. 2.4e-6); its score deficit away from distance 1 is >= 0.57 per unit gain at every
distance up to 131072 (tools/demo_model/longctx_analysis.py), ~300 logits at the wired gain.
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import spm_lite  # noqa: E402
import wire_answer  # noqa: E402
import wire_roles  # noqa: E402
import wordlists as W  # noqa: E402
from model import Config, Llama  # noqa: E402

TOK, PREV0, PREV_N, ENT, VAL, CONST = 0, 64, 61, 125, 126, 127


def special_tokens(sp):
    ents, vals = [], []
    for m in W.MODIFIERS:
        for p in W.PLACES:
            i = sp.piece_to_id("▁" + m.replace(" ", "▁") + "▁" + p.replace(" ", "▁"))
            if i != sp.unk_id():
                ents.append(i)
    for v in W.VALUE_POOL:
        i = sp.piece_to_id("▁is▁" + v)
        if i != sp.unk_id():
            vals.append(i)
    return ents, vals


@torch.no_grad()
def wire(model, ents, vals, seed=0, prev_gain=40.0, match_gain=10.0, flag_gain=10.0, copy_gain=8.0, const=3.0,
         flag=0.5, match_pairs=8, prev_n=PREV_N):
    cfg = model.cfg
    g = torch.Generator().manual_seed(seed)
    hd = cfg.head_dim
    half = hd // 2
    theta = cfg.rope_theta ** (-torch.arange(half, dtype=torch.float64) * 2 / hd)

    emb = torch.zeros(cfg.vocab_size, cfg.dim)
    e = torch.randn(cfg.vocab_size, 64, generator=g)
    emb[:, TOK:TOK + 64] = e / e.norm(dim=1, keepdim=True)
    # A large constant keeps every token's RMS nearly equal (the flags barely change it), so the
    # position-only head's key has the same size everywhere and RoPE phases alone pick Δ = 1.
    emb[:, CONST] = const
    emb[ents, ENT] = flag
    emb[vals, VAL] = flag
    model.tok_emb.weight.copy_(emb)

    # Layer 0, head 0 (kv head 0): previous-token head. score(Δ) = Σ_j A cos(θ_j (Δ - 1)), the 16 fastest pairs.
    a0 = model.layers[0].attn
    a0.wq.weight[0:hd].zero_()
    a0.wk.weight[0:hd].zero_()
    for j in range(16):
        a0.wk.weight[j, CONST] = 1.0
        a0.wq.weight[j, CONST] = prev_gain * math.cos(theta[j])
        a0.wq.weight[j + half, CONST] = -prev_gain * math.sin(theta[j])
    a0.wq.weight[hd:2 * hd].zero_()            # head 1 shares kv head 0: uniform attention,
    a0.wv.weight[0:hd].zero_()
    a0.wv.weight[0:64, TOK:TOK + 64] = torch.eye(64)   # value: the token identity (normed input)
    a0.wo.weight[:, 0:2 * hd].zero_()          # ... and head 1 writes nothing
    a0.wo.weight[PREV0:PREV0 + prev_n, 0:prev_n] = torch.eye(prev_n) * 0.125

    # Layer 1, head 2 (kv head 1): induction. Content match through the `match_pairs` slowest pairs
    # (2 * match_pairs dims; 8 in the short-context model, 16 in the long-context one).
    a1 = model.layers[1].attn
    R = torch.randn(2 * match_pairs, prev_n, generator=g) / math.sqrt(prev_n)
    q2 = slice(2 * hd, 3 * hd)
    a1.wq.weight[q2].zero_()
    a1.wk.weight[hd:2 * hd].zero_()
    slow = [j for j in range(half - match_pairs, half)]
    dims = slow + [j + half for j in slow]
    for r, d in enumerate(dims):
        a1.wq.weight[2 * hd + d, TOK:TOK + prev_n] = R[r] * match_gain
        a1.wk.weight[hd + d, PREV0:PREV0 + prev_n] = R[r] * 8.0   # undo the 0.125 of layer 0's output
    jf = half - match_pairs - 1                                 # flag pair: entity query x value key
    a1.wq.weight[2 * hd + jf, ENT] = flag_gain
    a1.wk.weight[hd + jf, VAL] = 1.0
    a1.wq.weight[3 * hd:4 * hd].zero_()                         # head 3 shares kv head 1
    a1.wv.weight[hd:2 * hd].zero_()
    a1.wv.weight[hd:hd + 64, TOK:TOK + 64] = torch.eye(64)
    a1.wo.weight[:, 2 * hd:4 * hd].zero_()
    a1.wo.weight[TOK:TOK + 64, 2 * hd:2 * hd + 64] = torch.eye(64) * copy_gain / 8.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True, help="checkpoint.pt to write (train.py resumes from it at step 0)")
    ap.add_argument("--seed", type=int, default=1)
    for n, d in [("prev-gain", 40.0), ("match-gain", 10.0), ("flag-gain", 10.0), ("copy-gain", 8.0)]:
        ap.add_argument("--" + n, type=float, default=d)
    ap.add_argument("--match-pairs", type=int, default=8, help="slowest RoPE pairs the induction match uses")
    ap.add_argument("--wire-answer", action="store_true",
                    help="also wire the question echo, start and stop (wire_answer.py): no training needed")
    ap.add_argument("--rope-theta", type=float, default=100000.0,
                    help="RoPE base (train.py and export take it from here on); 1e12 keeps 16 pairs still at 128K")
    args = ap.parse_args()
    sp = spm_lite.load(args.tokenizer)
    ents, vals = special_tokens(sp)
    print(f"{len(ents)} entity tokens, {len(vals)} value tokens")
    torch.manual_seed(args.seed)
    cfg = Config(vocab_size=sp.get_piece_size(), dim=128, n_layers=4, n_heads=4, n_kv_heads=2, ffn_dim=384,
                 rope_theta=args.rope_theta, head_size=64, max_seq_len=2048)
    model = Llama(cfg)
    wire(model, ents, vals, args.seed, args.prev_gain, args.match_gain, args.flag_gain, args.copy_gain,
         match_pairs=args.match_pairs, prev_n=wire_answer.PREV_N if args.wire_answer else PREV_N)
    if args.wire_answer:
        wire_answer.wire_answer(model, sp, args.seed)
        wire_roles.wire_roles(model, sp)
    extra = dict(head_roles=wire_roles.role_names(cfg.n_layers, cfg.n_heads)) if args.wire_answer else {}
    torch.save(dict(model=model.state_dict(), config=cfg.to_dict(), **extra), args.out)


if __name__ == "__main__":
    main()
