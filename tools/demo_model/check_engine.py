"""Checks that the engine sees what PyTorch sees: prompt ids (snapdoc-cli prompt) and logits
(snapdoc-cli eval) for an exported model.

    python3 tools/demo_model/check_engine.py --cli build/app/snapdoc-cli --gguf resources/models/snapdoc-demo.gguf \
        --ckpt runs/demo/final.pt --tokenizer runs/demo/tok.model
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import haystack  # noqa: E402
from chatml import ChatML  # noqa: E402
from model import Config, Llama  # noqa: E402

import numpy as np  # noqa: E402
import spm_lite  # noqa: E402  (sentencepiece when installed, else a pure-Python reader)
import torch  # noqa: E402


def engine_prompt_ids(cli, gguf, doc, question):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(doc)
        path = f.name
    try:
        out = subprocess.run([cli, "prompt", "-m", gguf, "--doc", path, "-q", question], check=True,
                             capture_output=True, text=True).stdout
    finally:
        os.unlink(path)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--gguf", required=True)
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--tokenizer", required=True)
    ap.add_argument("--length", type=int, default=300)
    args = ap.parse_args()
    sp = spm_lite.load(args.tokenizer)
    chat = ChatML(sp)
    rng = random.Random(5)
    doc = haystack.training_document(rng, args.length, lambda s: len(sp.encode(s)) + 1)
    q = doc.facts[0].question()
    py_ids = chat.document_part(doc.text) + chat.question_part(q)
    out = engine_prompt_ids(args.cli, args.gguf, doc.text, q)
    nums = []
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0] in ("document_part", "question_part"):
            nums += [int(x) for x in parts[1:]]
    if not nums:
        print(out[:2000])
    ok = nums == py_ids
    print(f"prompt ids: python {len(py_ids)} engine {len(nums)} -> {'MATCH' if ok else 'DIFFER'}")
    if not ok:
        for i, (a, b) in enumerate(zip(py_ids, nums)):
            if a != b:
                print("first difference at", i, py_ids[max(0, i - 3):i + 5], nums[max(0, i - 3):i + 5])
                break

    ck = torch.load(args.ckpt, map_location="cpu", weights_only=False)  # our own file: PyTorch 2.6+ defaults to True
    model = Llama(Config(**ck["config"]))
    model.load_state_dict(ck["model"])
    model.eval()
    ids = py_ids + chat.answer(doc.facts[0].value)
    with torch.no_grad():
        ref = model(torch.tensor([ids]))[0].numpy()
    with tempfile.NamedTemporaryFile(suffix=".f32", delete=False) as f:
        lpath = f.name
    try:
        subprocess.run([args.cli, "eval", "-m", args.gguf, "--ids", " ".join(map(str, ids)), "--logits-out", lpath],
                       check=True, capture_output=True)
        eng = np.fromfile(lpath, dtype="<f4").reshape(len(ids), -1)
    finally:
        os.unlink(lpath)
    diff = np.abs(eng - ref).max()
    print(f"logits over {len(ids)} positions: max |engine - torch| = {diff:.2e} (max |logit| {np.abs(ref).max():.2f})")
    return 0 if ok and diff < 1e-3 * max(1.0, np.abs(ref).max()) else 1


if __name__ == "__main__":
    sys.exit(main())
