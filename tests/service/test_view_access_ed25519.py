"""The Ed25519 check (service.access.ed25519) against RFC 8032's test vectors, and against
signatures this test makes with the RFC's signing steps: a good signature passes, and
any change to the key, the message or the signature fails."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.access.ed25519 import BASE, L, P, Point, _times, verify

# RFC 8032, section 7.1: TEST 1, 2 and 3 (secret key, public key, message, signature).
VECTORS = [
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    ),
    (
        "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "72",
        "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
        "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
        "18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    ),
]


def encode(point: Point) -> bytes:
    x, y, z, _ = point
    inverse = pow(z, P - 2, P)
    x, y = x * inverse % P, y * inverse % P
    return (y | (x & 1) << 255).to_bytes(32, "little")


def keypair(seed: bytes) -> tuple[int, bytes, bytes]:
    """RFC 8032 5.1.5: the secret scalar, the prefix and the public key of a seed."""
    digest = hashlib.sha512(seed).digest()
    scalar = int.from_bytes(digest[:32], "little")
    scalar &= (1 << 254) - 8
    scalar |= 1 << 254
    return scalar, digest[32:], encode(_times(scalar, BASE))


def sign(seed: bytes, message: bytes) -> bytes:
    """RFC 8032 5.1.6."""
    scalar, prefix, public = keypair(seed)
    r = int.from_bytes(hashlib.sha512(prefix + message).digest(), "little") % L
    big_r = encode(_times(r, BASE))
    k = int.from_bytes(hashlib.sha512(big_r + public + message).digest(), "little") % L
    return big_r + ((r + k * scalar) % L).to_bytes(32, "little")


@pytest.mark.parametrize(("seed", "public", "message", "signature"), VECTORS)
def test_rfc_8032_vectors(seed: str, public: str, message: str, signature: str) -> None:
    key, text, sig = bytes.fromhex(public), bytes.fromhex(message), bytes.fromhex(signature)
    assert keypair(bytes.fromhex(seed))[2] == key
    assert sign(bytes.fromhex(seed), text) == sig  # the test's signer is the RFC's
    assert verify(key, text, sig)
    assert not verify(key, text + b"\0", sig)
    assert not verify(key, text, sig[:-1] + bytes([sig[-1] ^ 1]))


def test_malformed_keys_and_signatures_fail() -> None:
    _, public, message, signature = (bytes.fromhex(v) for v in VECTORS[1])
    assert not verify(public[:31], message, signature)
    assert not verify(public, message, signature[:63])
    assert not verify(b"\xff" * 32, message, signature)  # y >= p: no point
    too_big = (int.from_bytes(signature[32:], "little") + L).to_bytes(32, "little")
    assert not verify(public, message, signature[:32] + too_big)  # S + L: malleated


@settings(max_examples=25, deadline=None)
@given(
    seed=st.binary(min_size=32, max_size=32),
    message=st.binary(max_size=200),
    flip=st.integers(0, 64 * 8 - 1),
)
def test_signatures_made_here_pass_and_any_flipped_bit_fails(
    seed: bytes, message: bytes, flip: int
) -> None:
    signature = sign(seed, message)
    public = keypair(seed)[2]
    assert verify(public, message, signature)
    broken = bytearray(signature)
    broken[flip // 8] ^= 1 << (flip % 8)
    assert not verify(public, message, bytes(broken))
    other = keypair(hashlib.sha256(seed).digest())[2]
    assert not verify(other, message, signature)
