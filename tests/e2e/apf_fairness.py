#!/usr/bin/env python3
"""One user floods kgate with LISTs while another sends small GETs one after another.

usage: apf_fairness.py URL CA FLOODER_CERT FLOODER_KEY VICTIM_TOKEN NS FLOODERS VICTIM_REQS

With FLOODERS 0 the victim runs alone. The flooders keep a LIST of NS's configmaps each in
flight (one keep-alive connection each) until the victim is done. Prints one JSON object:
the victim's latencies (p50, p99, max in ms) and status codes, the flooders' count, median
latency and status codes.
"""
import http.client
import json
import ssl
import sys
import threading
import time

url, ca, fcert, fkey, token, ns = sys.argv[1:7]
flooders, victim_reqs = int(sys.argv[7]), int(sys.argv[8])
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


done = threading.Event()
flood = []  # (code, ms)
lock = threading.Lock()


def flooder():
    c = conn(fcert, fkey)
    while not done.is_set():
        code, ms = timed(c, "/api/v1/namespaces/%s/configmaps" % ns, {})
        with lock:
            flood.append((code, ms))


threads = [threading.Thread(target=flooder) for _ in range(flooders)]
for t in threads:
    t.start()
if flooders:
    # the flood is under way before the victim starts
    while len(flood) < flooders * 2:
        time.sleep(0.01)
v = conn()
victim = [timed(v, "/api/v1/namespaces/default", {"Authorization": "Bearer " + token})
          for _ in range(victim_reqs)]
done.set()
for t in threads:
    t.join()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))] if xs else 0


vms = [ms for _, ms in victim]
fms = [ms for _, ms in flood]
print(json.dumps({
    "victim_p50": round(pct(vms, 0.5), 2), "victim_p99": round(pct(vms, 0.99), 2),
    "victim_max": round(max(vms), 2), "victim_codes": sorted(set(c for c, _ in victim)),
    "flood_n": len(flood), "flood_p50": round(pct(fms, 0.5), 2),
    "flood_codes": sorted(set(c for c, _ in flood)),
}))
