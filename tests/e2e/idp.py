#!/usr/bin/env python3
"""A small HTTPS identity provider and token webhook for the authentication scenarios.

idp.py DIR CERT KEY: serves on 127.0.0.1 (a free port, written to DIR/port once listening)
  GET  /.well-known/openid-configuration  the discovery document of issuer
                                           https://127.0.0.1:<port> (DIR/issuer overrides it)
  GET  /keys                               DIR/jwks.json as it is now
  POST /review                             a TokenReview webhook: DIR/reviews.json maps tokens
                                           to users; "Authorization: Bearer hook-secret" is
                                           required; the token "boom" gets a 500
Every request appends "METHOD PATH" to DIR/hits, and each TokenReview's apiVersion to
DIR/review-versions, so scenarios can tell what was fetched.
"""
import http.server
import json
import os
import ssl
import sys

STATE, CERT, KEY = sys.argv[1:4]


def state_file(name):
    return os.path.join(STATE, name)


def read_json(name, default):
    try:
        with open(state_file(name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return default


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def record(self, name, line):
        with open(state_file(name), "a") as f:
            f.write(line + "\n")

    def answer(self, code, doc):
        body = json.dumps(doc).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def issuer(self):
        try:
            with open(state_file("issuer")) as f:
                return f.read().strip()
        except OSError:
            return "https://127.0.0.1:%d" % self.server.server_address[1]

    def do_GET(self):
        self.record("hits", "GET " + self.path)
        if self.path == "/.well-known/openid-configuration":
            self.answer(200, {"issuer": self.issuer(),
                              "jwks_uri": "https://127.0.0.1:%d/keys" % self.server.server_address[1],
                              "id_token_signing_alg_values_supported": ["RS256"]})
        elif self.path == "/keys":
            self.answer(200, read_json("jwks.json", {"keys": []}))
        else:
            self.answer(404, {"error": "not found"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        review = json.loads(self.rfile.read(length) or b"{}")
        self.record("hits", "POST " + self.path)
        if self.path != "/review":
            return self.answer(404, {"error": "not found"})
        if self.headers.get("Authorization") != "Bearer hook-secret":
            return self.answer(401, {"error": "who are you"})
        self.record("review-versions", review.get("apiVersion", ""))
        token = review.get("spec", {}).get("token", "")
        if token == "boom":
            return self.answer(500, {"error": "boom"})
        user = read_json("reviews.json", {}).get(token)
        status = {"authenticated": True, "user": user} if user else \
            {"authenticated": False, "error": "unknown token"}
        self.answer(200, {"apiVersion": review.get("apiVersion"), "kind": "TokenReview",
                          "status": status})


def main():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    with open(state_file("port.tmp"), "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(state_file("port.tmp"), state_file("port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
