"""A KMS v2 plugin for the tests: kube's v2.KeyManagementService (Status, Encrypt, Decrypt) on a
unix socket, with python3-grpcio's generic handlers and the messages written and read field by
field (tests/lib/pbwire.py), so no generated code is involved.

    python3 tests/e2e/kms_plugin.py SOCKET DIR          # serve until killed
    python3 tests/e2e/kms_plugin.py --decrypt SOCKET KEY_ID CIPHERTEXT_FILE [ANN_KEY=HEX...]
                                                       # a client's Decrypt: the plaintext, hex

DIR holds the plugin's state, read at each call so that a test can change it: `key` (32 random
bytes: the master key), `key_id` (the current key ID, text; changing it is a rotation), and
`healthz` (optional: what Status reports instead of "ok"). Each key ID's KEK is SHA-256 of the
master key and the key ID; Encrypt seals the plaintext with AES-256-GCM under the current one
(a random 12-byte nonce first, the key ID as additional data) and adds one annotation; Decrypt
opens with the KEK of the key ID it is given. Every call is appended to DIR/calls ("Status",
"Encrypt <key id>", "Decrypt <key id>")."""
import hashlib
import os
import sys
from concurrent import futures

import grpc
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import pbwire  # noqa: E402

SERVICE = "v2.KeyManagementService"
ANNOTATION = "kek.kms.kgate.test"


def put_varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, value):
    """A length-delimited field (strings, bytes and messages); empty values are left out."""
    if isinstance(value, str):
        value = value.encode()
    if not value:
        return b""
    return put_varint(number << 3 | 2) + put_varint(len(value)) + value


def entry(key, value):
    return field(1, key) + field(2, value)


class Plugin:
    def __init__(self, state):
        self.state = state

    def read(self, name, default=None):
        try:
            with open(os.path.join(self.state, name), "rb") as f:
                return f.read().strip()
        except FileNotFoundError:
            return default

    def log(self, line):
        with open(os.path.join(self.state, "calls"), "a") as f:
            f.write(line + "\n")

    def kek(self, key_id):
        return hashlib.sha256(self.read("key") + key_id.encode()).digest()

    def status(self, request, context):
        self.log("Status")
        healthz = self.read("healthz", b"ok").decode()
        key_id = self.read("key_id").decode()
        return field(1, "v2") + field(2, healthz) + field(3, key_id)

    def encrypt(self, request, context):
        m = pbwire.msg(request)
        key_id = self.read("key_id").decode()
        self.log("Encrypt " + key_id)
        nonce = os.urandom(12)
        sealed = nonce + AESGCM(self.kek(key_id)).encrypt(nonce, pbwire.one(m, 1, b""), key_id.encode())
        return field(1, sealed) + field(2, key_id) + field(3, entry(ANNOTATION, b"sha256-v1"))

    def decrypt(self, request, context):
        m = pbwire.msg(request)
        key_id = pbwire.one(m, 3, b"").decode()
        self.log("Decrypt " + key_id)
        data = pbwire.one(m, 1, b"")
        try:
            plain = AESGCM(self.kek(key_id)).decrypt(data[:12], data[12:], key_id.encode())
        except Exception:
            context.abort(grpc.StatusCode.INVALID_ARGUMENT, "cannot decrypt with key " + key_id)
        return field(1, plain)


def serve(sock, state):
    plugin = Plugin(state)
    raw = dict(request_deserializer=None, response_serializer=None)
    handler = grpc.method_handlers_generic_handler(SERVICE, {
        "Status": grpc.unary_unary_rpc_method_handler(plugin.status, **raw),
        "Encrypt": grpc.unary_unary_rpc_method_handler(plugin.encrypt, **raw),
        "Decrypt": grpc.unary_unary_rpc_method_handler(plugin.decrypt, **raw),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    if os.path.exists(sock):
        os.unlink(sock)
    server.add_insecure_port("unix://" + sock)
    server.start()
    server.wait_for_termination()


def decrypt(sock, key_id, path, annotations):
    request = field(1, open(path, "rb").read()) + field(2, "test") + field(3, key_id)
    for a in annotations:
        k, v = a.split("=", 1)
        request += field(4, entry(k, bytes.fromhex(v)))
    with grpc.insecure_channel("unix://" + sock) as ch:
        call = ch.unary_unary("/%s/Decrypt" % SERVICE)
        answer = call(request, timeout=5)
    print(pbwire.one(pbwire.msg(answer), 1, b"").hex())


if __name__ == "__main__":
    if sys.argv[1] == "--decrypt":
        decrypt(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
    else:
        serve(sys.argv[1], sys.argv[2])
