"""The programs the GPU target is checked on: random programs (plain,
sized, batched, with qualifiers or not), the TCCG patterns at prime extents
and the CFD kernels, in f64 and f32. Each case: (name, source, store,
live_out, dtype)."""

import numpy as np

import tlgen
from tlcases import CONTRACTIONS, contraction_store


# Contractions that take the GPU contraction kernels' other paths (an input
# copied into load order, a split depth, a folded and an unfolded result
# transposition, sizes): (source, einsum spec, a fragment of the remark).
KERNEL_CASES = {
    # Both inputs' stride-1 indices are reductions, different ones: the
    # second is copied into the order the kernel loads it.
    "copied": ("var input A : [101 5 7]\nvar input B : [67 7 5]\n"
               "var output C : [101 67]\nC = A # B . [[2 6] [3 5]]\n",
               "ikl,jlk->ij", "inputs copied into the order loaded"),
    # One tile of the result and a long depth: split, partial sums added.
    "split": ("var input A : [5 23 29]\nvar input B : [29 7 23]\n"
              "var output C : [5 7]\nC = A # B . [[2 6] [3 4]]\n",
              "acd,dbc->ab", "depth split in 5 parts"),
    # A depth of 21: one step of 24, each thread staging 6 elements of each
    # tile, most of them past no edge.
    "short-depth": ("var input A : [37 3 7]\nvar input B : [7 3 41]\n"
                    "var output C : [37 41]\nC = A # B . [[2 5] [3 4]]\n",
                    "ikl,lkj->ij", "depth 24 per step"),
    # The result transposed: the transposition folded into the kernel.
    "transposed": ("var input A : [37 41]\nvar input B : [41 43]\n"
                   "var output C : [43 37]\n"
                   "C = A # B . [[2 3]] ^ [[1 2]]\n",
                   "ik,kj->ji", "the result's transposition folded"),
    # TCCG's abcde-ecbfa-fd: folded, the kernel would store 12 KB apart
    # (its columns follow the input it reads once); the transposition
    # stays a statement of its own.
    "strided-result": ("var input A : [8 16 8 8 8]\nvar input B : [3 16]\n"
                       "var output C : [8 3 8 8 8]\n"
                       "C = A # B . [[2 7]] ^ [[1 4] [2 5] [4 5]]\n",
                       "afbce,df->edcba", "the output's fill folded"),
    # Every extent a size (bound here to primes): the grid, the edges and
    # the depth steps from the sizes at run time.
    "sized": ("size I\nsize J\nsize K\nvar input A : [I K]\n"
              "var input B : [K J]\nvar output C : [I J]\n"
              "C = A # B . [[2 3]]\n",
              "ik,kj->ij", "tensor cores"),
}


# Transpositions that take the GPU transposition kernel (tiles of 32 x 32
# read along the input's stride-1 index and written along the output's):
# (source, the output as numpy.transpose's axes of the input, the input's
# shape), at extents that divide no tile, one of them sized.
TRANSPOSITION_CASES = {
    "transpose-3d": ("var input A : [37 41 43]\nvar output C : [43 37 41]\n"
                     "C = A ^ [[1 2] [1 3]]\n", (2, 0, 1), (37, 41, 43)),
    "transpose-batched": ("var input A : [5 29 3 31]\n"
                          "var output C : [5 31 3 29]\nC = A ^ [[2 4]]\n",
                          (0, 3, 2, 1), (5, 29, 3, 31)),
    "transpose-sized": ("size I\nsize J\nvar input A : [I J]\n"
                        "var output C : [J I]\nC = A ^ [[1 2]]\n",
                        (1, 0), (53, 67)),
}


def transposition_case_store(name):
    """The case's source, its inputs and the expected output."""
    source, axes, shape = TRANSPOSITION_CASES[name]
    a = np.random.default_rng(13).standard_normal(shape)
    return source, {"A": a}, np.transpose(a, axes).copy()


def random_transposition(seed):
    """A random transposition (rank 2 to 4, extents around the transposition
    kernel's tiles of 32 and below its threshold of 16, a third of them
    sized): its source, its input and the expected output."""
    rng = np.random.default_rng(seed)
    rank = int(rng.integers(2, 5))
    shape = [int(rng.choice([1, 3, 16, 17, 31, 37, 40])) for _ in range(rank)]
    swaps = [sorted(int(x) for x in rng.choice(rank, 2, replace=False) + 1)
             for _ in range(int(rng.integers(1, 4)))]
    order = list(range(rank))
    for i, j in swaps:
        order[i - 1], order[j - 1] = order[j - 1], order[i - 1]
    a = rng.standard_normal(shape)
    if rng.random() < 1 / 3:
        names = ["N%d" % k for k in range(rank)]
        declarations = "".join("size %s\n" % n for n in names)
    else:
        names = [str(e) for e in shape]
        declarations = ""
    source = declarations + "var input A : [%s]\nvar output C : [%s]\n" \
        "C = A ^ [%s]\n" % (" ".join(names), " ".join(names[k] for k in order),
                            " ".join("[%d %d]" % tuple(s) for s in swaps))
    return source, {"A": a}, np.transpose(a, order).copy()


