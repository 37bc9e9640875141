#!/usr/bin/env python3
"""A small HTTPS SubjectAccessReview webhook for the Webhook authorizer scenario.

sar.py DIR CERT KEY: serves POST /authorize and POST /second (two webhooks in one) on
127.0.0.1 (a free port, written to DIR/port once listening); "Authorization: Bearer
sar-secret" is required. It decides by spec.user:
  alice   on /authorize, allowed to get and list pods; no opinion on anything else
  bob     denied everything
  sleepy  on /authorize, answered only after 60 s (longer than kgate waits)
  drowsy  likewise on /second
  boom    a 500
  flaky   a 500 for its first two reviews, then allowed
  granter on /authorize, allowed anything in rbac.authorization.k8s.io (escalate and bind
          included), after 0.2 s (so that kgate has to wait for it)
  others  no opinion
Each review appends "apiVersion user verb resource-or-path groups-key" to DIR/hits (for
/authorize) or DIR/hits-second, where groups-key is the member naming the groups ("group" in
v1beta1, "groups" in v1, "-": none). A review whose resourceAttributes carry selectors also
appends them, as sorted JSON, to DIR/selectors.
"""
import http.server
import json
import os
import ssl
import sys
import threading
import time

STATE, CERT, KEY = sys.argv[1:4]
HITS = {"/authorize": "hits", "/second": "hits-second"}
SLEEPERS = {"/authorize": "sleepy", "/second": "drowsy"}
flaky_lock = threading.Lock()
flaky_seen = [0]


def decide(path, spec):
    user = spec.get("user", "")
    attrs = spec.get("resourceAttributes", {})
    if (user == "alice" and path == "/authorize" and attrs.get("resource") == "pods"
            and attrs.get("verb") in ("get", "list")):
        return {"allowed": True, "reason": "alice may read pods"}
    if user == "bob":
        return {"allowed": False, "denied": True, "reason": "bob is banned"}
    if user == "granter" and path == "/authorize" and \
            attrs.get("group") == "rbac.authorization.k8s.io":
        time.sleep(0.2)
        return {"allowed": True, "reason": "granter manages RBAC"}
    return {"allowed": False, "reason": "not mine to say"}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, doc):
        body = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def record(self, review):
        spec = review.get("spec", {})
        attrs = spec.get("resourceAttributes") or spec.get("nonResourceAttributes") or {}
        what = attrs.get("resource") or attrs.get("path", "")
        key = "groups" if "groups" in spec else "group" if "group" in spec else "-"
        with open(os.path.join(STATE, HITS[self.path]), "a") as f:
            f.write("%s %s %s %s %s\n" % (review.get("apiVersion"), spec.get("user"),
                                          attrs.get("verb"), what, key))
        selectors = {k: attrs[k] for k in ("fieldSelector", "labelSelector") if k in attrs}
        if selectors:
            with open(os.path.join(STATE, "selectors"), "a") as f:
                f.write(json.dumps(selectors, sort_keys=True) + "\n")

    def flaky_fails(self):
        with flaky_lock:
            flaky_seen[0] += 1
            return flaky_seen[0] <= 2

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        review = json.loads(self.rfile.read(length) or b"{}")
        if self.path not in HITS:
            return self.answer(404, {"error": "not found"})
        if self.headers.get("Authorization") != "Bearer sar-secret":
            return self.answer(401, {"error": "who are you"})
        self.record(review)
        user = review.get("spec", {}).get("user")
        if user == SLEEPERS[self.path]:
            time.sleep(60)
        if user == "boom" or (user == "flaky" and self.flaky_fails()):
            return self.answer(500, {"error": "boom"})
        review["status"] = decide(self.path, review.get("spec", {}))
        if user == "flaky":
            review["status"] = {"allowed": True, "reason": "third time lucky"}
        self.answer(200, review)


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    with open(os.path.join(STATE, "port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(os.path.join(STATE, "port.tmp"), os.path.join(STATE, "port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
