"""Programs that every compiled target is checked on against the reference
interpreter: TCCG index patterns at prime extents and the CFD kernels."""

import re

import numpy as np


# Contractions of the TCCG suite's index patterns at prime extents (no tile
# divides them), and the CFD kernels, with a sized element count.
CONTRACTIONS = {
    "ab-ac-cb": ("var input A : [67 71]\nvar input B : [71 73]\n"
                 "var output C : [67 73]\nC = A # B . [[2 3]]\n"),
    "abc-bda-dc": ("var input A : [17 11 13]\nvar input B : [11 7]\n"
                   "var output C : [13 17 7]\n"
                   "C = A # B . [[2 4]] ^ [[1 2]]\n"),
    "abcd-aebf-fdec": ("var input A : [5 11 2 13]\n"
                       "var input B : [13 3 11 7]\n"
                       "var output C : [5 2 7 3]\n"
                       "C = A # B . [[2 7] [4 5]] ^ [[3 4]]\n"),
    "cfd-interpolation": ("size E\nvar input u : [E 11 11 11]\n"
                          "var input A : [11 11]\n"
                          "var output v : [E 11 11 11]\n"
                          "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n"),
    "inverse-helmholtz": ("var input S : [7 7]\nvar input D : [7 7 7]\n"
                          "var input u : [7 7 7]\nvar t : [7 7 7]\n"
                          "var r : [7 7 7]\nvar output v : [7 7 7]\n"
                          "t = S # S # S # u . [[2 7] [4 8] [6 9]]\n"
                          "r = D * t\n"
                          "v = S # S # S # r . [[1 7] [3 8] [5 9]]\n"),
}


def contraction_store(source, rng):
    store = {}
    for name, extents in re.findall(
            r"^var input (\w+) : \[([^\]]*)\]", source, re.M):
        shape = [int(e) if e.isdigit() else 3 for e in extents.split()]
        store[name] = rng.standard_normal(shape)
    for name, extents in re.findall(
            r"^var output (\w+) : \[([^\]]*)\]", source, re.M):
        shape = [int(e) if e.isdigit() else 3 for e in extents.split()]
        store[name] = np.zeros(shape)
    return store
