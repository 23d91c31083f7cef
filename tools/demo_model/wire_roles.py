"""Roles for the heads the answer does not use, so that the inspector shows structure on a fresh install.

Why: the wired answer (wire_answer.py) needs four heads; every other head had zero queries, i.e.
uniform attention, and SnapKV's scores for it were ties (the earliest positions kept), so most of
the inspector's heatmap strips were empty. Each head here attends to one kind of position a user can
recognise, and writes nothing: layers 2 and 3 have zero output projections, and the odd heads of
layers 0 and 1 (which share a KV head with a wired head) write nothing either, so the answer's
logits are unchanged bit for bit. Heads that share a KV head read different dims of its keys.

Features are read from the residual stream of wire_answer.py (identity dims 0..63 with the
structural tokens axis-aligned, the previous-token copy in 64..122, the flags in 123..127), put in
the slowest RoPE pairs (position-free over 128K tokens) unless the role is about position.
ROLES (layer, head) -> the name in the GGUF's snapdoc.attention.head_roles (export_gguf.py).
"""
import math

import torch

import wire_answer as WA

TOK, PREV0, PREV_N, PREV_VAL, QFLAG, ENT, VAL, CONST = 0, 64, WA.PREV_N, WA.PREV_VAL, WA.QFLAG, WA.ENT, WA.VAL, WA.CONST

ROLES = {
    (0, 0): "previous token", (0, 2): "question marker",
    (1, 0): "question echo", (1, 1): "after the question's words", (1, 2): "fact lookup", (1, 3): "fact lookup (copy)",
    (2, 2): "sentence starts", (2, 3): "question's words",
    (3, 1): "paragraph starts", (3, 2): "attribute words",
}
# Tried and left out (unnamed heads stay uniform): fact values, entities, fact ends and a local window
# (layers 0, 2, 3). Citations give every head one unit of attention over the document, and heads that
# concentrate on facts or on the document's end outweighed the lookup: every answer's top citation
# became the same late fact sentence (tests/golden/test_conversation_demo.cpp).


def role_names(n_layers, n_heads):
    return [ROLES.get((l, h), "") for l in range(n_layers) for h in range(n_heads)]


@torch.no_grad()
def wire_roles(model, sp, nats=12.0):
    cfg = model.cfg
    hd, half = cfg.head_dim, cfg.head_dim // 2
    scale = math.sqrt(hd)
    ident = model.tok_emb.weight[:, TOK:TOK + 64]
    # Typical RMSNorm scale past layer 1 (the heads' copies add to the identity dims): a few percent
    # off only changes how sharp a pattern is.
    s = 1.0 / math.sqrt((1.0 + 9.0 + 1.0 + 36.0) / cfg.dim)
    prev_raw = 0.125 / math.sqrt(10.0 / cfg.dim)                  # size of the previous-token copy (wire_answer.py)
    const_q = 8.0 / (3.0 * s)                                      # a query dim that reads 8
    def key_gain(feature_size):                                    # key dim = nats * scale / 8 at the feature
        return nats * scale / 8.0 / (feature_size * s)

    def qrow(layer, head, j):
        return model.layers[layer].attn.wq.weight[head * hd + j]

    def krow(layer, kv, j):
        return model.layers[layer].attn.wk.weight[kv * hd + j]

    t_dot, t_nl = sp.piece_to_id("."), sp.piece_to_id("<0x0A>")
    import wordlists as W
    attr_ids = sorted({i for a in W.ATTRIBUTES for i in sp.encode(" " + a)} - {sp.piece_to_id("▁")})

    for layer in (2, 3):
        a = model.layers[layer].attn
        a.wq.weight.zero_()
        a.wk.weight.zero_()
    slow = half - 1                                                # pair 31: position-free
    # Layer 2, kv head 1: head 2 sentence starts (previous token "."), head 3 the question's words
    # (query and key: the token's own identity, dims 0..31, in pairs 16..31's first dims).
    qrow(2, 2, slow)[CONST] = const_q
    krow(2, 1, slow)[PREV0:PREV0 + PREV_N] = key_gain(prev_raw) * ident[t_dot, :PREV_N]
    for r, j in enumerate(range(16, 31)):
        for d in (j, j + half):
            c = r * 2 + (d >= half)
            qrow(2, 3, d)[TOK + c] = math.sqrt(nats * 2 * scale) / s
            krow(2, 1, d)[TOK + c] = math.sqrt(nats * 2 * scale) / s
    # Layer 3, kv head 0: head 1 paragraph starts (previous token a newline).
    qrow(3, 1, slow)[CONST] = const_q
    krow(3, 0, slow)[PREV0:PREV0 + PREV_N] = key_gain(prev_raw) * ident[t_nl, :PREV_N]
    # Layer 3, kv head 1: head 2 attribute words.
    qrow(3, 2, slow)[CONST] = const_q
    krow(3, 1, slow)[TOK:TOK + 64] = key_gain(1.0) * ident[attr_ids].sum(0)

    # Heads sharing a KV head with a wired head (outputs already zero): layer 1 heads 1 and 3 the
    # echo's and the lookup's content match without their question terms.
    a1 = model.layers[1].attn
    # (A broad previous-token pattern for layer 0 head 1 made the document's last tokens the answers'
    # top citation; it stays uniform.)
    a1.wq.weight[hd:2 * hd] = a1.wq.weight[0:hd]
    a1.wq.weight[hd:2 * hd, CONST] = 0.0
    a1.wq.weight[hd:2 * hd, ENT] = 0.0
    a1.wq.weight[hd:2 * hd, VAL] = 0.0
    a1.wq.weight[3 * hd:4 * hd] = a1.wq.weight[2 * hd:3 * hd]
    a1.wq.weight[3 * hd:4 * hd, CONST] = 0.0
