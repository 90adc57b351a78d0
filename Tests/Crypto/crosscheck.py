"""entlc's Ed25519 against PyPI `cryptography`, run by crosscheck.sh from the repository's root.

1. `cryptography` makes N cases (seeded): a seed, a message (0 bytes, block boundaries of SHA-512,
   several blocks), its public key, its signature, its keys as PEM, a signature and a message
   with one bit flipped.
2. `swift test` runs Ed25519CrossCheckTests on them: the same public key, the same signature byte
   for byte, theirs verifies, the flipped ones do not, their PEM files read and ours are the same
   text. It writes our signatures and PEM files.
3. `cryptography` verifies our signatures and reads our PEM files.
4. The command line: keys from `entlc keygen`, `cryptography` and `openssl` sign and verify across
   tools (`entlc build --sign`, `entlc verify`).
5. The edge cases of "Taming the many EdDSAs": `cryptography` accepts exactly the cases our tests
   say it accepts (ours differ only on public keys of small order, which we refuse).

Any mismatch stops it with exit 1; the last line is `crosscheck: N passed, 0 failed`.
"""

import argparse
import base64
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

ENTLC = os.environ["ENTLC"]
passed = 0


def check(condition, what):
    global passed
    if not condition:
        print(f"crosscheck: MISMATCH: {what}", file=sys.stderr)
        print(f"crosscheck: {passed} passed, 1 failed")
        sys.exit(1)
    passed += 1


def private_pem(key):
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def public_pem(key):
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()


def raw_public(key):
    return key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)


def verifies(public_key, signature, message):
    try:
        public_key.verify(signature, message)
        return True
    except InvalidSignature:
        return False


