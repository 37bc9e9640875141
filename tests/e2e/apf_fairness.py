#!/usr/bin/env python3
"""One user floods kgate with LISTs while another sends small GETs one after another.

usage: apf_fairness.py URL CA FLOODER_CERT FLOODER_KEY VICTIM_TOKEN NS FLOODERS VICTIM_REQS
       apf_fairness.py seed URL CA CERT KEY NS N   (N ConfigMaps of 2 KiB in NS, 8 at a time)

With FLOODERS 0 the victim runs alone. The flooders (threads of a process of their own, so
that they do not hold up the victim's timing) keep a LIST of NS's configmaps each in flight on
a keep-alive connection until the victim is done. Prints one JSON object: the victim's
latencies (p50, p99, max in ms) and status codes, the flooders' count, median latency and
status codes.
"""
import http.client
import json
import multiprocessing as mp
import ssl
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

SEED = sys.argv[1] == "seed"
args = sys.argv[2:] if SEED else sys.argv[1:]
url, ca, fcert, fkey, token, ns = args[:6] if not SEED else args[:4] + [None] + args[4:5]
host, port = url.split("//")[1].split(":")


def conn(cert=None, key=None):
    ctx = ssl.create_default_context(cafile=ca)
    if cert:
        ctx.load_cert_chain(cert, key)
    return http.client.HTTPSConnection(host, int(port), context=ctx, timeout=60)


def timed(c, path, headers):
    t = time.monotonic()
    c.request("GET", path, headers=headers)
    r = c.getresponse()
    r.read()
    return r.status, (time.monotonic() - t) * 1000


def flood(done, started, out):
    got, lock = [], threading.Lock()

    def one():
        c = conn(fcert, fkey)
        while not done.is_set():
            res = timed(c, "/api/v1/namespaces/%s/configmaps" % ns, {})
            with lock:
                got.append(res)
                if len(got) == flooders * 2:
                    started.set()

    threads = [threading.Thread(target=one) for _ in range(flooders)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(got)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else 0


def seed(n):
    def make(i):
        c = conn(fcert, fkey)
        body = json.dumps({"metadata": {"name": "cm-%d" % i}, "data": {"v": "x" * 2048}})
        c.request("POST", "/api/v1/namespaces/%s/configmaps" % ns, body,
                  {"Content-Type": "application/json"})
        return c.getresponse().status

    with ThreadPoolExecutor(8) as ex:
        codes = set(ex.map(make, range(n)))
    sys.exit(0 if codes == {201} else 1)


if __name__ == "__main__":
    if SEED:
        seed(int(args[5]))
    flooders, victim_reqs = int(args[6]), int(args[7])
    done, started, out = mp.Event(), mp.Event(), mp.Queue()
    proc = None
    if flooders:
        proc = mp.Process(target=flood, args=(done, started, out))
        proc.start()
        started.wait(60)  # the flood is under way before the victim starts
    v = conn()
    auth = {"Authorization": "Bearer " + token}
    timed(v, "/api/v1/namespaces/default", auth)  # the TLS handshake, not measured
    victim = [timed(v, "/api/v1/namespaces/default", auth) for _ in range(victim_reqs)]
    done.set()
    flooded = out.get() if proc else []
    if proc:
        proc.join()
    vms = [ms for _, ms in victim]
    fms = [ms for _, ms in flooded]
    print(json.dumps({
        "victim_p50": round(pct(vms, 0.5), 2), "victim_p99": round(pct(vms, 0.99), 2),
        "victim_max": round(max(vms), 2), "victim_codes": sorted(set(c for c, _ in victim)),
        "flood_n": len(flooded), "flood_p50": round(pct(fms, 0.5), 2),
        "flood_codes": sorted(set(c for c, _ in flooded)),
    }))
