#!/usr/bin/env python3
"""A client through a load balancer while kgate instances restart, for tests/e2e/scaleout_rolling.t.

Usage: scaleout_client.py HOST:PORT CA TOKEN NAMESPACE STOP-FILE

Until STOP-FILE exists: GET loops on one ConfigMap, create loops of ConfigMaps named
c<thread>-<n>, and two watchers of the namespace's ConfigMaps. Every request runs on a
keep-alive connection, as client-go's would. A watch that ends is resumed from the last
resourceVersion it saw (a bookmark's included), as a reflector resumes. After STOP-FILE the
watchers get 20 s to see every object created; then one JSON line reports:

  gets, creates       requests answered 2xx
  failures            requests that failed (exception or status), with the first few reasons
  resumes             watch streams that ended and were resumed, per watcher
  unclean             streams that ended without HTTP's end (a connection cut mid-stream)
  gone                resumes refused (410 or an ERROR event): a gap a client cannot close
  missing, duplicate  created names a watcher did not see as ADDED, or saw twice
"""
import http.client
import json
import os
import ssl
import sys
import threading
import time

HOSTPORT, CA, TOKEN, NS, STOP = sys.argv[1:6]
HOST, PORT = HOSTPORT.rsplit(":", 1)
COLL = f"/api/v1/namespaces/{NS}/configmaps"
CTX = ssl.create_default_context(cafile=CA)
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json",
           "Accept": "application/json"}
lock = threading.Lock()
stats = {"gets": 0, "creates": 0, "failures": 0, "reasons": [], "resumes": [0, 0],
         "unclean": 0, "gone": 0}
created = set()


def stopped():
    return os.path.exists(STOP)


def conn():
    return http.client.HTTPSConnection(HOST, int(PORT), context=CTX, timeout=30)


def count(key, reason=None):
    with lock:
        stats[key] += 1
        if reason is not None and len(stats["reasons"]) < 10:
            stats["reasons"].append(reason)


def request(c, method, path, body=None):
    """One request on connection c (reopened after a close); (status, body) or raises."""
    try:
        c.request(method, path, body=body, headers=HEADERS)
        r = c.getresponse()
        data = r.read()
        if r.will_close:
            c.close()
        return r.status, data
    except Exception:
        c.close()
        raise


def getter():
    c = conn()
    while not stopped():
        try:
            status, data = request(c, "GET", f"{COLL}/anchor")
        except Exception as e:  # noqa: BLE001 - every failure is counted
            count("failures", f"GET: {type(e).__name__}: {e}")
            continue
        if status == 200:
            count("gets")
        else:
            count("failures", f"GET: {status} {data[:200]!r}")


def creator(t):
    c = conn()
    n = 0
    while not stopped():
        name = f"c{t}-{n}"
        n += 1
        body = json.dumps({"apiVersion": "v1", "kind": "ConfigMap",
                           "metadata": {"name": name}, "data": {"k": "v"}})
        try:
            status, data = request(c, "POST", COLL, body)
        except Exception as e:  # noqa: BLE001
            count("failures", f"POST {name}: {type(e).__name__}: {e}")
            continue
        if status == 201:
            count("creates")
            with lock:
                created.add(name)
        else:
            count("failures", f"POST {name}: {status} {data[:200]!r}")


class Watcher:
    def __init__(self, index, rv):
        self.index = index
        self.rv = rv
        self.seen = {}
        self.done = threading.Event()

    def stream(self):
        """One watch stream from self.rv until it ends; False when it cannot be resumed."""
        c = conn()
        c.timeout = 60
        path = f"{COLL}?watch=1&allowWatchBookmarks=true&resourceVersion={self.rv}"
        try:
            c.request("GET", path, headers=HEADERS)
            r = c.getresponse()
            if r.status == 410:
                count("gone")
                return False
            if r.status != 200:
                count("failures", f"WATCH: {r.status} {r.read()[:200]!r}")
                return True
            while True:
                line = r.readline()
                if not line:
                    break
                ev = json.loads(line)
                if ev["type"] == "ERROR":
                    count("gone")
                    return False
                self.rv = ev["object"]["metadata"]["resourceVersion"]
                if ev["type"] == "ADDED":
                    name = ev["object"]["metadata"]["name"]
                    self.seen[name] = self.seen.get(name, 0) + 1
            # http.client reads the chunked body's last chunk before an empty line: a cut
            # connection raises IncompleteRead instead.
        except http.client.IncompleteRead:
            count("unclean")
        except Exception as e:  # noqa: BLE001
            count("failures", f"WATCH: {type(e).__name__}: {e}")
        finally:
            c.close()
        return True

    def run(self):
        while not self.done.is_set():
            if not self.stream():
                return
            if not self.done.is_set():
                with lock:
                    stats["resumes"][self.index] += 1


def main():
    c = conn()
    status, data = request(c, "GET", COLL)
    if status != 200:
        sys.exit(f"initial list: {status} {data[:200]!r}")
    rv = json.loads(data)["metadata"]["resourceVersion"]
    watchers = [Watcher(i, rv) for i in range(2)]
    threads = [threading.Thread(target=w.run, daemon=True) for w in watchers]
    threads += [threading.Thread(target=getter) for _ in range(2)]
    threads += [threading.Thread(target=creator, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    for t in threads[2:]:
        t.join()
    deadline = time.time() + 20
    while time.time() < deadline and any(created - set(w.seen) for w in watchers):
        time.sleep(0.2)
    for w in watchers:
        w.done.set()
    with lock:
        stats["missing"] = [sorted(created - set(w.seen))[:10] for w in watchers]
        stats["duplicate"] = [sorted(n for n, k in w.seen.items() if k > 1)[:10]
                              for w in watchers]
        print(json.dumps(stats), flush=True)


main()
