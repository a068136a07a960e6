#!/usr/bin/python3
"""TensorLang's GPU kernels against PyTorch (cuBLAS, cuTENSOR-free einsum)
and CuPy in the same run, f64 and f32, every result checked against
torch.einsum's.

Compiled here (no GPU needed) into kernel libraries, timed on a GPU
machine through the runtime-only loader (tensorlang.load: no LLVM there):

    bench/gpu.py --make OUT [--build build] [--only K5,ab-ac-cb] [--tccg-suite]
                 [--tl-flag=--gpu-register-tile=8]
    python3 OUT/gpu.py [--reps 10] [--only ...] [--budget 240]   # there
        [--variants OTHER,...]

--variants times, for each case, the same case from other bundles made
with --make (another commit's compiler, other --tl-flag values) in the
same run, each checked as the main one: a line per variant under the
case's, with its time and its ratio to the main bundle's.

Per case: the medians (CUDA events, after one warm-up run) of TensorLang's
device function on PyTorch tensors (no copies), torch.einsum and
cupy.einsum; TFLOP/s; GB/s counting each input and output once and its
share of the measured device-to-device copy rate; and the ratio best peer /
TensorLang (above 1: TensorLang faster). Results: bench/README.md, per GPU
model.

The cases: the CFD interpolation K5 (f64 and f32), the inverse
Helmholtz operator K5H and the CFD gradient G1, at E = 100 000 and p = 11
and each also at a prime E (99 991), and TCCG contractions at TCCG's sizes
(bench/tccg.py): ab-ac-cb, ccsd6 abcd-aebf-fdec, intensli abj-bka-kj and
ccsd_t abcdef-gdab-efgc."""

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

P = 11
E = 100000
E_PRIME = 99991

K5 = ("size E\nvar input u : [E {p} {p} {p}]\nvar input A : [{p} {p}]\n"
      "var output v : [E {p} {p} {p}]\n"
      "v = u # A # A # A . [[2 6] [3 8] [4 10]]\n").format(p=P)
K5H = ("size E\ntype f : [E {p} {p} {p}]\nvar input S : [{p} {p}]\n"
       "var input D : f\nvar input u : f\nvar output v : f\nvar t : f\n"
       "t = u # S # S # S . [[2 5] [3 7] [4 9]]\n"
       "v = (D * t) # S # S # S . [[2 6] [3 8] [4 10]]\n").format(p=P)
G1 = ("size E\nvar input u : [E {p} {p} {p}]\nvar input D : [{p} {p}]\n"
      "var output g : [3 E {p} {p} {p}]\n"
      "g = [D # u . [2 4] ^ [1 2], D # u . [2 5] ^ [[1 2] [2 3]], "
      "D # u . [2 6] ^ [[1 2] [2 3] [3 4]]]\n").format(p=P)

# (TCCG's intensli abj-bka-kj is abc-bda-dc in its normalized names, and
# ccsd_t abcdef-gdab-efgc keeps its name.)
TCCG = ["ab-ac-cb", "abcd-aebf-fdec", "abc-bda-dc", "abcdef-gdab-efgc"]


