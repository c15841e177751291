"""Drives `abidoc lsp` over stdio like an editor: initialize, didOpen a 20 MB notebook (as text),
wait for publishDiagnostics, hover ×N on three kinds of positions, didChange ×K and wait for the
new diagnostics; reads the server's RSS from /proc. Latencies are client-side wall clock."""

import json
import os
import queue
import random
import statistics
import subprocess
import threading
import time


class Client:
    def __init__(self, cmd, settings):
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.settings = settings
        self.q = queue.Queue()
        self.next_id = 1
        self.t = threading.Thread(target=self._reader, daemon=True)
        self.t.start()

    def _reader(self):
        f = self.p.stdout
        while True:
            headers = {}
            while True:
                line = f.readline()
                if not line:
                    self.q.put(None)
                    return
                line = line.strip()
                if not line:
                    break
                k, v = line.decode().split(":", 1)
                headers[k.lower()] = v.strip()
            body = f.read(int(headers["content-length"]))
            msg = json.loads(body)
            if "method" in msg and "id" in msg:
                # A request from the server: answer at once (configuration, registration, progress).
                if msg["method"] == "workspace/configuration":
                    result = [self.settings for _ in msg.get("params", {}).get("items", [None])]
                else:
                    result = None
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                continue
            self.q.put((time.perf_counter(), msg))

    def send(self, msg):
        data = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(data) + data)
        self.p.stdin.flush()

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        t0 = time.perf_counter()
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            item = self.q.get(timeout=600)
            if item is None:
                raise RuntimeError("server exited")
            t, msg = item
            if msg.get("id") == i:
                return t - t0, msg

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri, version, t0, timeout=600):
        while True:
            item = self.q.get(timeout=timeout)
            if item is None:
                raise RuntimeError("server exited")
            t, msg = item
            if msg.get("method") == "textDocument/publishDiagnostics":
                p = msg["params"]
                if p["uri"] == uri and (version is None or p.get("version") == version):
                    return t - t0, p["diagnostics"]

    def rss(self):
        out = {}
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith(("VmRSS", "VmHWM")):
                    k, v = line.split(":")
                    out[k] = int(v.split()[0]) / 1024
        return out

    def rss_split(self):
        """Resident memory by kind (MiB) from smaps_rollup: what VmRSS is made of."""
        out = {}
        try:
            with open(f"/proc/{self.p.pid}/smaps_rollup") as f:
                for line in f:
                    k, _, v = line.partition(":")
                    if k in ("Rss", "Anonymous", "Shared_Clean", "Private_Clean", "Private_Dirty"):
                        out[k] = int(v.split()[0]) / 1024
        except OSError:
            pass
        if "Rss" in out and "Anonymous" in out:
            out["file_backed"] = out["Rss"] - out["Anonymous"]
        return out


def corpus_texts(root):
    d = os.path.join(root, "tests", "fixtures", "corpus")
    return [open(os.path.join(d, f), errors="replace").read() for f in sorted(os.listdir(d)) if f.endswith(".txt")]


