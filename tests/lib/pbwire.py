"""An independent reader of protobuf's wire format for the tests: kgate's answers are decoded
field by field here, without kgate's codec or any schema, so the checks see the bytes a client
sees.

    python3 tests/lib/pbwire.py envelope FILE     # {"apiVersion", "kind", "raw", ...} as JSON
    python3 tests/lib/pbwire.py watch FILE        # the frames of a watch stream as JSON lines

A message is a dict from field number to the list of its values (ints for varints and fixed
fields, bytes for length-delimited ones); `msg(b)` parses a length-delimited value again."""
import json
import struct
import sys


def varint(b, i):
    shift = value = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("truncated varint")
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return value, i


def msg(b):
    """The fields of message b: {number: [value, ...]} in wire order."""
    out, i = {}, 0
    while i < len(b):
        key, i = varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 1:
            v, i = struct.unpack_from("<Q", b, i)[0], i + 8
        elif wire == 2:
            n, i = varint(b, i)
            if i + n > len(b):
                raise ValueError("length past the end")
            v, i = bytes(b[i:i + n]), i + n
        elif wire == 5:
            v, i = struct.unpack_from("<I", b, i)[0], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.setdefault(number, []).append(v)
    return out


def one(m, number, default=None):
    return m.get(number, [default])[0]


def text(m, number):
    v = one(m, number)
    return None if v is None else v.decode()


def envelope(b):
    """The "k8s\\0" envelope: typeMeta, raw, contentEncoding, contentType."""
    if b[:4] != b"k8s\x00":
        raise ValueError("no k8s envelope magic")
    u = msg(b[4:])
    tm = msg(one(u, 1, b""))
    return {"apiVersion": text(tm, 1), "kind": text(tm, 2), "raw": one(u, 2, b""),
            "contentEncoding": text(u, 3), "contentType": text(u, 4)}


def frames(b):
    """A protobuf watch stream: 4-byte big-endian lengths, each a bare WatchEvent."""
    i, out = 0, []
    while i < len(b):
        if i + 4 > len(b):
            raise ValueError("truncated frame length")
        n = struct.unpack_from(">I", b, i)[0]
        if i + 4 + n > len(b):
            raise ValueError("truncated frame")
        ev = msg(b[i + 4:i + 4 + n])
        raw = one(msg(one(ev, 2, b"")), 1, b"")
        out.append({"type": text(ev, 1), "object": envelope(raw)})
        i += 4 + n
    return out


def printable(v):
    if isinstance(v, bytes):
        return v.hex()
    if isinstance(v, dict):
        return {k: printable(x) for k, x in v.items()}
    return v


if __name__ == "__main__":
    data = open(sys.argv[2], "rb").read()
    if sys.argv[1] == "envelope":
        print(json.dumps(printable(envelope(data))))
    else:
        for f in frames(data):
            print(json.dumps(printable(f)))