def flip(data, rng):
    if not data:
        return b"\x00"
    i = rng.randrange(len(data) * 8)
    changed = bytearray(data)
    changed[i // 8] ^= 1 << (i % 8)
    return bytes(changed)


def make_cases(n, rng):
    # SHA-512 works on 128-byte blocks; k = SHA-512(R ‖ A ‖ M) has 64 bytes before M.
    lengths = [0, 1, 2, 63, 64, 65, 111, 112, 113, 127, 128, 129, 255, 256, 1023, 5000]
    cases = []
    for i in range(n):
        seed = bytes(rng.randrange(256) for _ in range(32))
        length = lengths[i] if i < len(lengths) else rng.randrange(3000)
        message = bytes(rng.randrange(256) for _ in range(length))
        key = Ed25519PrivateKey.from_private_bytes(seed)
        signature = key.sign(message)
        bad_signature, bad_message = flip(signature, rng), flip(message, rng)
        check(not verifies(key.public_key(), bad_signature, message),
              f"case {i}: cryptography took a flipped signature")
        check(not verifies(key.public_key(), signature, bad_message), f"case {i}: cryptography took a flipped message")
        cases.append({
            "seed": seed.hex(), "message": message.hex(), "public": raw_public(key.public_key()).hex(),
            "signature": signature.hex(), "bad_signature": bad_signature.hex(), "bad_message": bad_message.hex(),
            "private_pem": private_pem(key), "public_pem": public_pem(key.public_key()),
        })
    return cases


def library(cases, work):
    cases_path, out_path = os.path.join(work, "cases.jsonl"), os.path.join(work, "ours.jsonl")
    with open(cases_path, "w") as f:
        for c in cases:
            f.write(json.dumps(c) + "\n")
    env = dict(os.environ, ENTLC_CROSSCHECK_CASES=cases_path, ENTLC_CROSSCHECK_OUT=out_path)
    run = subprocess.run(["swift", "test", "--skip-build", "--filter", "Ed25519CrossCheckTests"], env=env,
                         capture_output=True, text=True)
    if run.returncode != 0 or "1 test" not in run.stdout + run.stderr:
        print(run.stdout[-20000:], run.stderr[-5000:], sep="\n", file=sys.stderr)
    check(run.returncode == 0, "Ed25519CrossCheckTests failed (its output is above)")
    with open(out_path) as f:
        ours = [json.loads(line) for line in f]
    check(len(ours) == len(cases), f"the Swift side wrote {len(ours)} results for {len(cases)} cases")
    for i, (c, o) in enumerate(zip(cases, ours)):
        message, signature = bytes.fromhex(o["message"]), bytes.fromhex(o["signature"])
        check(o["message"] == c["message"], f"case {i}: results out of order")
        private_key = serialization.load_pem_private_key(o["private_pem"].encode(), None)
        public_key = serialization.load_pem_public_key(o["public_pem"].encode())
        check(raw_public(public_key).hex() == c["public"], f"case {i}: our public PEM")
        check(raw_public(private_key.public_key()).hex() == c["public"], f"case {i}: our private PEM")
        check(verifies(public_key, signature, message), f"case {i}: cryptography refuses our signature")
        check(signature.hex() == c["signature"], f"case {i}: signatures differ")


def read_signature(path):
    """The signature in FILE.sig, which must be one line: base64 of 64 bytes, then a newline."""
    with open(path) as f:
        text = f.read()
    check(len(text) == 89 and text.endswith("\n"), f"{path} is not one line of 88 characters")
    return base64.b64decode(text[:-1], validate=True)


def entlc(*arguments):
    return subprocess.run([ENTLC, *arguments], capture_output=True, text=True)


def command_line(work):
    artifact = os.path.join(work, "rules.graph.json")
    # A key from entlc keygen: cryptography reads both files and makes the signature entlc makes.
    key_path = os.path.join(work, "entlc-key")
    check(entlc("keygen", key_path).returncode == 0, "entlc keygen")
    with open(key_path, "rb") as f:
        entlc_key = serialization.load_pem_private_key(f.read(), None)
    with open(key_path + ".pub", "rb") as f:
        check(raw_public(serialization.load_pem_public_key(f.read())) == raw_public(entlc_key.public_key()),
              "entlc keygen: the public key file is not the private key's")
    check(entlc("build", "examples/photos.entl", "-o", artifact, "--sign", key_path).returncode == 0, "build --sign")
    with open(artifact, "rb") as f:
        artifact_bytes = f.read()
    signature = read_signature(artifact + ".sig")
    check(signature == entlc_key.sign(artifact_bytes), "build --sign: not the signature cryptography makes")
    check(verifies(entlc_key.public_key(), signature, artifact_bytes), "cryptography refuses build --sign's signature")

    # Keys from cryptography (and openssl): entlc signs with them, and verifies what they sign.
    keys = {"cryptography": Ed25519PrivateKey.generate()}
    if shutil.which("openssl"):
        openssl_path = os.path.join(work, "openssl-key")
        subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519", "-out", openssl_path], check=True)
        with open(openssl_path, "rb") as f:
            keys["openssl"] = serialization.load_pem_private_key(f.read(), None)
    else:
        print("crosscheck: openssl not installed: keys from openssl not checked")
    for name, key in keys.items():
        path = os.path.join(work, name + "-key")
        with open(path, "w") as f:
            f.write(private_pem(key))
        with open(path + ".pub", "w") as f:
            f.write(public_pem(key.public_key()))
        signing = entlc("build", "examples/photos.entl", "-o", artifact, "--sign", path)
        check(signing.returncode == 0, f"{name} key: build --sign: {signing.stderr}")
        check(verifies(key.public_key(), read_signature(artifact + ".sig"), artifact_bytes),
              f"{name} key: cryptography refuses entlc's signature")
        with open(artifact + ".sig", "w") as f:
            f.write(base64.b64encode(key.sign(artifact_bytes)).decode() + "\n")
        verified = entlc("verify", artifact, "--trusted-key", path + ".pub")
        check(verified.returncode == 0, f"{name} key: entlc verify refuses cryptography's signature: {verified.stderr}")
        wrong = entlc("verify", artifact, "--trusted-key", key_path + ".pub")
        check(wrong.returncode == 2 and "is not trusted" in wrong.stderr, f"{name} key: entlc verify took another key")
        tampered = os.path.join(work, "tampered.json")
        with open(tampered, "wb") as f:
            f.write(artifact_bytes.replace(b'"ai_retouch"', b'"ai_retouck"', 1))
        shutil.copy(artifact + ".sig", tampered + ".sig")
        refused = entlc("verify", tampered, "--trusted-key", path + ".pub")
        check(refused.returncode == 2 and "is not trusted" in refused.stderr,
              f"{name} key: entlc verify took a changed file")


def edge_cases():
    with open("Tests/Fixtures/crypto/speccheck-cases.json") as f:
        cases = json.load(f)
    accepted = []
    for i, c in enumerate(cases):
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(c["pub_key"]))
        if verifies(key, bytes.fromhex(c["signature"]), bytes.fromhex(c["message"])):
            accepted.append(i)
    # Ed25519Tests.edgeCasesOfTamingTheManyEdDSAs: we accept [2, 3]; 0 and 1 have keys of small order.
    check(accepted == [0, 1, 2, 3], f"cryptography accepts the edge cases {accepted}, not [0, 1, 2, 3]")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--seed", type=int, default=8032)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as work:
        cases = make_cases(args.cases, rng)
        library(cases, work)
        command_line(work)
    edge_cases()
    print(f"crosscheck: {args.cases} cases (seed {args.seed}) and the command line agree with cryptography")
    print(f"crosscheck: {passed} passed, 0 failed")


if __name__ == "__main__":
    main()
