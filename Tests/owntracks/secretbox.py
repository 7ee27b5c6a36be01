#!/usr/bin/env python3
"""OwnTracks payload encryption, written apart from the server's libsodium (for its tests).

XSalsa20 and Poly1305 as NaCl's crypto_secretbox defines them, in plain Python (no libraries),
so a test that seals here and opens on the server (or the other way) checks the server against
an independent implementation. The key is the passphrase's UTF-8 bytes, cut or zero-padded to
32; a message on the wire is {"_type": "encrypted", "data": base64(nonce || MAC || ciphertext)}.

    secretbox.py seal <passphrase> <plaintext>      prints the encrypted message (random nonce)
    secretbox.py open <passphrase> <message JSON>   prints the plaintext; exit status 1 if it does not open
"""
import base64
import json
import os
import sys

MASK = 0xFFFFFFFF
SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)  # "expand 32-byte k"


def words(data):
    return [int.from_bytes(data[i:i + 4], "little") for i in range(0, len(data), 4)]


def rotate(value, count):
    return ((value << count) & MASK) | (value >> (32 - count))


def salsa_rounds(state):
    x = list(state)

    def quarter(a, b, c, d):
        x[b] ^= rotate((x[a] + x[d]) & MASK, 7)
        x[c] ^= rotate((x[b] + x[a]) & MASK, 9)
        x[d] ^= rotate((x[c] + x[b]) & MASK, 13)
        x[a] ^= rotate((x[d] + x[c]) & MASK, 18)

    for _ in range(10):
        quarter(0, 4, 8, 12); quarter(5, 9, 13, 1); quarter(10, 14, 2, 6); quarter(15, 3, 7, 11)
        quarter(0, 1, 2, 3); quarter(5, 6, 7, 4); quarter(10, 11, 8, 9); quarter(15, 12, 13, 14)
    return x


def initial_state(key, middle):
    k = words(key)
    m = words(middle)
    return [SIGMA[0], k[0], k[1], k[2], k[3], SIGMA[1], m[0], m[1], m[2], m[3], SIGMA[2], k[4], k[5], k[6], k[7], SIGMA[3]]


def hsalsa20(key, nonce16):
    x = salsa_rounds(initial_state(key, nonce16))
    return b"".join(x[i].to_bytes(4, "little") for i in (0, 5, 10, 15, 6, 7, 8, 9))


def xsalsa20_stream(key, nonce24, length):
    subkey = hsalsa20(key, nonce24[:16])
    out = bytearray()
    counter = 0
    while len(out) < length:
        state = initial_state(subkey, nonce24[16:24] + counter.to_bytes(8, "little"))
        mixed = salsa_rounds(state)
        out += b"".join(((a + b) & MASK).to_bytes(4, "little") for a, b in zip(mixed, state))
        counter += 1
    return bytes(out[:length])


def poly1305(key, message):
    r = int.from_bytes(key[:16], "little") & 0x0FFFFFFC0FFFFFFC0FFFFFFC0FFFFFFF
    s = int.from_bytes(key[16:32], "little")
    p = (1 << 130) - 5
    accumulator = 0
    for i in range(0, len(message), 16):
        block = message[i:i + 16] + b"\x01"
        accumulator = (accumulator + int.from_bytes(block, "little")) * r % p
    return ((accumulator + s) & ((1 << 128) - 1)).to_bytes(16, "little")


def key_of(passphrase):
    return passphrase.encode("utf-8")[:32].ljust(32, b"\x00")


def seal(key, nonce, plaintext):
    stream = xsalsa20_stream(key, nonce, 32 + len(plaintext))
    ciphertext = bytes(a ^ b for a, b in zip(plaintext, stream[32:]))
    return nonce + poly1305(stream[:32], ciphertext) + ciphertext


def open_sealed(key, sealed):
    if len(sealed) < 40:
        return None
    nonce, mac, ciphertext = sealed[:24], sealed[24:40], sealed[40:]
    stream = xsalsa20_stream(key, nonce, 32 + len(ciphertext))
    if poly1305(stream[:32], ciphertext) != mac:
        return None
    return bytes(a ^ b for a, b in zip(ciphertext, stream[32:]))


def main(arguments):
    if len(arguments) != 3 or arguments[0] not in ("seal", "open"):
        sys.stderr.write(__doc__)
        return 2
    command, passphrase, text = arguments
    key = key_of(passphrase)
    if command == "seal":
        sealed = seal(key, os.urandom(24), text.encode("utf-8"))
        print(json.dumps({"_type": "encrypted", "data": base64.b64encode(sealed).decode("ascii")}, separators=(",", ":")))
        return 0
    message = json.loads(text)
    plaintext = open_sealed(key, base64.b64decode(message["data"]))
    if plaintext is None:
        sys.stderr.write("does not open with this passphrase\n")
        return 1
    sys.stdout.write(plaintext.decode("utf-8"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
