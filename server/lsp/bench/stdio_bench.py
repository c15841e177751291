#!/usr/bin/env python3
"""Drives `abidoc lsp` over stdio on a ~20 MB notebook opened as text and prints latencies:
hover on the mangled symbol (p50/p99) and diagnostics after an edit (p50/p99, the 200 ms debounce
subtracted). Usage: stdio_bench.py [ABIDOC_BIN] [NOTEBOOK]"""
import json, os, subprocess, sys, time

root = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "target/release/abidoc")
source = sys.argv[2] if len(sys.argv) > 2 else os.path.join(root, "examples/granite-lora-training.ipynb")
DEBOUNCE = 0.200
MANGLED = "_ZN3c104cuda29c10_cuda_check_implementationEiPKcS2_ib"

nb = json.load(open(source))
filler = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["print('x')\n"],
          "outputs": [{"output_type": "stream", "name": "stdout", "text": ["step %d loss 0.1234\n" % i for i in range(2000)]}]}
while len(json.dumps(nb, indent=1)) < 20_000_000:
    nb["cells"].insert(0, filler)
raw = json.dumps(nb, indent=1) + "\n"
lines = raw.split("\n")
sym_line = next(i for i, l in enumerate(lines) if MANGLED in l)
sym_col = lines[sym_line].index(MANGLED) + 5

proc = subprocess.Popen([binary, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
next_id = [0]

def send(msg):
    body = json.dumps(msg).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    proc.stdin.flush()

def recv():
    length = None
    while True:
        line = proc.stdout.readline()
        if line in (b"\r\n", b"\n"):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(proc.stdout.read(length))

def request(method, params):
    next_id[0] += 1
    send({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params})
    while True:
        m = recv()
        if m.get("id") == next_id[0] and "method" not in m:
            return m

def wait_diagnostics(version):
    while True:
        m = recv()
        if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version:
            return m

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]

uri = "file:///bench/big.ipynb"
request("initialize", {"processId": None, "rootUri": None, "capabilities": {}, "initializationOptions": {"useEnvironment": False}})
send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
t = time.perf_counter()
send({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": raw}}})
wait_diagnostics(1)
print(f"notebook {len(raw) / 1e6:.1f} MB; didOpen -> diagnostics {1000 * (time.perf_counter() - t):.0f} ms")

hovers = []
for _ in range(100):
    t = time.perf_counter()
    r = request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": sym_line, "character": sym_col}})
    hovers.append(1000 * (time.perf_counter() - t))
assert r.get("result"), r
edits = []
for version in range(2, 22):
    t = time.perf_counter()
    send({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": uri, "version": version},
          "contentChanges": [{"range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 0}}, "text": " "}]}})
    wait_diagnostics(version)
    edits.append(1000 * (time.perf_counter() - t - DEBOUNCE))
print(f"hover: p50 {pct(hovers, 50):.1f} ms, p99 {pct(hovers, 99):.1f} ms (100 requests)")
print(f"diagnostics after an edit (debounce subtracted): p50 {pct(edits, 50):.1f} ms, p99 {pct(edits, 99):.1f} ms (20 edits)")
request("shutdown", None)
send({"jsonrpc": "2.0", "method": "exit"})
try:
    status = open(f"/proc/{proc.pid}/status").read()
    print([l for l in status.splitlines() if l.startswith("VmHWM")][0])
except OSError:
    pass
proc.wait(timeout=10)