def cfd_cases():
    """(id, source, dtype, shapes, peer, flops, sizes)."""
    cell = (P, P, P)
    cases = []
    for ident, dtype, e in (("K5", "float64", E),
                            ("K5-prime-E", "float64", E_PRIME),
                            ("K5F", "float32", E),
                            ("K5F-prime-E", "float32", E_PRIME)):
        cases.append({
            "id": ident, "source": K5, "dtype": dtype,
            "description": "CFD interpolation E=%d p=%d" % (e, P),
            "inputs": {"u": (e,) + cell, "A": (P, P)}, "output": "v",
            "peer": [["elmn,il,jm,kn->eijk", ["u", "A", "A", "A"]]],
            "flops": 6.0 * e * P ** 4, "sizes": {"E": e}})
    for ident, e in (("K5H", E), ("K5H-prime-E", E_PRIME)):
        cases.append({
            "id": ident, "source": K5H, "dtype": "float64",
            "description": "inverse Helmholtz E=%d p=%d" % (e, P),
            "inputs": {"S": (P, P), "D": (e,) + cell, "u": (e,) + cell},
            "output": "v",
            "peer": [["eabc,ai,bj,ck->eijk", ["u", "S", "S", "S"], "t"],
                     ["*", ["D", "t"], "r"],
                     ["eabc,ia,jb,kc->eijk", ["r", "S", "S", "S"]]],
            "flops": 12.0 * e * P ** 4 + e * P ** 3, "sizes": {"E": e}})
    for ident, e in (("G1", E), ("G1-prime-E", E_PRIME)):
        cases.append({
            "id": ident, "source": G1, "dtype": "float64",
            "description": "CFD gradient, a stack of 3 derivatives E=%d p=%d"
                           % (e, P),
            "inputs": {"u": (e,) + cell, "D": (P, P)}, "output": "g",
            "peer": [["ai,eijk->eajk", ["D", "u"], "g0"],
                     ["aj,eijk->eiak", ["D", "u"], "g1"],
                     ["ak,eijk->eija", ["D", "u"], "g2"],
                     ["stack", ["g0", "g1", "g2"]]],
            "flops": 6.0 * e * P ** 4, "sizes": {"E": e}})
    return cases


def tccg_cases(whole_suite):
    """The four of TCCG above, then with `whole_suite` the others."""
    sys.path.insert(0, HERE)
    import tccg
    sizes_by_name = dict(tccg.suite())
    names = TCCG + ([n for n, _ in tccg.suite() if n not in TCCG]
                    if whole_suite else [])
    cases = []
    for name in names:
        sizes = sizes_by_name[name]
        source, spec = tccg.program(name, sizes)
        a, b = spec.split("->")[0].split(",")
        shape = lambda s: tuple(sizes[i] for i in s)
        flops = 2.0 * math.prod(sizes.values())
        cases.append({
            "id": name, "source": source, "dtype": "float64",
            "description": "TCCG %s (%s)" % (name, ", ".join(
                "%s=%d" % item for item in sorted(sizes.items()))),
            "inputs": {"A": shape(a), "B": shape(b)}, "output": "C",
            "peer": [[spec, ["A", "B"]]], "flops": flops, "sizes": {}})
    return cases


def geometric_mean(values):
    values = list(values)
    return math.exp(sum(map(math.log, values)) / len(values))


def tccg_families(ratios):
    """The TCCG cases among `ratios` by family (ccsd_t: six-index
    results; ccsd6: four-index results of two four-index operands; abcde:
    five-index results), and all of them, leaving out empty families."""
    tccg = [i for i in ratios if i not in {c["id"] for c in cfd_cases()}]
    families = {
        "TCCG": tccg,
        "ccsd_t": [i for i in tccg if len(i.split("-")[0]) == 6],
        "ccsd6": [i for i in tccg if len(i.split("-")[0]) == 4 and
                  all(len(part) == 4 for part in i.split("-")[1:])],
        "abcde": [i for i in tccg if len(i.split("-")[0]) == 5],
    }
    return {name: ids for name, ids in families.items() if ids}


