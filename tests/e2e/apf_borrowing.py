#!/usr/bin/env python3
"""Keep a priority level busy and watch how many of its requests execute at once.

usage: apf_borrowing.py URL CA CERT KEY ADMIN_CERT ADMIN_KEY NS CLIENTS SECONDS LEVEL [QUERY]

CLIENTS threads (the CERT's user) each keep a LIST of NS's ConfigMaps in flight for SECONDS
(QUERY, by default limit=50: 50 of them, one seat apiece); meanwhile the admin (exempt) reads
/metrics every 50 ms. Prints one JSON object: the most requests and seats of LEVEL seen
executing at once, the last current_limit_seats of LEVEL, and the requests' status codes.
"""
import http.client
import json
import re
import ssl
import sys
import threading
import time

url, ca, cert, key, acert, akey, ns = sys.argv[1:8]
clients, seconds, level = int(sys.argv[8]), float(sys.argv[9]), sys.argv[10]
query = sys.argv[11] if len(sys.argv) > 11 else "limit=50"
host, port = url.split("//")[1].split(":")


def conn(c, k):
    ctx = ssl.create_default_context(cafile=ca)
    ctx.load_cert_chain(c, k)
    return http.client.HTTPSConnection(host, int(port), context=ctx, timeout=60)


def get(c, path):
    c.request("GET", path)
    r = c.getresponse()
    return r.status, r.read()


def metric(text, name):
    pat = re.compile(r'^%s\{(.*)\} (\S+)$' % re.escape(name))
    total = None
    for line in text.splitlines():
        m = pat.match(line)
        if m and ('priority_level="%s"' % level) in m.group(1):
            total = (total or 0) + float(m.group(2))
    return total


done = threading.Event()
codes, lock = set(), threading.Lock()


def client():
    c = conn(cert, key)
    while not done.is_set():
        status, _ = get(c, "/api/v1/namespaces/%s/configmaps?%s" % (ns, query))
        with lock:
            codes.add(status)


threads = [threading.Thread(target=client) for _ in range(clients)]
for t in threads:
    t.start()
admin = conn(acert, akey)
most, seats, limit, end = 0, 0, None, time.monotonic() + seconds
while time.monotonic() < end:
    _, body = get(admin, "/metrics")
    text = body.decode()
    most = max(most, metric(text, "apiserver_flowcontrol_current_executing_requests") or 0)
    seats = max(seats, metric(text, "apiserver_flowcontrol_current_executing_seats") or 0)
    limit = metric(text, "apiserver_flowcontrol_current_limit_seats")
    time.sleep(0.05)
done.set()
for t in threads:
    t.join()
print(json.dumps({"most_executing": most, "most_seats": seats, "current_limit": limit,
                  "codes": sorted(codes)}))
