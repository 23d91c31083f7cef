#!/usr/bin/env python3
"""How far snapdoc's logits are from the exact reference, as a fraction of llama.cpp's distance, for
every quantized modelzoo file (../shared/fixtures/modelzoo, with ref-*.json) at every CPU kernel level.

Each cell is max |snapdoc - exact| / max |llama.cpp - exact|, both over the exact reference's top-10
ids (the distance tests/golden/test_modelzoo_logits.cpp holds to a fraction of llama.cpp's):
  short  the 9-token prompt, every position, against ref.short.max_abs_llama_cpp_minus_exact
         (what the golden test checks; 9 rows run the decode dots, quant_dot);
  long   position 1023 of the 1024-token sequence (prefill chunks of 512 rows run the integer GEMM,
         quant_gemm), against llama.cpp's own distance there, computed from logits-long-*.f32;
  all    the max over the long sequence's 8 stored positions (0 .. 1023), against the same
         llama.cpp distance at 1023 (its only full row: the issue's figures were of this kind).
Runs `SNAPDOC_CPU_KERNELS=<level> snapdoc-cli eval --positions ...`; a level the CPU or build lacks
prints "n/a". No numpy: the rows are read with `array`.

  scripts/modelzoo-accuracy.py [--cli build/snapdoc-cli] [--levels portable,avx2,...] [-- extra eval args]
"""
import argparse
import array
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = os.path.join(ROOT, "..", "shared", "fixtures", "modelzoo")
FILES = [("llama31-tiny", "Q8_0"), ("llama31-tiny", "Q4_K_M"), ("spm-llama-tiny", "Q8_0"),
         ("spm-llama-tiny", "Q4_0"), ("spm-llama-tiny", "Q4_K_M")]
LEVELS = ["portable", "avx2", "avxvnni", "avx512vnni"]


def load(folder, name):
    with open(os.path.join(ZOO, folder, name)) as f:
        return json.load(f)


def read_rows(path, vocab, count, first=0):
    rows = array.array("f")
    with open(path, "rb") as f:
        f.seek(4 * vocab * first)
        rows.fromfile(f, vocab * count)
    if sys.byteorder != "little":
        rows.byteswap()
    return [rows[i * vocab:(i + 1) * vocab] for i in range(count)]


def top10_error(row, top10):
    return max(abs(row[tid] - logit) for tid, logit in top10)


def run_eval(cli, level, gguf, ids, positions, n_ctx, extra):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "logits.f32")
        cmd = [cli, "eval", "-m", gguf, "--ids", ",".join(map(str, ids)), "--positions",
               ",".join(map(str, positions)), "--ctx", str(n_ctx), "--logits-out", out] + extra
        env = dict(os.environ, SNAPDOC_CPU_KERNELS=level)
        r = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if r.returncode != 0:
            if "cannot run here" in r.stderr or "not available" in r.stderr:
                return None
            sys.exit(f"{' '.join(cmd[:3])} ... failed at level {level}:\n{r.stderr}")
        size = os.path.getsize(out)
        vocab = size // (4 * len(positions))
        return read_rows(out, vocab, len(positions))


def measure(cli, level, folder, variant, extra):
    gguf = os.path.join(ZOO, folder, f"{folder}-{variant}.gguf")
    oracle = load(folder, f"oracle-{variant}.json")
    ref = load(folder, f"ref-{variant}.json")
    n_ctx = oracle["llama_cpp"]["n_ctx"]
    # short: every position of the prompt
    ids = oracle["logits"]["prompt_ids"]
    positions = list(range(len(ids)))
    rows = run_eval(cli, level, gguf, ids, positions, n_ctx, extra)
    if rows is None:
        return None
    short = max(top10_error(r, t) for r, t in zip(rows, ref["short"]["top10"]))
    short_llama = ref["short"]["max_abs_llama_cpp_minus_exact"]
    # long: every stored position; llama.cpp's full row only at the last
    ids = oracle["long"]["ids"]
    last = len(ids) - 1
    positions = ref["long"]["positions"]
    rows = run_eval(cli, level, gguf, ids, positions, n_ctx, extra)
    errors = [top10_error(r, t) for r, t in zip(rows, ref["long"]["top10"])]
    vocab = len(rows[0])
    file_positions = oracle["long"]["file_positions"]
    llama = read_rows(os.path.join(ZOO, folder, oracle["long"]["file"]), vocab, 1, file_positions.index(last))[0]
    llama_last = top10_error(llama, ref["long"]["top10"][positions.index(last)])
    return (short, short_llama), (errors[positions.index(last)], llama_last), (max(errors), llama_last)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cli", default=os.path.join(ROOT, "build", "snapdoc-cli"))
    p.add_argument("--levels", default=",".join(LEVELS))
    p.add_argument("--files", default="", help="comma-separated folder:variant (default: all five)")
    p.add_argument("--raw", action="store_true", help="print the distances themselves: snapdoc:llama.cpp")
    p.add_argument("extra", nargs="*", help="extra snapdoc-cli eval arguments (after --)")
    a = p.parse_args()
    files = [tuple(f.split(":")) for f in a.files.split(",")] if a.files else FILES
    levels = a.levels.split(",")
    width = 40 if a.raw else 20
    print("|snapdoc - exact| / |llama.cpp - exact| over the exact top-10 ids: short prompt (all positions) / "
          "long (position 1023) / long (max over its 8 stored positions)")
    print(f"{'file':<24}" + "".join(f"{lv:>{width}}" for lv in levels))
    for folder, variant in files:
        cells = []
        for lv in levels:
            m = measure(a.cli, lv, folder, variant, a.extra)
            if m is None:
                cells.append("n/a")
            elif a.raw:
                cells.append(" / ".join(f"{ours:.3f}:{llama:.3f}" for ours, llama in m))
            else:
                cells.append(" / ".join(f"{ours / llama:.2f}" for ours, llama in m))
            sys.stdout.flush()
        print(f"{folder + ' ' + variant:<24}" + "".join(f"{c:>{width}}" for c in cells), flush=True)


if __name__ == "__main__":
    main()
