"""Wires the rest of the answer: the question echo, the start and the stop (the long-context model).

Why: the lookup circuit of wire_init.py holds to 128K tokens, but the answer sentence around the
value ("The access code for the north gate is …") was learned from ≤ 2K-token documents, and past
~8K the learned echo picked wrong attributes and entities (docs/demo_model.md, "Long context").
Learned attention over the document dilutes as the document grows; the fix is attention whose
candidates do not grow with it. Everything the answer needs besides the value is in the question,
so every wired head here attends only inside the question — a region marked by a flag — or to a
sink in it, and what it computes is the same at 1K and at 128K tokens. No part of the model is
left to training: all other attention and feed-forward outputs are zero.

Residual layout (dim 128; wire_init.py's, with the previous-token copy narrowed to 60 dims):
  0..63    token identity; the question marker's vector ("Question:", the engine's question
           prefix as one user-defined piece) is made orthogonal to every other token's, so a head can tell it
           apart exactly (a dot product of 1 against exactly 0)
  64..122  the previous token's identity (first 59 dims), from layer 0 head 0
  123      "the previous token is a value" flag, from the same head
  124      "after the question marker" flag, from layer 0 head 2
  125 entity flag, 126 value flag, 127 constant 3 (as in wire_init.py)

Heads (position-free where they must be: every feature that is compared across the question and
beyond lives in RoPE pairs slow enough not to turn over the distance it spans):
  layer 0 head 2  flag head: the key is 1 only at the marker, the query constant, so every position
                  after the marker attends to it (score 40 nats over the 131072 others) and copies
                  a 1 into dim 124; positions before it see no marker and copy exact zeros.
  layer 1 head 0  echo head: query = the current token, key = each position's previous token (a
                  20-pair projection), + 60 nats for keys after the marker; "The" (the answer's
                  first word) queries as "▁the"; an entity bonus after "▁the" and a penalty after
                  "The" choose between the question's two "the"s; the marker itself is a sink with a
                  zero value that wins when the question holds no match (after the entity, the
                  value, ".", the prompt's last newline). It copies the attended token.
  layer 3 FFN     two units: previous token "▁assistant" after the marker -> "The"; previous token a
                  value after the marker (the answer's ".") -> <|im_end|>. Both read dims only layer 0
                  writes: the token dims also carry the heads' copies, whose random overlap with a
                  token's vector can reach a detector's threshold.
The answer is then: "The" (FFN), attribute… "for the" entity (echo), value (wire_init's induction
head over the document), "." (the same head: the token after the value in the fact), <|im_end|>.
"""
import math

import torch

TOK, PREV0, CONST, QFLAG, ENT, VAL = 0, 64, 127, 124, 125, 126
PREV_N = 59      # previous-token identity dims with this wiring (wire_init.py uses 61 without it)
PREV_VAL = 123   # "the previous token is a value" flag
# The engine's "Question: " prefix starts with this piece (a user-defined piece of the demo tokenizer,
# train_tokenizer.QUESTION_PIECE). It was "Qu", the first BPE piece of "Question": every "Queue",
# "Quite" or "Quebec" of a real document then marked the rest of it as question, and the lookup's
# question penalty hid the document's facts (0 of 3 answered in a 35K-token real-text document).
MARKER = "Question:"
N_STRUCT = 40    # identity dims 0..39: the structural tokens, axis-aligned; also the echo's match dims


def _piece(sp, piece):
    i = sp.piece_to_id(piece)
    if i == sp.unk_id():
        raise SystemExit(f"wire_answer: the tokenizer has no piece {piece!r}")
    return i


def _unit(v):
    return v / v.norm()