def make_notebook(path, size, root):
    if os.path.isfile(path) and os.path.getsize(path) >= size:
        return
    import bench  # noise generator

    rng = random.Random(20)
    texts = corpus_texts(root)
    cells = []
    total = 0
    i = 0
    while total < size:
        src = ["import torch\n", "model = AutoModel.from_pretrained('state-spaces/mamba-130m')\n", f"out = train(step={i})\n"]
        outputs = [{"output_type": "stream", "name": "stderr", "text": [l + "\n" for l in bench.noise_lines(rng, 400)]}]
        if i % 5 == 0:
            t = texts[i % len(texts)]
            outputs.append({"output_type": "stream", "name": "stderr", "text": t.splitlines(True)})
        cell = {"cell_type": "code", "execution_count": i + 1, "id": "c%05d" % i, "metadata": {}, "source": src, "outputs": outputs}
        total += len(json.dumps(cell, indent=1))
        cells.append(cell)
        i += 1
    nb = {"cells": cells, "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    with open(path, "w") as f:
        json.dump(nb, f, indent=1)


def pct(xs, p):
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def summary(xs):
    ms = [x * 1000 for x in xs]
    return {"n": len(ms), "p50_ms": pct(ms, 50), "p99_ms": pct(ms, 99), "max_ms": max(ms), "mean_ms": statistics.mean(ms)}


def run(abidoc, sp, out, quick):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    size = int(os.environ.get("BENCH_NOTEBOOK_BYTES", 20 * 10**6))
    nb_path = os.path.join(os.path.dirname(out), "data", "big.ipynb")
    make_notebook(nb_path, size, root)
    text = open(nb_path).read()
    lines = text.split("\n")
    uri = "file://" + nb_path
    settings = {"sitePackages": [sp]}
    c = Client([abidoc, "lsp"], settings)
    res = {"notebook_bytes": len(text.encode()), "notebook_lines": len(lines), "settings": settings}
    dt, _ = c.request("initialize", {"processId": os.getpid(), "rootUri": None, "capabilities": {}, "initializationOptions": settings})
    c.notify("initialized", {})
    res["rss_idle_mib"] = c.rss().get("VmRSS")
    t0 = time.perf_counter()
    c.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "json", "version": 1, "text": text}})
    dt, diags = c.wait_diagnostics(uri, 1, t0)
    res["open_to_diagnostics_ms"] = dt * 1000
    res["diagnostics"] = len(diags)
    time.sleep(0.5)  # the server gives back what reading the document freed
    res["rss_after_open_mib"] = c.rss().get("VmRSS")
    res["rss_after_open_split_mib"] = c.rss_split()
    print(f"  didOpen -> diagnostics {dt*1000:.0f} ms, rss {res['rss_after_open_mib']:.0f} MiB", flush=True)

    rng = random.Random(30)
    sym_pos, plain_pos = [], []
    for ln, line in enumerate(lines):
        j = line.find("_ZN")
        if j >= 0:
            sym_pos.append((ln, j + 3))
        elif "loss" in line and len(plain_pos) < 5000:
            plain_pos.append((ln, line.find("loss") + 1))
    diag_pos = [(d["range"]["start"]["line"], d["range"]["start"]["character"] + 1) for d in diags]
    n = 30 if quick else 200
    budget = float(os.environ.get("BENCH_HOVER_BUDGET_S", 90))
    kinds = {"mangled_symbol": sym_pos, "plain_text": plain_pos, "diagnosed_range": diag_pos}
    res["hover"] = {}
    for kind, positions in kinds.items():
        if not positions:
            continue
        lat, empty = [], 0
        t_kind = time.perf_counter()
        for k in range(n + 1):
            # A slow kind stops after a time budget (at least 10 samples) so the run ends.
            if k > 10 and time.perf_counter() - t_kind > budget:
                break
            ln, ch = rng.choice(positions)
            dt, msg = c.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": ln, "character": ch}})
            if k == 0:
                first = dt  # the first hover may load the environment's exports
                continue
            lat.append(dt)
            if not msg.get("result"):
                empty += 1
        res["hover"][kind] = dict(summary(lat), first_ms=first * 1000, empty_results=empty, candidates=len(positions))
        print(f"  hover {kind:16s} p50 {res['hover'][kind]['p50_ms']:.2f} ms p99 {res['hover'][kind]['p99_ms']:.2f} ms (first {first*1000:.1f} ms)", flush=True)

    # Edits: insert a character in a noise line, wait for the diagnostics of that version (the
    # issue's "diagnostics < 50 ms after an edit", p99 over enough edits for p99 to mean something).
    lat = []
    version = 1
    for k in range(int(os.environ.get("BENCH_EDITS", 20 if quick else 100))):
        version += 1
        ln, ch = rng.choice(plain_pos)
        t0 = time.perf_counter()
        c.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"range": {"start": {"line": ln, "character": ch}, "end": {"line": ln, "character": ch}}, "text": "x"}]})
        dt, _ = c.wait_diagnostics(uri, version, t0)
        lat.append(dt)
    # Leading-edge debounce: a single edit is diagnosed at once (DEBOUNCE only spaces bursts).
    res["change_to_diagnostics"] = summary(lat)
    print(f"  didChange -> diagnostics p50 {res['change_to_diagnostics']['p50_ms']:.1f} ms p99 {res['change_to_diagnostics']['p99_ms']:.1f} ms", flush=True)
    st = c.rss()
    res["rss_end_mib"] = st.get("VmRSS")
    res["rss_peak_mib"] = st.get("VmHWM")
    res["rss_end_split_mib"] = c.rss_split()
    try:
        c.request("shutdown", None)
        c.notify("exit", None)
        c.p.wait(timeout=10)
    except Exception:
        c.p.kill()
    return res


if __name__ == "__main__":
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    abidoc = os.environ.get("ABIDOC", os.path.join(os.path.dirname(here), "target", "release", "abidoc"))
    sp = os.path.join(here, "data", "venv", "lib", "python3.11", "site-packages")
    r = run(abidoc, sp, os.path.join(here, "out"), os.environ.get("BENCH_QUICK") == "1")
    print(json.dumps(r, indent=1))
