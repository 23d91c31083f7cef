"""Why the wired circuit of wire_init.py held to ~4K tokens and what keeps it at 128K (numpy only).

    python3 tools/demo_model/longctx_analysis.py

1. Previous-token head (layer 0): score(D) = A * sum_j cos(theta_j (D - 1)) over the 16 fastest RoPE
   pairs. Printed: the smallest deficit sum_j (1 - cos) away from D = 1, over every D <= 131072 (the
   head stays sharp if A times it is far above log N; A is ~570 logits per unit at the wired gain).
2. Induction head (layer 1): the content match sits in the slowest pairs, which turn by theta_j * D.
   Printed: the mean cos over the match pairs at distance D (1 = position-free).
3. Interference: the match is a random projection of 61-dim token vectors to 2*P dims; a distractor's
   logit is G * c with c ~ N(0, sigma^2), sigma ~ peak / sqrt(2P). Printed: the needle's expected
   softmax share against n value distractors (the value flag puts them ahead of ordinary positions)
   for the wired match logit G.
"""
import numpy as np

HEAD_DIM, N = 64, 131072


def thetas(base):
    return base ** (-np.arange(HEAD_DIM // 2) * 2.0 / HEAD_DIM)


def prev_token_min_deficit(base, pairs=16):
    d = np.arange(0, N + 1, dtype=np.float64)
    s = np.zeros_like(d)
    for t in thetas(base)[:pairs]:
        s += 1 - np.cos(t * (d - 1))
    s[1] = np.inf
    return s.min(), int(np.argmin(s))


def match_cos(base, pairs, dist):
    return float(np.cos(thetas(base)[HEAD_DIM // 2 - pairs:] * dist).mean())


def needle_share(G, match_dims, n_distractors, rng=np.random.default_rng(0), trials=200):
    """Monte-Carlo with real random projections of random unit vectors (61 -> match_dims)."""
    shares = []
    for _ in range(trials):
        R = rng.standard_normal((match_dims, 61)) / np.sqrt(61)
        x = rng.standard_normal(61)
        x /= np.linalg.norm(x)
        ys = rng.standard_normal((n_distractors, 61))
        ys /= np.linalg.norm(ys, axis=1, keepdims=True)
        q = R @ x
        peak = q @ q
        logits = G * (ys @ R.T @ q) / peak
        shares.append(1.0 / (1.0 + np.exp(logits - G).sum()))
    return float(np.median(shares))


def main():
    for base in (1e5, 1e12):
        dmin, at = prev_token_min_deficit(base)
        print(f"RoPE base {base:g}: previous-token head, smallest deficit away from D=1 over D<={N}: {dmin:.3f} (D={at})")
    for base, pairs in ((1e5, 8), (1e12, 16)):
        row = " ".join(f"{d}:{match_cos(base, pairs, d):.2f}" for d in (2048, 4096, 6144, 16384, 32768, 65536, N))
        print(f"base {base:g}, {pairs} match pairs: mean cos at distance {row}")
    for dims, G in ((16, 14.0), (32, 28.0)):
        row = " ".join(f"{n}:{needle_share(G, dims, n):.3f}" for n in (40, 160, 320, 655, 1311))
        print(f"{dims} match dims, match logit {G:g}: needle's median share vs n value distractors {row}")


if __name__ == "__main__":
    main()