def structural_tokens(sp):
    """The pieces a question, its answer sentence and the ChatML turn around them are made of, other
    than entities and values (38 with the demo tokenizer): "▁What", "▁is", "▁the", the attribute
    words, "▁for", "?", "The", ".", the template's pieces. The marker is not among them."""
    import wordlists as W
    from chatml import ChatML
    c = ChatML(sp)
    ids = set(c.encode("user\n")) | {c.im_start, c.im_end}
    for a in W.ATTRIBUTES:
        ids |= set(c.question_part(f"What is the {a} for the north gate?"))
        ids |= set(c.answer(f"The {a} for the north gate is 1000."))
    gate, value = sp.piece_to_id("▁north▁gate"), sp.piece_to_id("▁is▁1000")
    return sorted(i for i in ids if i not in (gate, value, sp.piece_to_id(MARKER)))


@torch.no_grad()
def identity_layout(model, marker, structural):
    """Marker = e_63 (exactly orthogonal to every other token, and absent from the 59-dim
    previous-token copy); the structural tokens = e_0 .. e_k-1, so the echo's match between any two
    of them is exactly 0 or 1; every other token keeps its random direction, without dim 63."""
    if len(structural) > N_STRUCT:
        raise SystemExit(f"wire_answer: {len(structural)} structural tokens, room for {N_STRUCT}")
    ids = model.tok_emb.weight[:, TOK:TOK + 64]
    ids[:, 63] = 0.0
    ids.div_(ids.norm(dim=1, keepdim=True))
    ids[structural] = torch.eye(64)[:len(structural)]
    ids[marker] = torch.eye(64)[63]
    return ids[marker].clone()


@torch.no_grad()
def input_scale(model, layer_norm_input):
    """1 / RMS of a residual row: what RMSNorm multiplies it by (its weights are 1 here)."""
    x = layer_norm_input
    return float(torch.rsqrt(x.pow(2).mean() + model.cfg.norm_eps))


