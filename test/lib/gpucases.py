"""The programs the GPU target is checked on: random programs (plain,
sized, batched, with qualifiers or not), the TCCG patterns at prime extents
and the CFD kernels, in f64 and f32. Each case: (name, source, store,
live_out, dtype)."""

import numpy as np

import tlgen
from tlcases import CONTRACTIONS, contraction_store


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
