#!/usr/bin/env python3
"""snapdoc-server benchmark: time to first token for questions 1..5 on a pasted long document
(stateless client: [user(document + "\\n\\nQuestion: Qk")] each time), throughput with N concurrent
clients, memory per document session (full store vs compressed cache), the same document with its
last paragraph edited (partial prefix reuse), and optionally llama.cpp on the same prompt ids with
its server's prompt cache (bench/server/llama_prompt_cache.c: the longest common prefix with the
previous prompt is kept, the rest decoded; so its prompt 1 is llama.cpp without a cache).
Numbers only, never pass/fail. Python standard library only.

  bench/server/server_bench.py --server build/app/snapdoc-server --cli build/app/snapdoc-cli \\
      --model M.gguf --doc DOC.txt --questions DOC.questions.tsv [--ctx 40000] [--budget 1024] \\
      [--clients 8] [--per-client 3] [--llama-cache PATH/llama_prompt_cache] [--template NAME]
"""
import argparse, http.client, json, os, subprocess, sys, threading, time


def start_server(args):
    cmd = [args.server, "-m", args.model, "--port", "0", "--no-cache", "--ctx", str(args.ctx),
           "--budget", str(args.budget), "--snapkv-min-tokens", "4096", "--queue", "64", "--log-level", "warn"]
    if args.template:
        cmd += ["--template", args.template]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    port = int(p.stdout.readline().rsplit(":", 1)[1])
    for _ in range(1200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            c.request("GET", "/health")
            if c.getresponse().status == 200:
                return p, port
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit("server did not come up")


def stream_chat(port, content, max_tokens, ignore_eos=False, user=None):
    """Returns (ttft seconds, total seconds, text, usage)."""
    body = {"messages": [{"role": "user", "content": content}], "temperature": 0, "max_tokens": max_tokens,
            "stream": True, "stream_options": {"include_usage": True}, "ignore_eos": ignore_eos}
    if user:
        body["user"] = user  # the fair queue's client key
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    t0 = time.perf_counter()
    c.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
    r = c.getresponse()
    ttft, text, usage = None, "", None
    for raw in r:
        line = raw.decode().strip()
        if not line.startswith("data: ") or line == "data: [DONE]":
            continue
        j = json.loads(line[6:])
        if j.get("usage"):
            usage = j["usage"]
        for ch in j.get("choices", []):
            piece = ch.get("delta", {}).get("content")
            if piece:
                if ttft is None:
                    ttft = time.perf_counter() - t0
                text += piece
    return ttft, time.perf_counter() - t0, text, usage


def load_average():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def edited(doc):
    """The document with its last paragraph (line) replaced by a longer one."""
    head = doc[: doc.rfind("\n") + 1]
    return head + ("In the harbor district, the gate code for the west pier was changed on Monday, and the "
                   "new code was written on the board next to the door of the harbor office.")


def prompt_ids(args, doc_path, question):
    out = subprocess.run([args.cli, "prompt", "-m", args.model, "--doc", doc_path, "-q", question]
                         + (["--template", args.template] if args.template else []),
                         capture_output=True, text=True, check=True).stdout
    ids = []
    for line in out.splitlines():
        ids += [t for t in line.replace(",", " ").split() if t.isdigit()]
    return ids


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                yield line.split()[0], int(line.split()[1]) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--cli")
    ap.add_argument("--model", required=True)
    ap.add_argument("--doc", required=True)
    ap.add_argument("--questions", required=True)
    ap.add_argument("--ctx", type=int, default=40000)
    ap.add_argument("--budget", type=int, default=1024)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--per-client", type=int, default=3)
    ap.add_argument("--llama-cache", help="bench/server/llama_prompt_cache built against llama.cpp")
    ap.add_argument("--template")
    ap.add_argument("--threads", type=int, default=2, help="llama.cpp's threads (the server uses all cores)")
    args = ap.parse_args()

    doc = open(args.doc).read().strip()
    questions = [l.split("\t")[0] for l in open(args.questions) if l.strip()][:5]
    print("load average at start:", load_average())
    p, port = start_server(args)
    try:
        print(f"model {args.model}, document {args.doc}, budget {args.budget}")
        ttfts = []
        for k, q in enumerate(questions, 1):
            ttft, total, text, u = stream_chat(port, doc + "\n\nQuestion: " + q, 16)
            s = u["snapkv"]
            ttfts.append(ttft)
            print(f"Q{k}: TTFT {ttft:.3f} s, total {total:.3f} s, prompt {u['prompt_tokens']} tokens "
                  f"({u['prompt_tokens_details']['cached_tokens']} reused, session {s['session']}), "
                  f"kept {s['kept_entries']}/{s['full_entries']} ({s['compression_ratio']:.1f}x), "
                  f"K/V {s['kv_bytes_full'] / 2**20:.1f} MiB full vs {s['kv_bytes_compressed'] / 2**20:.2f} MiB "
                  f"compressed; answer {text!r}")
        later = sorted(ttfts[1:])
        print(f"TTFT question 1 {ttfts[0]:.3f} s; questions 2-5 median {later[len(later) // 2]:.3f} s "
              f"(min {later[0]:.3f}, max {later[-1]:.3f}) -> {ttfts[0] / later[len(later) // 2]:.1f}x faster "
              f"(load {load_average()})")
        # The same document with its last paragraph edited: a new session built on the held one.
        ttft, total, text, u = stream_chat(port, edited(doc) + "\n\nQuestion: " + questions[0], 16)
        s = u["snapkv"]
        print(f"edited last paragraph, Q1: TTFT {ttft:.3f} s, prompt {u['prompt_tokens']} tokens, document part "
              f"{s['document_tokens']} ({u['prompt_tokens_details']['cached_tokens']} reused, session "
              f"{s['session']}) -> {ttfts[0] / ttft:.1f}x sooner than question 1; answer {text!r}")
        c = http.client.HTTPConnection("127.0.0.1", port)
        c.request("GET", "/props")
        props = json.loads(c.getresponse().read())
        print(f"held sessions {props['sessions']['held']}, {props['sessions']['bytes'] / 2**20:.1f} MiB "
              f"(f16 full store + tail rows); server " +
              ", ".join(f"{k} {v:.0f} MiB" for k, v in rss_mib(p.pid)))

        # Throughput: the same requests (questions on the held document, 32 tokens each), one
        # client after another vs `clients` at once.
        def work(n, out, user=None):
            for i in range(n):
                _, _, _, u = stream_chat(port, doc + "\n\nQuestion: " + questions[i % len(questions)], 32, True,
                                         user)
                out.append(u["completion_tokens"])
        total_requests = args.clients * args.per_client
        seq = []
        t0 = time.perf_counter()
        work(total_requests, seq)
        seq_s = time.perf_counter() - t0
        par = []
        threads = [threading.Thread(target=work, args=(args.per_client, par, f"client-{i}"))
                   for i in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        par_s = time.perf_counter() - t0
        print(f"throughput: {total_requests} requests x 32 tokens on the held document: 1 client "
              f"{sum(seq) / seq_s:.1f} tok/s ({total_requests / seq_s:.2f} req/s), {args.clients} clients "
              f"{sum(par) / par_s:.1f} tok/s ({total_requests / par_s:.2f} req/s) (load {load_average()})")
        print("server after load: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in rss_mib(p.pid)))
    finally:
        p.terminate()
        p.wait(timeout=60)

    if args.llama_cache and args.cli and os.path.exists(args.llama_cache):
        # The same prompts, in the same order, as ids (snapdoc-cli prompt lays them out as the
        # server does), through llama.cpp with its server's prompt cache.
        edited_path = f"/tmp/server-bench-edited-{os.getpid()}.txt"
        with open(edited_path, "w") as f:
            f.write(edited(doc))
        files = []
        for k, (path, q) in enumerate([(args.doc, q) for q in questions] + [(edited_path, questions[0])]):
            files.append(f"/tmp/server-bench-ids-{os.getpid()}-{k}.txt")
            with open(files[-1], "w") as f:
                f.write(" ".join(prompt_ids(args, path, q)))
        print(f"llama.cpp with a prompt cache (llama_prompt_cache, f16 K/V, n_batch 2048, n_ubatch 512, "
              f"{args.threads} threads; prompts 1-5 the questions, 6 the edited document), load {load_average()}:")
        r = subprocess.run([args.llama_cache, args.model, "--threads", str(args.threads)] + files,
                           capture_output=True, text=True)
        print(r.stdout.strip() or r.stderr.strip())
        for f in files + [edited_path]:
            os.remove(f)
    print("load average at end:", load_average())


if __name__ == "__main__":
    main()