@torch.no_grad()
def wire_answer(model, sp, seed=0, flag_nats=40.0, match_nats=60.0, qflag_nats=60.0, sink_nats=30.0,
                sink_entity_nats=60.0, sink_value_nats=30.0, sink_newline_nats=60.0, the_nats=12.0, question_penalty_nats=40.0,
                after_value_nats=27.0, recency_nats=150.0,
                echo_gain=6.0, rule_gain=4.0):
    cfg = model.cfg
    hd = cfg.head_dim
    half = hd // 2
    marker = _piece(sp, MARKER)
    t_cap, t_the = _piece(sp, "The"), _piece(sp, "▁the")
    t_nl, t_asst = _piece(sp, "<0x0A>"), _piece(sp, "▁assistant")
    t_end = _piece(sp, "<|im_end|>")
    u = identity_layout(model, marker, structural_tokens(sp))
    ident = model.tok_emb.weight[:, TOK:TOK + 64]

    # Typical RMSNorm scales: layer 0 sees the embedding (identity 1, constant 3), layer 1 adds the
    # previous-token copy and the flag. The wired scores below are set for these scales; the
    # content terms are products of two normalised reads, so a few percent off moves a score of
    # 60 nats by a nat or two, far inside the margins.
    s0 = 1.0 / math.sqrt((1.0 + 9.0) / cfg.dim)
    prev_raw = 0.125 * s0                      # layer 0 head 0 writes 0.125 x its value (s0 x identity)
    s1 = 1.0 / math.sqrt((1.0 + 9.0 + prev_raw ** 2 + 1.0) / cfg.dim)

    # ---- layer 0 head 2 (kv head 1): the question-marker flag, in the slowest pair (31).
    a0 = model.layers[0].attn
    a0.wq.weight[2 * hd:4 * hd].zero_()        # heads 2 and 3 (head 3 shares kv head 1: uniform, writes nothing)
    a0.wk.weight[hd:2 * hd].zero_()
    a0.wv.weight[hd:2 * hd].zero_()
    a0.wo.weight[:, 2 * hd:4 * hd].zero_()
    j = half - 1
    qa = 8.0                                   # query read; score = qa * key / sqrt(hd) = flag_nats at the marker
    a0.wq.weight[2 * hd + j, CONST] = qa / (3.0 * s0)
    a0.wk.weight[hd + j, TOK:TOK + 64] = (flag_nats * math.sqrt(hd) / qa) * u / s0
    a0.wv.weight[hd + 0, TOK:TOK + 64] = u / s0  # value 1 at the marker, exactly 0 elsewhere
    a0.wo.weight[QFLAG, 2 * hd + 0] = 1.0
    # (wire_init.wire(prev_n=PREV_N) narrowed the previous-token copy so dim 124 is free for the flag.)
    assert float(a0.wo.weight[QFLAG - 1:QFLAG + 1, 0:2 * hd].abs().sum()) == 0.0, \
        "wire_init.wire must run with prev_n=PREV_N"
    # Head 0's value dim 63 (not part of the 59-dim copy) carries the value flag instead: dim 123 = 1
    # at positions whose previous token is a value.
    a0.wv.weight[63].zero_()
    a0.wv.weight[63, VAL] = 1.0
    a0.wo.weight[PREV_VAL, 63] = 1.0 / (0.5 * s0)

    # ---- layer 1 head 0 (kv head 0): the echo.
    a1 = model.layers[1].attn
    a1.wq.weight[0:2 * hd].zero_()             # heads 0 and 1 (head 1 shares kv head 0: uniform, writes nothing)
    a1.wk.weight[0:hd].zero_()
    a1.wv.weight[0:hd].zero_()
    a1.wo.weight[:, 0:2 * hd].zero_()
    scale = math.sqrt(hd)                      # torch divides scores by sqrt(head_dim)
    match_pairs = list(range(8, 28))           # theta_8 = 1e-3 at base 1e12: <= 0.06 rad across a question
    dims = match_pairs + [p + half for p in match_pairs]
    # The match compares identity dims 0..39 (query: the current token; key: the previous token's
    # copy) — exact for two structural tokens, ~N(0, 1/8) against any other.
    R = torch.eye(PREV_N)[:N_STRUCT]
    # Query: the current identity, with "The" read as "▁the" (rank-one: id -> id + (id.e_The)(e_the - e_The)).
    q_map = torch.eye(64)[:PREV_N] + torch.outer(ident[t_the, :PREV_N] - ident[t_cap, :PREV_N], ident[t_cap])
    mq = math.sqrt(match_nats * scale)
    for r, d in enumerate(dims):
        a1.wq.weight[d, TOK:TOK + 64] = mq * (R[r] @ q_map) / s1
        a1.wk.weight[d, PREV0:PREV0 + PREV_N] = mq * R[r] / (s1 * prev_raw)
    # The sink (the marker) would also carry a match term, with its own previous token (the
    # newline before "Question"): a fixed random offset of up to ~20 nats for every query. A
    # rank-one term in the marker's own identity cancels it (exactly, when that token is <0x0A>).
    nl_match = mq * (R @ ident[t_nl, :PREV_N])
    for r, d in enumerate(dims):
        a1.wk.weight[d, TOK:TOK + 64] = -nl_match[r] * u / s1
    # Recency among the question-marked keys: in a conversation every earlier question and answer is
    # marked too, and the current question must win. f(d) = sum_j a_j cos(theta_j d) over pairs 4-6
    # (periods 199, 472, 1122 tokens) stays within 10% of its peak over the 32 most recent
    # positions and is >= 8.6% lower at every distance from 28 further back up to 3000 (a turn is
    # >= 28 tokens): ~13 nats between the current turn and earlier ones at recency_nats = 150.
    for jr, a in ((4, 0.5), (5, 0.5), (6, 2.0)):
        a1.wq.weight[jr, CONST] = 8.0 / (3.0 * s1)
        a1.wk.weight[jr, QFLAG] = recency_nats * a / 3.0 * scale / 8.0 / s1
    jq, js, je = 28, 29, 30
    a1.wq.weight[jq, CONST] = 8.0 / (3.0 * s1)
    a1.wk.weight[jq, QFLAG] = qflag_nats * scale / 8.0 / s1
    a1.wk.weight[js, TOK:TOK + 64] = u / s1    # 1 at the marker (the sink), 0 elsewhere
    a1.wq.weight[js, CONST] = sink_nats * scale / (3.0 * s1)
    a1.wq.weight[js, ENT] = sink_entity_nats * scale / (0.5 * s1)
    a1.wq.weight[js, VAL] = sink_value_nats * scale / (0.5 * s1)
    a1.wq.weight[js, TOK:TOK + 64] += sink_newline_nats * scale * ident[t_nl] / s1
    a1.wk.weight[je, ENT] = 1.0 / (0.5 * s1)   # 1 at entity keys
    a1.wq.weight[je, TOK:TOK + 64] = the_nats * scale * (ident[t_the] - ident[t_cap]) / s1
    # Value: the key token's identity with the marker direction removed (the sink copies nothing).
    a1.wv.weight[0:64, TOK:TOK + 64] = (torch.eye(64) - torch.outer(u, u)) / s1
    a1.wo.weight[TOK:TOK + 64, 0:64] = torch.eye(64) * echo_gain

    # ---- layer 1 head 2 (wire_init's induction head, kv head 1): keys after the marker are pushed
    # down, so the entity of the answer finds the fact's value in the document rather than the
    # question's "?" (whose previous token is that entity too). Pair 10: position-free over a question.
    # Each added term has a pair of its own and uses only its first dim: two terms in the two dims of
    # one pair mix by sin(theta * distance), which at 100K tokens is no longer small.
    jp = 10
    a1.wq.weight[2 * hd + jp, CONST] = 8.0 / (3.0 * s1)
    a1.wk.weight[hd + jp, QFLAG] = -question_penalty_nats * scale / 8.0 / s1
    # The answer's value must be followed by the fact's "." — the key after that value. A bonus for
    # (value query, key after a value) keeps frequent tokens whose random match with the value is
    # high (a "▁the" hundreds of times) from outweighing it. Pair 14 turns by <= 0.74 rad over
    # 131072 tokens, so the bonus is >= 74% of its nominal size at every distance.
    jv = 14
    a1.wq.weight[2 * hd + jv, VAL] = 8.0 / (0.5 * s1)
    a1.wk.weight[hd + jv, PREV_VAL] = after_value_nats * scale / 8.0 / s1

    # ---- everything not wired writes nothing: layers 2-3 attention, heads 1 and 3 of layers 0-1
    # (done above), and every feed-forward block but the two rules of layer 3.
    for layer in model.layers[2:]:
        layer.attn.wq.weight.zero_()
        layer.attn.wk.weight.zero_()
        layer.attn.wo.weight.zero_()
    for layer in model.layers:
        layer.ffn.w2.weight.zero_()
    f = model.layers[3].ffn
    f.w1.weight.zero_()
    f.w3.weight.zero_()
    # unit 0: previous token "▁assistant" and after the marker -> "The"; unit 1: previous token a value
    # and after the marker -> <|im_end|>.
    # Gate = G * (detector_1 + detector_2 - 1.5) in raw residual units relative to the constant
    # (RMSNorm scales every read alike, so the sign does not depend on the row's norm).
    G = 10.0
    for unit, (first, first_dims, target) in enumerate([
            (ident[t_asst, :PREV_N] / prev_raw, slice(PREV0, PREV0 + PREV_N), t_cap),
            (torch.ones(1), slice(PREV_VAL, PREV_VAL + 1), t_end)]):
        f.w1.weight[unit, first_dims] = G * first
        f.w1.weight[unit, QFLAG] = G
        f.w1.weight[unit, CONST] = -G * 1.5 / 3.0
        f.w3.weight[unit, CONST] = 1.0 / 3.0
        f.w2.weight[TOK:TOK + 64, unit] = rule_gain * ident[target]
    return dict(marker=marker)