def random_contraction(seed):
    """A random contraction of two operands (3 to 6 indices, extents about
    the contraction kernels' tiles and steps, the operands' indices in
    random orders): its source, its inputs and numpy.einsum's result."""
    rng = np.random.default_rng(seed)
    indices = "abcdef"[:int(rng.integers(3, 7))]
    # (At most 400 000 multiply-adds: the mapped loops run on one core.)
    extent = {}
    while not extent or np.prod(list(extent.values())) > 400000:
        extent = {i: int(rng.choice([1, 5, 7, 16, 17, 24, 33, 40]))
                  for i in indices}
    # The first of the first input only, the second of the second only,
    # the third summed; the others any of the three.
    roles = {i: ("A", "B", "AB")[k] if k < 3 else str(rng.choice(
        ["A", "B", "AB"])) for k, i in enumerate(indices)}
    a = [i for i in indices if "A" in roles[i]]
    b = [i for i in indices if "B" in roles[i]]
    rng.shuffle(a)
    rng.shuffle(b)
    result = [i for i in a if roles[i] == "A"] + \
        [i for i in b if roles[i] == "B"]
    pairs = " ".join("[%d %d]" % (a.index(i) + 1, len(a) + b.index(i) + 1)
                     for i in indices if roles[i] == "AB")
    shape = lambda names: " ".join(str(extent[i]) for i in names)
    source = ("var input A : [%s]\nvar input B : [%s]\nvar output C : [%s]\n"
              "C = A # B . [%s]\n" % (shape(a), shape(b), shape(result),
                                      pairs))
    inputs = {"A": rng.standard_normal([extent[i] for i in a]),
              "B": rng.standard_normal([extent[i] for i in b])}
    expected = np.einsum("%s,%s->%s" % ("".join(a), "".join(b),
                                        "".join(result)),
                         inputs["A"], inputs["B"])
    return source, inputs, expected


def kernel_case_store(name):
    """The case's source, einsum spec and inputs."""
    source, spec, _ = KERNEL_CASES[name]
    rng = np.random.default_rng(11)
    if name == "sized":
        shapes = [(67, 53), (53, 71)]
    else:
        shapes = [[int(x) for x in line.split("[")[1].split("]")[0].split()]
                  for line in source.splitlines()
                  if line.startswith("var input")]
    inputs = {n: rng.standard_normal(s) for n, s in zip("AB", shapes)}
    return source, spec, inputs


def cases(random_count=12):
    for seed in range(random_count):
        gen = tlgen.Generator(41000 + seed, max_rank=3, max_extent=5)
        program = gen.program(qualifiers=seed % 2 == 0)
        yield ("random-%d" % seed, program.source(), gen.values(program),
               program.live_out, np.float64)
    for seed in range(random_count // 2):
        gen = tlgen.Generator(42000 + seed, max_rank=3)
        program = gen.sized_program(qualifiers=seed % 2 == 1,
                                    batch=seed % 3 == 2)
        bound = program.bind({name: gen.rng.choice([5, 7])
                              for name in program.sizes})
        yield ("sized-%d" % seed, program.source(), gen.values(bound),
               program.live_out, np.float64)
    for seed in range(random_count // 2):
        gen = tlgen.Generator(43000 + seed, max_rank=3)
        program = gen.batch_program(qualifiers=seed % 2 == 0)
        yield ("batched-%d" % seed, program.source(), gen.values(program),
               program.live_out, np.float64)
    for name, source in sorted(CONTRACTIONS.items()):
        store = contraction_store(source, np.random.default_rng(7))
        outputs = [line.split()[2] for line in source.splitlines()
                   if line.startswith("var output")]
        yield (name, source, store, outputs, np.float64)
    source = CONTRACTIONS["ab-ac-cb"]
    store = {name: value.astype(np.float32) for name, value in
             contraction_store(source, np.random.default_rng(8)).items()}
    yield ("ab-ac-cb-f32", source, store, ["C"], np.float32)
    # The contraction kernels' copies, splits and folds at odd extents.
    for name in sorted(KERNEL_CASES):
        source, _, inputs = kernel_case_store(name)
        store = dict(inputs)
        store["C"] = np.zeros(np.einsum(KERNEL_CASES[name][1], inputs["A"],
                                        inputs["B"]).shape)
        yield ("kernel-" + name, source, store, ["C"], np.float64)
    for name in sorted(TRANSPOSITION_CASES):
        source, inputs, expected = transposition_case_store(name)
        yield (name, source, dict(inputs, C=np.zeros(expected.shape)), ["C"],
               np.float64)
