"""Writes one .npy file, well-formed or broken in a named way, for tl-run's
tests: make_npy.py KIND PATH."""
import struct
import sys

import numpy as np


def header(descr, fortran, shape, version=1, alignment=64):
    """The header of a .npy file. NumPy pads it to a multiple of 64 bytes;
    alignment=1 leaves the data at an odd offset, which readers must accept
    (the format only promises the padding, it does not require it)."""
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, fortran, repr(tuple(shape)))
    length_size = 2 if version == 1 else 4
    unpadded = 6 + 2 + length_size + len(text) + 1
    pad = (alignment - unpadded % alignment) % alignment
    if alignment == 1 and unpadded % 2 == 0:
        pad = 1
    text = text + " " * pad + "\n"
    packed = struct.pack("<H" if version == 1 else "<I", len(text))
    return b"\x93NUMPY" + bytes([version, 0]) + packed + text.encode()


def main(kind, path):
    a = np.arange(4, dtype="<f8").reshape(2, 2) + 1
    body = a.tobytes()
    files = {
        "good": header("<f8", False, (2, 2)) + body,
        "v2": header("<f8", False, (2, 2), version=2) + body,
        "v3": header("<f8", False, (2, 2), version=3) + body,
        "f4": header("<f4", False, (2, 2)) + a.astype("<f4").tobytes(),
        "scalar": header("<f8", False, ()) + np.float64(2.5).tobytes(),
        "nan": header("<f8", False, (2, 2)) + np.array([[1, np.nan], [3, 4]]).tobytes(),
        "inf": header("<f8", False, (2, 2)) + np.array([[1, 2], [np.inf, 4]]).tobytes(),
        "shape3": header("<f8", False, (3,)) + np.ones(3).tobytes(),
        "bad-magic": b"\x93NUMPZ" + header("<f8", False, (2, 2))[6:] + body,
        "bad-version": header("<f8", False, (2, 2))[:6] + b"\x04\x00" + header("<f8", False, (2, 2))[8:] + body,
        "short": b"\x93NUM",
        "truncated-header": header("<f8", False, (2, 2))[:40],
        "truncated-data": header("<f8", False, (2, 2)) + body[:20],
        "trailing-data": header("<f8", False, (2, 2)) + body + b"xx",
        "lying-shape": header("<f8", False, (1 << 20, 1 << 20)) + body,
        "huge-shape": header("<f8", False, (99999999999999999999999,)) + body,
        "fortran": header("<f8", True, (2, 2)) + body,
        "unaligned": header("<f8", False, (2, 2), alignment=1) + body,
        "fortran-unaligned": header("<f8", True, (2, 2), alignment=1) + body,
        "fortran-empty-huge": header("<f8", True, (0, 1 << 62, 3)),
        "int32": header("<i4", False, (2, 2)) + a.astype("<i4").tobytes(),
        "big-endian": header(">f8", False, (2, 2)) + a.astype(">f8").tobytes(),
        "malformed": b"\x93NUMPY\x01\x00" + struct.pack("<H", 16) + b"{'descr': '<f8' ",
        "extra-key": header("<f8", False, (2, 2)).replace(b"'shape'", b"'shape2'", 1) + body,
    }
    with open(path, "wb") as f:
        f.write(files[kind])


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
