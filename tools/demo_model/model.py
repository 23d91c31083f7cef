"""A small Llama-architecture model (RMSNorm, RoPE, SwiGLU, GQA) in PyTorch.

RoPE is in Hugging Face's rotate-half layout; export_gguf.py permutes Q/K rows to GGUF's
adjacent-pair layout. Forward takes explicit positions and an attention mask so that one document
can be shared by several question branches in one sequence (see train.py).
"""
import math
from dataclasses import dataclass, asdict

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Config:
    vocab_size: int = 2048
    dim: int = 128
    n_layers: int = 4
    n_heads: int = 4
    n_kv_heads: int = 2
    ffn_dim: int = 384
    norm_eps: float = 1e-5
    rope_theta: float = 10000.0
    max_seq_len: int = 2048
    tie_embeddings: bool = True
    head_size: int = 0  # 0: dim // n_heads; else heads of this size (n_heads * head_size may differ from dim)

    @property
    def head_dim(self):
        return self.head_size or self.dim // self.n_heads

    def to_dict(self):
        return asdict(self)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def rope_tables(head_dim, positions, theta):
    """cos/sin [B, T, head_dim] for rotate-half RoPE at integer positions [B, T]."""
    inv = 1.0 / (theta ** (torch.arange(0, head_dim, 2, device=positions.device, dtype=torch.float32) / head_dim))
    ang = positions.to(torch.float32)[..., None] * inv  # [B, T, hd/2]
    ang = torch.cat([ang, ang], dim=-1)
    return ang.cos(), ang.sin()


def rotate_half(x):
    h = x.shape[-1] // 2
    return torch.cat([-x[..., h:], x[..., :h]], dim=-1)


class Attention(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        hd = cfg.head_dim
        self.wq = nn.Linear(cfg.dim, cfg.n_heads * hd, bias=False)
        self.wk = nn.Linear(cfg.dim, cfg.n_kv_heads * hd, bias=False)
        self.wv = nn.Linear(cfg.dim, cfg.n_kv_heads * hd, bias=False)
        self.wo = nn.Linear(cfg.n_heads * hd, cfg.dim, bias=False)

    def forward(self, x, cos, sin, mask):
        B, T, _ = x.shape
        c = self.cfg
        hd = c.head_dim
        q = self.wq(x).view(B, T, c.n_heads, hd).transpose(1, 2)
        k = self.wk(x).view(B, T, c.n_kv_heads, hd).transpose(1, 2)
        v = self.wv(x).view(B, T, c.n_kv_heads, hd).transpose(1, 2)
        cos_, sin_ = cos[:, None], sin[:, None]
        q = q * cos_ + rotate_half(q) * sin_
        k = k * cos_ + rotate_half(k) * sin_
        rep = c.n_heads // c.n_kv_heads
        if rep > 1:
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
        if hasattr(F, "scaled_dot_product_attention") and x.is_cuda:
            o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None])
        else:
            s = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(hd))
            s = s.masked_fill(~mask[:, None], float("-inf"))
            o = torch.softmax(s, dim=-1) @ v
        return self.wo(o.transpose(1, 2).reshape(B, T, c.n_heads * hd))


class FeedForward(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.w1 = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False)  # gate
        self.w3 = nn.Linear(cfg.dim, cfg.ffn_dim, bias=False)  # up
        self.w2 = nn.Linear(cfg.ffn_dim, cfg.dim, bias=False)  # down

    def forward(self, x):
        return self.w2(F.silu(self.w1(x)) * self.w3(x))


class Block(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.attn_norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.attn = Attention(cfg)
        self.ffn_norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.ffn = FeedForward(cfg)

    def forward(self, x, cos, sin, mask):
        x = x + self.attn(self.attn_norm(x), cos, sin, mask)
        return x + self.ffn(self.ffn_norm(x))


class Llama(nn.Module):
    def __init__(self, cfg: Config):
        super().__init__()
        self.cfg = cfg
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.dim)
        self.layers = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layers))
        self.norm = RMSNorm(cfg.dim, cfg.norm_eps)
        self.output = nn.Linear(cfg.dim, cfg.vocab_size, bias=False)
        if cfg.tie_embeddings:
            self.output.weight = self.tok_emb.weight
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith("wo.weight") or name.endswith("w2.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * cfg.n_layers))

    @staticmethod
    def _init(m):
        if isinstance(m, nn.Linear):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, mean=0.0, std=0.02)

    def hidden(self, tokens, positions=None, mask=None):
        """Final-normed hidden states [B, T, dim]. Default: positions 0..T-1 and a causal mask."""
        B, T = tokens.shape
        if positions is None:
            positions = torch.arange(T, device=tokens.device).expand(B, T)
        if mask is None:
            mask = torch.ones(T, T, dtype=torch.bool, device=tokens.device).tril().expand(B, T, T)
        cos, sin = rope_tables(self.cfg.head_dim, positions, self.cfg.rope_theta)
        x = self.tok_emb(tokens)
        for layer in self.layers:
            x = layer(x, cos, sin, mask)
        return self.norm(x)

    def forward(self, tokens, positions=None, mask=None):
        return self.output(self.hidden(tokens, positions, mask))

    @torch.no_grad()
    def generate(self, prompt, max_new_tokens, stop_ids):
        """Greedy decoding without a cache (evaluation of short answers only)."""
        ids = list(prompt)
        dev = self.tok_emb.weight.device
        out = []
        for _ in range(max_new_tokens):
            logits = self.forward(torch.tensor([ids], device=dev))[0, -1]
            t = int(logits.argmax())
            if t in stop_ids:
                break
            out.append(t)
            ids.append(t)
        return out