def make(args):
    out = os.path.abspath(args.make)
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, "cases"))
    tl_compile = os.path.join(args.build, "bin", "tl-compile")
    manifest = []
    for case in cfd_cases() + tccg_cases(args.tccg_suite):
        if args.only and case["id"] not in args.only.split(","):
            continue
        library = os.path.join(out, "cases", case["id"] + ".so")
        source = os.path.join(out, "cases", case["id"] + ".tl")
        with open(source, "w") as f:
            f.write(case["source"])
        element = (["--element-type=f32"] if case["dtype"] == "float32"
                   else [])
        start = time.time()
        subprocess.run([tl_compile, source, "--target=cuda", "--shared",
                        "--name=k", "-o", library] + element + args.tl_flag,
                       check=True)
        case["compile_seconds"] = round(time.time() - start, 2)
        case["library"] = os.path.basename(library)
        manifest.append(case)
        print("%-18s compiled in %.2f s" % (case["id"],
                                            case["compile_seconds"]))
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    shutil.copy(os.path.abspath(__file__), os.path.join(out, "gpu.py"))
    package = os.path.join(out, "python", "tensorlang")
    os.makedirs(package)
    for name in ("__init__.py", "loader.py"):
        shutil.copy(os.path.join(HERE, "..", "python", "tensorlang", name),
                    package)
    print("%d cases in %s" % (len(manifest), out))


# --- On the GPU machine -----------------------------------------------------

def timed(function, reps, torch):
    """Median milliseconds of `function` by CUDA events, after a warm-up
    run; fewer repetitions for runs of over a second."""
    function()
    torch.cuda.synchronize()
    times = []
    deadline = time.time() + 3.0
    for _ in range(reps):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        function()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
        if time.time() > deadline and len(times) >= 3:
            break
    return statistics.median(times)


def peer_function(steps, values, einsum, stack):
    def run():
        scope = dict(values)
        result = None
        for step in steps:
            spec, operands = step[0], [scope[n] for n in step[1]]
            if spec == "*":
                result = operands[0] * operands[1]
            elif spec == "stack":
                result = stack(operands)
            else:
                result = einsum(spec, *operands)
            if len(step) > 2:
                scope[step[2]] = result
        return result
    return run


def copy_rate(torch):
    """Bytes read and written per second by a 1 GiB device-to-device
    copy."""
    source = torch.empty(2 ** 27, dtype=torch.float64, device="cuda")
    target = torch.empty_like(source)
    milliseconds = timed(lambda: target.copy_(source), 10, torch)
    return 2 * source.numel() * 8 / (milliseconds * 1e-3)


