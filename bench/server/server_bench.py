#!/usr/bin/env python3
"""snapdoc-server benchmark: time to first token for questions 1..5 on a pasted long document
(stateless client: [user(document + "\\n\\nQuestion: Qk")] each time), throughput with N concurrent
clients, memory per document session (full store vs compressed cache), and optionally llama.cpp
(llama_oracle greedy -n 1 on the same prompt ids, one process per question: no prompt cache).
Numbers only, never pass/fail. Python standard library only.

  bench/server/server_bench.py --server build/app/snapdoc-server --cli build/app/snapdoc-cli \\
      --model M.gguf --doc DOC.txt --questions DOC.questions.tsv [--ctx 40000] [--budget 1024] \\
      [--clients 8] [--oracle PATH/llama_oracle] [--template NAME]
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


def stream_chat(port, content, max_tokens, ignore_eos=False):
    """Returns (ttft seconds, total seconds, text, usage)."""
    body = {"messages": [{"role": "user", "content": content}], "temperature": 0, "max_tokens": max_tokens,
            "stream": True, "stream_options": {"include_usage": True}, "ignore_eos": ignore_eos}
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
    ap.add_argument("--oracle")
    ap.add_argument("--template")
    args = ap.parse_args()

    doc = open(args.doc).read().strip()
    questions = [l.split("\t")[0] for l in open(args.questions) if l.strip()][:5]
    with open("/proc/loadavg") as f:
        print("load average at start:", f.read().split()[:3])
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
              f"(min {later[0]:.3f}, max {later[-1]:.3f}) -> {ttfts[0] / later[len(later) // 2]:.1f}x faster")
        c = http.client.HTTPConnection("127.0.0.1", port)
        c.request("GET", "/props")
        props = json.loads(c.getresponse().read())
        print(f"held sessions {props['sessions']['held']}, {props['sessions']['bytes'] / 2**20:.1f} MiB "
              f"(f16 full store + tail rows); server " +
              ", ".join(f"{k} {v:.0f} MiB" for k, v in rss_mib(p.pid)))

        # Throughput: the same requests (questions on the held document, 32 tokens each), one
        # client after another vs `clients` at once.
        def work(n, out):
            for i in range(n):
                _, _, _, u = stream_chat(port, doc + "\n\nQuestion: " + questions[i % len(questions)], 32, True)
                out.append(u["completion_tokens"])
        total_requests = args.clients * args.per_client
        seq = []
        t0 = time.perf_counter()
        work(total_requests, seq)
        seq_s = time.perf_counter() - t0
        par = []
        threads = [threading.Thread(target=work, args=(args.per_client, par)) for _ in range(args.clients)]
        t0 = time.perf_counter()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        par_s = time.perf_counter() - t0
        print(f"throughput: {total_requests} requests x 32 tokens on the held document: 1 client "
              f"{sum(seq) / seq_s:.1f} tok/s ({total_requests / seq_s:.2f} req/s), {args.clients} clients "
              f"{sum(par) / par_s:.1f} tok/s ({total_requests / par_s:.2f} req/s)")
        print("server after load: " + ", ".join(f"{k} {v:.0f} MiB" for k, v in rss_mib(p.pid)))
    finally:
        p.terminate()
        p.wait(timeout=60)

    if args.oracle and args.cli and os.path.exists(args.oracle):
        ids = []
        out = subprocess.run([args.cli, "prompt", "-m", args.model, "--doc", args.doc, "-q", questions[0]]
                             + (["--template", args.template] if args.template else []),
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            ids += [t for t in line.replace(",", " ").split() if t.isdigit()]
        ids_file = f"/tmp/server-bench-ids-{os.getpid()}.txt"
        with open(ids_file, "w") as f:
            f.write(" ".join(ids))
        for k in range(2):
            t0 = time.perf_counter()
            subprocess.run([args.oracle, "greedy", args.model, "--ids-file", ids_file, "-n", "1",
                            "--ctx", str(len(ids) + 64)], capture_output=True, check=True)
            print(f"llama.cpp (llama_oracle greedy -n 1, one process, no prompt cache) run {k + 1}: "
                  f"{time.perf_counter() - t0:.3f} s for {len(ids)} prompt tokens")
    with open("/proc/loadavg") as f:
        print("load average at end:", f.read().split()[:3])


if __name__ == "__main__":
    main()
