"""Exports a trained demo model (final.pt or checkpoint.pt) and its tokenizer to GGUF (llama).

    python3 tools/demo_model/export_gguf.py --ckpt runs/demo/final.pt --tokenizer runs/demo/tok.model \
        --out resources/models/snapdoc-demo.gguf [--f16]

Q/K rows are permuted from Hugging Face's rotate-half RoPE layout to GGUF's adjacent-pair layout
(as llama.cpp's convert script does). The tokenizer goes into tokenizer.ggml.* with the ChatML
chat template, which the engine detects by its "<|im_start|>".
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chatml import CHAT_TEMPLATE  # noqa: E402
from model import Config  # noqa: E402

import numpy as np  # noqa: E402
import spm_lite  # noqa: E402  (sentencepiece when installed, else a pure-Python reader)
import torch  # noqa: E402

# GGUF value types
U32, I32, F32, BOOL, STRING, ARRAY = 4, 5, 6, 7, 8, 9
GGML_F32, GGML_F16 = 0, 1
ALIGN = 32


def _str(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def _value(t, v):
    if t == U32:
        return struct.pack("<I", v)
    if t == I32:
        return struct.pack("<i", v)
    if t == F32:
        return struct.pack("<f", v)
    if t == BOOL:
        return struct.pack("<?", v)
    if t == STRING:
        return _str(v)
    raise ValueError(t)


def _kv(key, t, v):
    return _str(key) + struct.pack("<I", t) + _value(t, v)


def _kv_array(key, t, values):
    out = _str(key) + struct.pack("<I", ARRAY) + struct.pack("<IQ", t, len(values))
    if t == F32:
        return out + np.asarray(values, dtype="<f4").tobytes()
    if t == I32:
        return out + np.asarray(values, dtype="<i4").tobytes()
    return out + b"".join(_value(t, v) for v in values)


def permute_rope(w, n_heads):
    """Rotate-half rows -> adjacent-pair rows, per head (llama.cpp convert's permute)."""
    out_dim = w.shape[0]
    return w.reshape(n_heads, 2, out_dim // n_heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def export(ckpt_path, tokenizer_path, out_path, f16=False, name="snapdoc-demo", context=0):
    ck = torch.load(ckpt_path, map_location="cpu", weights_only=False)  # our own file
    cfg = Config(**ck["config"])
    sd = {k: v.float().numpy() for k, v in ck["model"].items()}
    sp = spm_lite.load(tokenizer_path)
    assert sp.get_piece_size() == cfg.vocab_size, "tokenizer does not match the model's vocabulary"

    tensors = [("token_embd.weight", sd["tok_emb.weight"])]
    for i in range(cfg.n_layers):
        p = f"layers.{i}."
        tensors += [
            (f"blk.{i}.attn_norm.weight", sd[p + "attn_norm.weight"]),
            (f"blk.{i}.attn_q.weight", permute_rope(sd[p + "attn.wq.weight"], cfg.n_heads)),
            (f"blk.{i}.attn_k.weight", permute_rope(sd[p + "attn.wk.weight"], cfg.n_kv_heads)),
            (f"blk.{i}.attn_v.weight", sd[p + "attn.wv.weight"]),
            (f"blk.{i}.attn_output.weight", sd[p + "attn.wo.weight"]),
            (f"blk.{i}.ffn_norm.weight", sd[p + "ffn_norm.weight"]),
            (f"blk.{i}.ffn_gate.weight", sd[p + "ffn.w1.weight"]),
            (f"blk.{i}.ffn_up.weight", sd[p + "ffn.w3.weight"]),
            (f"blk.{i}.ffn_down.weight", sd[p + "ffn.w2.weight"]),
        ]
    tensors.append(("output_norm.weight", sd["norm.weight"]))
    if not cfg.tie_embeddings:  # tied: no output.weight, the engine reuses token_embd (as llama.cpp does)
        tensors.append(("output.weight", sd["output.weight"]))

    kvs = [
        _kv("general.architecture", STRING, "llama"),
        _kv("general.name", STRING, name),
        _kv("general.alignment", U32, ALIGN),
        _kv("llama.context_length", U32, context or cfg.max_seq_len),
        _kv("llama.embedding_length", U32, cfg.dim),
        _kv("llama.block_count", U32, cfg.n_layers),
        _kv("llama.feed_forward_length", U32, cfg.ffn_dim),
        _kv("llama.attention.head_count", U32, cfg.n_heads),
        _kv("llama.attention.head_count_kv", U32, cfg.n_kv_heads),
        _kv("llama.attention.layer_norm_rms_epsilon", F32, cfg.norm_eps),
        _kv("llama.rope.freq_base", F32, cfg.rope_theta),
        _kv("llama.rope.dimension_count", U32, cfg.head_dim),
        _kv("llama.attention.key_length", U32, cfg.head_dim),
        _kv("llama.attention.value_length", U32, cfg.head_dim),
        _kv("llama.vocab_size", U32, cfg.vocab_size),
        _kv("tokenizer.ggml.model", STRING, "llama"),
        _kv_array("tokenizer.ggml.tokens", STRING, [sp.id_to_piece(i) for i in range(sp.get_piece_size())]),
        _kv_array("tokenizer.ggml.scores", F32, [sp.get_score(i) for i in range(sp.get_piece_size())]),
        # GGUF token types are SentencePiece's piece types (1 normal .. 6 byte); the package's API
        # cannot tell user-defined pieces apart, so they are read from the model file.
        _kv_array("tokenizer.ggml.token_type", I32, spm_lite.SentencePieceLite(tokenizer_path).types),
        _kv("tokenizer.ggml.bos_token_id", U32, sp.bos_id()),
        _kv("tokenizer.ggml.eos_token_id", U32, sp.eos_id()),
        _kv("tokenizer.ggml.unknown_token_id", U32, sp.unk_id()),
        _kv("tokenizer.ggml.add_bos_token", BOOL, True),
        _kv("tokenizer.ggml.add_eos_token", BOOL, False),
        _kv("tokenizer.ggml.add_space_prefix", BOOL, True),
        _kv("tokenizer.chat_template", STRING, CHAT_TEMPLATE),
    ]
    # What each head attends to (wire_roles.ROLES), layer-major: n_layers x n_heads names, "" for none.
    # A snapdoc key (docs/demo_model.md, "Head roles"); other readers ignore it.
    roles = ck.get("head_roles")
    if roles:
        assert len(roles) == cfg.n_layers * cfg.n_heads, "head_roles: one name per (layer, head)"
        kvs.append(_kv_array("snapdoc.attention.head_roles", STRING, roles))

    infos, blobs, offset = [], [], 0
    for tname, arr in tensors:
        # 1-D norms stay F32 (as llama.cpp does); matrices F16 when asked.
        typ = GGML_F16 if (f16 and arr.ndim == 2) else GGML_F32
        data = np.ascontiguousarray(arr.astype("<f2" if typ == GGML_F16 else "<f4")).tobytes()
        dims = list(reversed(arr.shape))  # GGUF: innermost first
        infos.append(_str(tname) + struct.pack("<I", len(dims)) + b"".join(struct.pack("<Q", d) for d in dims) +
                     struct.pack("<IQ", typ, offset))
        pad = (-len(data)) % ALIGN
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad

    header = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(kvs)) + b"".join(kvs) + b"".join(infos)
    header += b"\0" * ((-len(header)) % ALIGN)
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(header)
        for b in blobs:
            f.write(b)
    os.replace(tmp, out_path)
    n_params = sum(a.size for _, a in tensors)
    print(f"wrote {out_path}: {os.path.getsize(out_path)} bytes, {len(tensors)} tensors, {n_params} parameters")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--f16", action="store_true", help="store matrices as F16 (norms stay F32)")
    ap.add_argument("--name", default="snapdoc-demo")
    ap.add_argument("--context", type=int, default=0,
                    help="llama.context_length to declare (default: the training config's, twice the longest "
                         "training document); RoPE has no learned positions, so longer prompts run, less accurately")
    args = ap.parse_args()
    export(args.ckpt, args.tokenizer, args.out, args.f16, args.name, args.context)


if __name__ == "__main__":
    main()