def run(args):
    import numpy as np
    import torch
    sys.path.insert(0, os.path.join(HERE, "python"))
    import tensorlang
    try:
        import cupy
    except ImportError:
        cupy = None
    manifest = json.load(open(os.path.join(HERE, "manifest.json")))
    device = torch.cuda.get_device_name()
    rate = copy_rate(torch)
    print("%s, driver via torch %s, cupy %s; device-to-device copy %.0f GB/s"
          % (device, torch.__version__, cupy.__version__ if cupy else "none",
             rate / 1e9))
    header = ("%-16s %-7s %9s %9s %9s %7s %8s %6s %6s  %s" % (
        "case", "dtype", "TL ms", "torch ms", "cupy ms", "TF/s", "GB/s",
        "%copy", "best/TL", "check"))
    # (TL ms includes the loader's Python-side checks, some tens of
    # microseconds a call: it matters for the smallest cases only.)
    print(header)
    failures = 0
    ratios = {}
    started = time.time()
    for case in manifest:
        if args.only and case["id"] not in args.only.split(","):
            continue
        if time.time() - started > args.budget:
            print("(time budget of %.0f s spent: the other cases not run)"
                  % args.budget)
            break
        dtype = getattr(torch, case["dtype"])
        generator = torch.Generator(device="cuda").manual_seed(7)
        values = {name: torch.rand(shape, dtype=dtype, device="cuda",
                                   generator=generator) - 0.5
                  for name, shape in case["inputs"].items()}
        kernel = tensorlang.load(os.path.join(HERE, "cases", case["library"]))
        # The output given, as a library's caller would: no allocation in
        # the timed calls.
        declared = next(v["shape"] for v in kernel.variables
                        if v["name"] == case["output"])
        result = torch.empty([case["sizes"].get(e, e) for e in declared],
                             dtype=dtype, device="cuda")
        arguments = dict(values, **{case["output"]: result})
        tl_ms = timed(lambda: kernel(**arguments), args.reps, torch)
        torch_run = peer_function(case["peer"], values, torch.einsum,
                                  torch.stack)
        torch_ms = timed(torch_run, args.reps, torch)
        expected = torch_run()
        cupy_ms = float("nan")
        if cupy is not None:
            cupy_values = {n: cupy.asarray(v) for n, v in values.items()}
            cupy_run = peer_function(case["peer"], cupy_values, cupy.einsum,
                                     cupy.stack)
            cupy_run()
            cupy.cuda.Device().synchronize()
            cupy_ms = timed(cupy_run, args.reps, torch)
        scale = float(expected.abs().max())
        error = float((result - expected).abs().max()) / max(scale, 1e-300)
        tolerance = 1e-10 if case["dtype"] == "float64" else 1e-4
        ok = error <= tolerance
        failures += not ok
        element = 8 if case["dtype"] == "float64" else 4
        moved = element * (sum(math.prod(s) for s in case["inputs"].values())
                           + result.numel())
        best = min(torch_ms, cupy_ms if cupy_ms == cupy_ms else torch_ms)
        ratios[case["id"]] = best / tl_ms
        print("%-16s %-7s %9.3f %9.3f %9.3f %7.2f %8.0f %5.0f%% %6.2f  %s"
              % (case["id"], case["dtype"], tl_ms, torch_ms, cupy_ms,
                 case["flops"] / (tl_ms * 1e-3) / 1e12,
                 moved / (tl_ms * 1e-3) / 1e9,
                 100 * moved / (tl_ms * 1e-3) / rate, best / tl_ms,
                 "ok %.1e" % error if ok else "FAILED %.1e" % error))
        for variant in args.variants.split(",") if args.variants else []:
            library = os.path.join(HERE, variant, "cases", case["library"])
            if not os.path.exists(library):
                continue
            other = tensorlang.load(library)
            result.fill_(float("nan"))
            variant_ms = timed(lambda: other(**arguments), args.reps, torch)
            variant_error = (float((result - expected).abs().max())
                             / max(scale, 1e-300))
            variant_ok = variant_error <= tolerance
            failures += not variant_ok
            print("  %-14s %-7s %9.3f %39s %6.2f  %s"
                  % (os.path.basename(os.path.normpath(variant)), "",
                     variant_ms, "main/variant", tl_ms / variant_ms,
                     "ok %.1e" % variant_error if variant_ok
                     else "FAILED %.1e" % variant_error))
        sys.stdout.flush()
        del values, arguments, result, expected
        torch.cuda.empty_cache()
    if ratios:
        print("geometric mean best peer / TensorLang: %.3f over %d cases"
              % (geometric_mean(ratios.values()), len(ratios)))
        # Issue 42's measures: the TCCG suite, its families, the cases
        # below 0.8 of the best peer.
        for family, ids in tccg_families(ratios).items():
            print("  %-14s %.3f over %d, %d below 0.8" % (
                family, geometric_mean(ratios[i] for i in ids), len(ids),
                sum(ratios[i] < 0.8 for i in ids)))
    for case in manifest:
        print("compile %-16s %.2f s (here)" % (case["id"],
                                              case["compile_seconds"]))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--make", metavar="OUT")
    parser.add_argument("--build", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--only", default="")
    parser.add_argument("--tl-flag", action="append", default=[],
                        help="with --make: a flag for tl-compile, such as "
                             "--gpu-register-tile=8 (repeatable)")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--tccg-suite", action="store_true",
                        help="all 48 TCCG cases, not four")
    parser.add_argument("--variants", default="",
                        help="there: other bundles (folders beside this "
                             "one's, or paths), each case timed from them "
                             "too")
    parser.add_argument("--budget", type=float, default=240,
                        help="seconds after which no further case starts")
    args = parser.parse_args()
    if args.make:
        make(args)
        return 0
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
