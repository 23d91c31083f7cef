#!/usr/bin/env python3
"""snapdoc-server load-and-abuse run (issue 39): starts the server on a loopback port and attacks
it as a hostile client would, printing PASS/FAIL per case with the server's RSS and open fds after
it. Loopback only; every loop is bounded in count and time. Python standard library only.

  bench/server/server_abuse.py --server build/app/snapdoc-server [--model resources/models/snapdoc-demo.gguf]

Cases: slow heads (slowloris) while /health is probed, header-line and header-size floods,
a million header lines, Range floods, too many connections from one address, a burst while the
server is stopped (listen backlog), 16 concurrent clients with different documents (each answer
must equal the same request answered alone), clients that disconnect mid-stream, per-key
document isolation (two --api-key values), a cross-origin simple request and a foreign Host.
Exit status 0 when every case passes.
"""
import argparse, http.client, json, os, signal, socket, subprocess, sys, threading, time

KEY_A, KEY_B = "abuse-key-a", "abuse-key-b"


class Server:
    def __init__(self, binary, model, extra, keys=True):
        self.binary, self.model = binary, model
        cmd = [binary, "-m", model, "--port", "0", "--no-cache", "--log-level", "warn"] + extra
        if keys:
            cmd += ["--api-key", KEY_A, "--api-key", KEY_B]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.port = int(self.p.stdout.readline().rsplit(":", 1)[1])
        for _ in range(600):  # 60 s
            if self.status("GET", "/health", timeout=2) == 200:
                return
            time.sleep(0.1)
        raise SystemExit("the server did not come up")

    def request(self, method, path, body=None, headers=None, key=KEY_A, timeout=60):
        h = {"Content-Type": "application/json", **(headers or {})}
        if key:
            h["Authorization"] = "Bearer " + key
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            c.request(method, path, body=None if body is None else (body if isinstance(body, (str, bytes)) else json.dumps(body)), headers=h)
            r = c.getresponse()
            return r.status, r.read(), dict(r.getheaders())
        except (OSError, http.client.HTTPException):
            return 0, b"", {}
        finally:
            c.close()

    def status(self, *a, **k):
        return self.request(*a, **k)[0]

    def resources(self):
        rss = 0
        try:
            with open(f"/proc/{self.p.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        rss = int(line.split()[1]) // 1024
            fds = len(os.listdir(f"/proc/{self.p.pid}/fd"))
        except OSError:
            return "server gone"
        return f"rss {rss} MiB, fds {fds}"

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            return -1


def raw(port, data=b"", source=None, timeout=10):
    s = socket.socket()
    if source:
        s.bind((source, 0))
    s.settimeout(timeout)
    s.connect(("127.0.0.1", port))
    if data:
        s.sendall(data)
    return s


def read_status(s, seconds=10):
    s.settimeout(seconds)
    out = b""
    try:
        while b"\r\n" not in out and len(out) < 65536:
            chunk = s.recv(4096)
            if not chunk:
                break
            out += chunk
    except OSError:
        pass
    return int(out.split()[1]) if out.startswith(b"HTTP/1.") else 0


def case_slowloris(srv):
    socks = [raw(srv.port, b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ") for _ in range(40)]
    stop = threading.Event()

    def drip():
        for _ in range(30):
            if stop.wait(0.5):
                return
            for s in socks:
                try:
                    s.send(b"x")
                except OSError:
                    pass
    t = threading.Thread(target=drip)
    t.start()
    time.sleep(1)
    ok = all(srv.status("GET", "/health", timeout=3) == 200 for _ in range(5))
    stop.set()
    t.join()
    for s in socks:
        s.close()
    return ok, "40 slow heads; /health answered" if ok else "/health stalled"


def case_header_lines(srv):
    head = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(500)) + b"\r\n"
    st = read_status(raw(srv.port, head))
    return st == 431, f"500 header lines -> {st}"


def case_header_size(srv):
    head = b"GET /health HTTP/1.1\r\n" + b"".join(b"X-%d: %s\r\n" % (i, b"b" * 4000) for i in range(40)) + b"\r\n"
    try:
        st = read_status(raw(srv.port, head))
    except OSError:
        st = 0
    return st == 431, f"160 KB head -> {st}"


def case_million_lines(srv):
    s = raw(srv.port, b"GET /health HTTP/1.1\r\n")
    chunk = b"X-Flood: 1\r\n" * 10000
    sent = 0
    try:
        while sent < 100:
            s.sendall(chunk)
            sent += 1
    except OSError:
        pass
    s.close()
    alive = srv.status("GET", "/health") == 200
    return sent < 100 and alive, f"the server stopped reading after {sent * 10000} lines or fewer"


def case_range_flood(srv):
    body = {"content": " ".join(f"word{i}" for i in range(20000))}
    st, plain, _ = srv.request("POST", "/tokenize", body)
    # As many ranges as fit httplib's 8 KiB header line, then more than fit (refused as a bad line).
    st2, ranged, _ = srv.request("POST", "/tokenize", body, {"Range": "bytes=" + ",".join(f"{i}-{i}" for i in range(900))})
    st3, _, _ = srv.request("POST", "/tokenize", body, {"Range": "bytes=" + ",".join(f"{i}-{i}" for i in range(2500))})
    ok = st == 200 and st2 == 200 and plain == ranged and st3 in (200, 400) and srv.status("GET", "/health") == 200
    return ok, f"900 ranges -> {st2}, {len(ranged)} bytes (plain {len(plain)}); 2500 ranges -> {st3}"


def case_connections_per_address(srv):
    socks = [raw(srv.port, source="127.0.0.3") for _ in range(64)]
    time.sleep(0.3)
    st = read_status(raw(srv.port, source="127.0.0.3"))
    others = srv.status("GET", "/health")
    for s in socks:
        s.close()
    return st == 503 and others == 200, f"65th connection from one address -> {st}; another address -> {others}"


def case_backlog(srv):
    os.kill(srv.p.pid, signal.SIGSTOP)
    socks = []
    for _ in range(64):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", srv.port))
        socks.append(s)
    time.sleep(0.5)
    done = sum(1 for s in socks if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0 and _writable(s))
    os.kill(srv.p.pid, signal.SIGCONT)
    for s in socks:
        s.close()
    return done == 64, f"{done} of 64 handshakes completed while the server was stopped"


def _writable(s):
    import select
    return bool(select.select([], [s], [], 0)[1])


def doc(i):
    return (f"Report {i}. " + "The weather was mild and the trains ran on time. " * 40 +
            f"The batch number for the office {i} is {4000 + i}.")


def ask(srv, i, key=KEY_A):
    body = {"messages": [{"role": "user", "content": doc(i) + f"\n\nQuestion: What is the batch number for the office {i}?"}],
            "max_tokens": 12, "temperature": 0}
    st, raw_body, _ = srv.request("POST", "/v1/chat/completions", body, key=key, timeout=300)
    try:
        return st, json.loads(raw_body)["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError):
        return st, None


def case_concurrent(srv):
    alone = {i: ask(srv, i)[1] for i in range(16)}
    together = {}

    def run(i):
        together[i] = ask(srv, i)[1]
    ts = [threading.Thread(target=run, args=(i,)) for i in range(16)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    same = sum(1 for i in range(16) if alone[i] is not None and alone[i] == together.get(i))
    return same == 16, f"{same} of 16 concurrent answers equal the same request alone"


def case_disconnects(srv):
    body = json.dumps({"messages": [{"role": "user", "content": "Tell me a story."}], "max_tokens": 400,
                       "stream": True, "ignore_eos": True}).encode()
    for _ in range(8):
        s = raw(srv.port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " +
                KEY_A.encode() + b"\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
        s.recv(256)
        s.close()
    for _ in range(100):  # the engine goes idle once the abandoned generations stop
        st, b, _ = srv.request("GET", "/props")
        if st == 200 and not json.loads(b)["queue"]["busy"]:
            break
        time.sleep(0.1)
    ok = srv.status("GET", "/health") == 200
    return ok, "8 streams abandoned; server idle and healthy" if ok else "unhealthy after disconnects"


def case_isolation(srv):
    st, b, _ = srv.request("POST", "/v1/documents", {"text": doc(99), "name": "secret.txt"}, key=KEY_A)
    if st not in (200, 201, 202):
        return False, f"upload -> {st} {b[:200]!r}"
    doc_id = json.loads(b)["id"]
    listed = [d["id"] for d in json.loads(srv.request("GET", "/v1/documents", key=KEY_B)[1]).get("data", [])]
    get_b = srv.status("GET", f"/v1/documents/{doc_id}", key=KEY_B)
    del_b = srv.status("DELETE", f"/v1/documents/{doc_id}", key=KEY_B)
    get_a = srv.status("GET", f"/v1/documents/{doc_id}", key=KEY_A)
    no_key = srv.status("GET", "/v1/documents", key=None)
    ok = doc_id not in listed and get_b == 404 and del_b == 404 and get_a == 200 and no_key == 401
    return ok, f"B lists it: {doc_id in listed}; B get {get_b}, delete {del_b}; A get {get_a}; no key {no_key}"


def case_browser(srv):
    # With keys the key is what protects a route; a cross-origin simple request is refused anyway.
    origin = srv.status("POST", "/v1/documents", json.dumps({"text": "x"}),
                        headers={"Origin": "http://attacker.example", "Content-Type": "text/plain"})
    # Without a key the Host names a page could rebind to 127.0.0.1 are refused (another server).
    keyless = Server(srv.binary, srv.model, [], keys=False)
    host = keyless.status("GET", "/v1/models", headers={"Host": "attacker.example"}, key=None)
    local = keyless.status("GET", "/v1/models", headers={"Host": "localhost"}, key=None)
    keyless.stop()
    ok = origin == 403 and host in (403, 421) and local == 200
    return ok, f"cross-origin text/plain POST -> {origin}; keyless: foreign Host -> {host}, localhost -> {local}"


CASES = [case_slowloris, case_header_lines, case_header_size, case_million_lines, case_range_flood,
         case_connections_per_address, case_backlog, case_concurrent, case_disconnects, case_isolation, case_browser]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--server", required=True)
    ap.add_argument("--model", default=os.path.join(os.path.dirname(__file__), "../../resources/models/snapdoc-demo.gguf"))
    ap.add_argument("--only", help="run the cases whose name contains this")
    a = ap.parse_args()
    srv = Server(a.server, a.model, ["--head-timeout", "5", "--queue", "32"])
    print(f"snapdoc-server pid {srv.p.pid} on port {srv.port}; {srv.resources()}")
    failed = 0
    for case in CASES:
        if a.only and a.only not in case.__name__:
            continue
        try:
            ok, detail = case(srv)
        except Exception as e:  # a case that raises has failed; the run goes on
            ok, detail = False, f"{type(e).__name__}: {e}"
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'}  {case.__name__[5:]:<26} {detail}  [{srv.resources()}]", flush=True)
    rc = srv.stop()
    print(f"SIGTERM -> exit {rc}")
    failed += rc != 0
    print("all cases passed" if failed == 0 else f"{failed} case(s) failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
