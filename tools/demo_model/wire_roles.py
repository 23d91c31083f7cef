"""Roles for the heads the answer does not use, so that the inspector shows structure on a fresh install.

Why: the wired answer (wire_answer.py) needs four heads; every other head had zero queries, i.e.
uniform attention, and SnapKV's scores for it were ties (the earliest positions kept), so most of
the inspector's heatmap strips were empty. Each head here attends to one kind of position a user can
recognise, and writes nothing: layers 2 and 3 have zero output projections, and the odd heads of
layers 0 and 1 (which share a KV head with a wired head) write nothing either, so the answer's
logits are unchanged bit for bit. Heads that share a KV head read different dims of its keys.
All twelve heads besides the four wired ones have a role (wire_roles for six, wire_more_roles for
the other six); citations leave them all out (engine/model/head_writes.h), so a role head that
looks sharply at facts or at the document's end no longer moves an answer's citations.

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
    # Issue 22's second round: the six heads left uniform, now that citations leave out heads that
    # write nothing (engine/model/head_writes.h). Before that, heads on values, entities or the
    # document's end outweighed the lookup in every answer's citations.
    (0, 1): "fact values", (0, 3): "recent text",
    (2, 0): "entity words", (2, 1): "numbers",
    (3, 0): "nouns after \"the\"", (3, 3): "clause starts (after a comma)",
}


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

    wire_more_roles(model, sp, nats, qrow, krow, key_gain, const_q, slow)


@torch.no_grad()
def wire_more_roles(model, sp, nats, qrow, krow, key_gain, const_q, slow, recent_slope=0.005):
    """The six heads wire_roles() left uniform (issue 22, second round), each on one kind of token.

    Each reads dims of its KV head that the other query head of the group does not read (both dims of
    its RoPE pair are zero in the other head's query), so the wired heads' scores are unchanged bit
    for bit; and none writes (layers 2-3 and the odd heads of layer 0 have zero output projections).
    Sparse features (values, numbers) show as ticks across a 100K document; dense ones (entities,
    nouns) as well, because past layer 1 every position's RMS differs a little and breaks the ties
    that would otherwise keep the earliest matches.
    """
    cfg = model.cfg
    scale = math.sqrt(cfg.head_dim)
    ident = model.tok_emb.weight[:, TOK:TOK + 64]
    # Layer 0 reads the embedding itself: identity 1 and constant 3 (flags 0.5 add 2% to the RMS).
    s0 = 1.0 / math.sqrt((1.0 + 9.0) / cfg.dim)

    # Layer 0, kv head 0 (with the previous-token head, which uses pairs 0..15 only): head 1 on the
    # fact values (the value flag: the pieces "▁is▁7391"), pair 31.
    qrow(0, 1, slow)[CONST] = 8.0 / (3.0 * s0)
    krow(0, 0, slow)[VAL] = nats * scale / 8.0 / (0.5 * s0)
    # Layer 0, kv head 1 (with the marker head, which uses pair 31 only): head 3 on the text nearest
    # the question. The query reads the first dim of pair 14 and the key the second, so the score is
    # -A sin(theta * distance): it falls steadily (pair 14 turns by 0.74 rad over 131072 tokens, less
    # than a quarter turn) by A * theta = 0.005 nats per token, a slope that survives the f16 K/V
    # store SnapKV re-selects from (a cos term, flat near distance 0, was lost in its rounding). Every
    # window query ranks the document by recency, so SnapKV keeps its last B - W positions.
    jr = 14
    theta = model.cfg.rope_theta ** (-2.0 * jr / cfg.head_dim)
    assert theta * 131072 < math.pi / 2
    a_nats = recent_slope / theta
    qrow(0, 3, jr)[CONST] = 8.0 / (3.0 * s0)
    krow(0, 1, jr + cfg.head_dim // 2)[CONST] = -a_nats * scale / 8.0 / (3.0 * s0)

    # Layers 2-3 read tokens through the previous-token copy (dims 64..122, written by layer 0 only):
    # their identity dims also hold the fact lookup's copy of another token, 3.4 times larger than
    # the token's own identity, so a head reading them finds the words before its tokens (a names head
    # read that way kept "▁and" in "Tomas and Clara" more than the names).
    prev_raw = 0.125 / math.sqrt(10.0 / cfg.dim)

    def after(tokens):                                             # key: "the previous token is one of these"
        return key_gain(prev_raw) * ident[tokens, :PREV_N].sum(0)

    # Layer 2, kv head 0 (free): head 0 on entity words (the entity flag: "▁north▁gate" pieces),
    # head 1 on numbers written as digits ("About 37 tourists": "▁", "3", "7"): the positions after
    # a lone "▁", i.e. a number's first digit. "▁" is a structural token (wire_answer.py: an axis of
    # the identity), so the match is exact; the digits are not, and adding them let random overlaps
    # with words before "▁the" outrank the numbers.
    number_start = [sp.piece_to_id("▁")]
    qrow(2, 0, slow)[CONST] = const_q
    krow(2, 0, slow)[ENT] = key_gain(0.5)
    qrow(2, 1, slow - 1)[CONST] = const_q
    krow(2, 0, slow - 1)[PREV0:PREV0 + PREV_N] = after(number_start)

    # Layer 3, in pair 30 (pair 31 holds paragraph starts and attribute words): head 0 (kv head 0)
    # on the words after "the" (the nouns of "near the depot", "the report"), head 3 (kv head 1) on
    # clause starts, the words after a comma.
    qrow(3, 0, slow - 1)[CONST] = const_q
    krow(3, 0, slow - 1)[PREV0:PREV0 + PREV_N] = after([sp.piece_to_id("▁the")])
    qrow(3, 3, slow - 1)[CONST] = const_q
    krow(3, 1, slow - 1)[PREV0:PREV0 + PREV_N] = after([sp.piece_to_id(",")])
