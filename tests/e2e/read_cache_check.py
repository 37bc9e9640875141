#!/usr/bin/env python3
"""Property checks of the read cache, driven by tests/e2e/read_cache.t.

Usage: read_cache_check.py MODE NAMESPACE CA CERT KEY ETCD PREFIX PORT...

The namespace must exist; each run should have one of its own (a compaction makes the
revisions of older objects unreadable in etcd).

Modes:
  consistent  A writer creates, changes and deletes ConfigMaps through the first instance while
              readers list and get them through every instance. Each answer must be etcd's
              state at the answer's resourceVersion (compared with etcdctl at that revision),
              and no read of the latest state may see a revision older than one any reader saw
              before it started (linearizable reads; resourceVersion=0 takes any state).
  fresh       A write through one instance is seen at once by a GET and a LIST through another.
Prints one line per failure; the exit status is the number of failures (at most 100).
"""
import base64
import http.client
import json
import os
import random
import ssl
import subprocess
import sys
import threading

MODE, NS, CA, CERT, KEY, ETCD, PREFIX = sys.argv[1:8]
PORTS = [int(p) for p in sys.argv[8:]]
COLL = f"/api/v1/namespaces/{NS}/configmaps"
CTX = ssl.create_default_context(cafile=CA)
CTX.load_cert_chain(CERT, KEY)
failures = []
lock = threading.Lock()


def fail(msg):
    with lock:
        failures.append(msg)
        print(msg, flush=True)


class Client:
    def __init__(self, port):
        self.c = http.client.HTTPSConnection("127.0.0.1", port, context=CTX, timeout=30)

    def call(self, method, path, body=None, ctype="application/json"):
        data = json.dumps(body) if body is not None else None
        self.c.request(method, path, body=data, headers={"Content-Type": ctype})
        r = self.c.getresponse()
        return r.status, json.loads(r.read() or b"{}")


def etcd_state(rev):
    """name -> resourceVersion of the namespace's ConfigMaps in etcd at rev."""
    out = subprocess.run(
        ["etcdctl", "--endpoints", ETCD, "get", "--prefix", f"{PREFIX}/configmaps/{NS}/",
         f"--rev={rev}", "-w", "json"],
        env=dict(os.environ, ETCDCTL_API="3"), capture_output=True, check=True).stdout
    kvs = json.loads(out).get("kvs", [])
    return {base64.b64decode(kv["key"]).decode().rsplit("/", 1)[1]: str(kv["mod_revision"])
            for kv in kvs}


def cm(name, value):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name},
            "data": {"v": value}}


# ---- consistent ---------------------------------------------------------------------------

done = threading.Event()
high = [0]  # the newest revision any answer has shown


def writer(port, ops):
    c = Client(port)
    rnd = random.Random(7)
    for i in range(ops):
        name = f"w{rnd.randrange(12)}"
        what = rnd.randrange(3)
        if what == 0:
            code, _ = c.call("POST", COLL, cm(name, str(i)))
            if code not in (201, 409):
                fail(f"create {name}: {code}")
        elif what == 1:
            code, _ = c.call("PATCH", f"{COLL}/{name}", {"data": {"v": str(i)}},
                             "application/merge-patch+json")
            if code not in (200, 404):
                fail(f"patch {name}: {code}")
        else:
            code, _ = c.call("DELETE", f"{COLL}/{name}")
            if code not in (200, 404):
                fail(f"delete {name}: {code}")
    done.set()


def check_list(c, query):
    with lock:
        floor = high[0]
    code, d = c.call("GET", COLL + query)
    if code != 200:
        fail(f"list{query}: {code}")
        return
    rv = int(d["metadata"]["resourceVersion"])
    # resourceVersion=0 takes any state (an instance's cache may lag another's): only reads of
    # the latest state must not be older than what was seen before they started
    if rv < floor and "resourceVersion=0" not in query:
        fail(f"list{query} at {rv}, older than {floor} seen before it started")
    got = {i["metadata"]["name"]: i["metadata"]["resourceVersion"] for i in d["items"]}
    want = etcd_state(rv)
    if "limit=" in query:  # the first page: etcd's first keys
        want = dict(sorted(want.items(), key=lambda kv: kv[0].encode())[:len(got)])
        if len(got) != 3 and d["metadata"].get("continue"):
            fail(f"list{query} at {rv}: {len(got)} items and a continue token")
    if got != want:
        fail(f"list{query} at {rv}: {sorted(got.items())} != etcd's {sorted(want.items())}")
    with lock:
        high[0] = max(high[0], rv)


def check_get(c, name):
    with lock:
        floor = high[0]
    code, d = c.call("GET", f"{COLL}/{name}")
    if code == 404:
        return
    if code != 200:
        fail(f"get {name}: {code}")
        return
    state = d["metadata"]["resourceVersion"]
    if etcd_state(int(state)).get(name) != state:
        fail(f"get {name}: resourceVersion {state} is not a state etcd had")
    before = etcd_state(floor).get(name) if floor > 0 else None
    if before is not None and int(before) > int(state):
        fail(f"get {name} answered {state}, older than {before} it had at {floor}, seen before")


def reader(port, seed):
    c = Client(port)
    rnd = random.Random(seed)
    n = 0
    while not done.is_set() or n < 5:
        if rnd.randrange(3) == 0:
            check_get(c, f"w{rnd.randrange(12)}")
        else:
            check_list(c, rnd.choice(["", "?resourceVersion=0", "?limit=3"]))
        n += 1


def consistent():
    threads = [threading.Thread(target=writer, args=(PORTS[0], 300))]
    threads += [threading.Thread(target=reader, args=(p, i)) for i, p in enumerate(PORTS * 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


# ---- fresh --------------------------------------------------------------------------------

def fresh():
    for i in range(30):
        w, r = Client(PORTS[i % 2]), Client(PORTS[(i + 1) % 2])
        name = f"f{i}"
        code, d = w.call("POST", COLL, cm(name, "x"))
        if code != 201:
            fail(f"create {name}: {code} {d.get('message')}")
            continue
        rv = d["metadata"]["resourceVersion"]
        code, g = r.call("GET", f"{COLL}/{name}")
        if code != 200 or g["metadata"]["resourceVersion"] != rv:
            fail(f"get {name} through the other instance right after its create: {code}")
        code, l = r.call("GET", COLL)
        names = {x["metadata"]["name"]: x["metadata"]["resourceVersion"] for x in l["items"]}
        if names.get(name) != rv:
            fail(f"list right after the create of {name} at {rv}: {names.get(name)}")
        code, _ = w.call("DELETE", f"{COLL}/{name}")
        code, _ = r.call("GET", f"{COLL}/{name}")
        if code != 404:
            fail(f"get {name} through the other instance right after its delete: {code}")


{"consistent": consistent, "fresh": fresh}[MODE]()
sys.exit(min(len(failures), 100))
