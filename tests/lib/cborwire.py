"""A small reader and writer of CBOR (RFC 8949) for the tests, independent of kgate's codec:
enough for the JSON-shaped documents kube exchanges (maps, arrays, byte and text strings,
integers, floats, booleans, null, tags).

    decode(b) -> (value, rest)   one data item; a tag becomes Tag(number, value)
    encode(v) -> bytes           dicts, lists, str (as text), bytes, int, float, bool, None
"""
import struct


class Tag:
    def __init__(self, number, value):
        self.number, self.value = number, value

    def __repr__(self):
        return "Tag(%d, %r)" % (self.number, self.value)


def _head(b, i):
    ib = b[i]
    major, info = ib >> 5, ib & 31
    i += 1
    if info < 24:
        return major, info, i
    n = {24: 1, 25: 2, 26: 4, 27: 8}.get(info)
    if n is None:
        raise ValueError("indefinite or reserved length")
    return major, int.from_bytes(b[i:i + n], "big"), i + n


def _item(b, i):
    ib = b[i]
    if ib >> 5 == 7:
        info = ib & 31
        if info == 20:
            return False, i + 1
        if info == 21:
            return True, i + 1
        if info == 22:
            return None, i + 1
        fmt = {25: ">e", 26: ">f", 27: ">d"}[info]
        n = struct.calcsize(fmt)
        return struct.unpack(fmt, b[i + 1:i + 1 + n])[0], i + 1 + n
    major, arg, i = _head(b, i)
    if major == 0:
        return arg, i
    if major == 1:
        return -1 - arg, i
    if major == 2:
        return bytes(b[i:i + arg]), i + arg
    if major == 3:
        return b[i:i + arg].decode(), i + arg
    if major == 4:
        out = []
        for _ in range(arg):
            v, i = _item(b, i)
            out.append(v)
        return out, i
    if major == 5:
        out = {}
        for _ in range(arg):
            k, i = _item(b, i)
            v, i = _item(b, i)
            out[k.decode() if isinstance(k, bytes) else k] = v
        return out, i
    v, i = _item(b, i)
    return Tag(arg, v), i


def decode(b):
    return _item(b, 0)


def plain(v):
    """v with byte strings as text and tags dropped (the self-described tag, tag 22's bytes
    kept as bytes), to compare with JSON."""
    if isinstance(v, Tag):
        return v.value if v.number == 22 else plain(v.value)
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def _enc_head(major, n):
    if n < 24:
        return bytes([major << 5 | n])
    for info, size in ((24, 1), (25, 2), (26, 4), (27, 8)):
        if n < 1 << (8 * size):
            return bytes([major << 5 | info]) + n.to_bytes(size, "big")
    raise ValueError("too large")


def encode(v):
    if v is None:
        return b"\xf6"
    if v is True:
        return b"\xf5"
    if v is False:
        return b"\xf4"
    if isinstance(v, int):
        return _enc_head(0, v) if v >= 0 else _enc_head(1, -1 - v)
    if isinstance(v, float):
        return b"\xfb" + struct.pack(">d", v)
    if isinstance(v, str):
        data = v.encode()
        return _enc_head(3, len(data)) + data
    if isinstance(v, bytes):
        return _enc_head(2, len(v)) + v
    if isinstance(v, list):
        return _enc_head(4, len(v)) + b"".join(encode(x) for x in v)
    if isinstance(v, dict):
        return _enc_head(5, len(v)) + b"".join(encode(k) + encode(x) for k, x in v.items())
    raise TypeError(type(v))
