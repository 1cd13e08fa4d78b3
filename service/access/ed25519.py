"""Ed25519 signature checking (RFC 8032, section 5.1.7), for Telegram's `signature` field
of a Mini App's initData: the project has no crypto library and needs only to check,
never to sign with a secret key of its own, and a check costs a few milliseconds here.

Only public data goes through it (Telegram's public key, the signed text, the signature),
so nothing here needs to run in constant time."""

from __future__ import annotations

import hashlib

P = 2**255 - 19  # the field's prime
L = 2**252 + 27742317777372353535851937790883648493  # the group's order
D = -121665 * pow(121666, P - 2, P) % P  # the curve's constant d
SQRT_M1 = pow(2, (P - 1) // 4, P)  # a square root of -1

Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z


def _add(a: Point, b: Point) -> Point:
    """The sum of two points (the unified formula: it also doubles)."""
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    e = (y1 - x1) * (y2 - x2) % P
    f = (y1 + x1) * (y2 + x2) % P
    g = 2 * t1 * t2 * D % P
    h = 2 * z1 * z2 % P
    e, f, g, h = f - e, h - g, h + g, f + e
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _times(k: int, point: Point) -> Point:
    out: Point = (0, 1, 1, 0)
    while k:
        if k & 1:
            out = _add(out, point)
        point = _add(point, point)
        k >>= 1
    return out


def _same(a: Point, b: Point) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _x_of(y: int, sign: int) -> int | None:
    """The x with x² = (y² - 1) / (d y² + 1) and the given low bit, or None."""
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if (v * x * x - u) % P:
        x = x * SQRT_M1 % P
    if (v * x * x - u) % P:
        return None
    if x == 0 and sign:
        return None
    return P - x if x & 1 != sign else x


def _decode(raw: bytes) -> Point | None:
    if len(raw) != 32:
        return None
    y = int.from_bytes(raw, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    if y >= P:
        return None
    x = _x_of(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


_BASE_Y = 4 * pow(5, P - 2, P) % P
_BASE_X = _x_of(_BASE_Y, 0)
assert _BASE_X is not None
BASE: Point = (_BASE_X, _BASE_Y, 1, _BASE_X * _BASE_Y % P)


def verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether `signature` is the key's signature of `message` (RFC 8032's check:
    [S]B = R + [k]A, with S below the group's order)."""
    if len(signature) != 64:
        return False
    a, r = _decode(public_key), _decode(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= L:
        return False
    k = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little")
    return _same(_times(s, BASE), _add(r, _times(k % L, a)))
