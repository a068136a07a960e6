"""C drivers for compiled kernels: a main that reads each argument of the
kernel from <name>.in (raw, storage order), calls it and writes each to
<name>.out. Shared by the tests that run objects where tl-run cannot (under
qemu, on a GPU machine)."""

import re

import numpy as np


def prototype(header, function="k"):
    """The arguments of `function` as the header declares it, as (kind,
    name) in order, kind "size" (int64_t, first) or "pointer"."""
    text = re.sub(r"/\*.*?\*/", "", header, flags=re.S)
    match = re.search(r"\bvoid\s+%s\s*\((.*?)\)\s*;" % function, text,
                      flags=re.S)
    assert match, header
    args = []
    for arg in match.group(1).split(","):
        words = arg.replace("*", " * ").split()
        args.append(("size" if words[0] == "int64_t" else "pointer",
                     words[-1]))
    return args


def size_values(source, store):
    """Each size's value: the extent of a variable of `store` that has it
    (a variable's declared extents name the sizes)."""
    # A batched variable's storage has the batch dimension first (or last,
    # with `batch [...] n last`).
    batch = re.search(r"^batch \[([^\]]*)\] \d+( last)?", source, re.M)
    batched = set(batch.group(1).split()) if batch else set()
    first = 1 if batch and not batch.group(2) else 0
    values = {}
    for name, extents in re.findall(r"^var (?:\w+ )*(\w+) : \[([^\]]*)\]",
                                    source, re.M):
        shift = first if name in batched else 0
        for axis, extent in enumerate(extents.split()):
            if not extent.isdigit() and name in store:
                values.setdefault(
                    extent, np.asarray(store[name]).shape[axis + shift])
    return values


def driver(args, scalar, sizes, counts, cuda=False):
    """The C source of the driver: `sizes` gives each size's value,
    `counts` each pointer argument's number of elements. With `cuda`, a GPU
    error (tensorlang_cuda_last_error) is printed and exits 3."""
    lines = ["#include <stdio.h>", "#include <stdlib.h>", '#include "k.h"']
    if cuda:
        lines.append('#include "tensorlang-c/CUDARuntime.h"')
    lines += ["static void *load(const char *path, size_t n) {",
              "  void *data = malloc(n ? n : 1);",
              "  FILE *f = fopen(path, \"rb\");",
              "  if (!f || fread(data, 1, n, f) != n) { perror(path); exit(2); }",
              "  fclose(f); return data; }",
              "static void save(const char *path, const void *data, size_t n) {",
              "  FILE *f = fopen(path, \"wb\");",
              "  if (!f || fwrite(data, 1, n, f) != n) { perror(path); exit(2); }",
              "  fclose(f); }",
              "int main(void) {"]
    call = []
    for kind, name in args:
        if kind == "size":
            call.append("%dLL" % sizes[name])
            continue
        lines.append('  %s *%s = load("%s.in", %d * sizeof(%s));' % (
            scalar, name, name, counts[name], scalar))
        call.append(name)
    lines.append("  k(%s);" % ", ".join(call))
    if cuda:
        lines += ["  const char *error = tensorlang_cuda_last_error();",
                  "  if (error) { fprintf(stderr, \"%s\\n\", error); return 3; }"]
    for kind, name in args:
        if kind == "pointer":
            lines.append('  save("%s.out", %s, %d * sizeof(%s));' % (
                name, name, counts[name], scalar))
    lines += ["  return 0;", "}"]
    return "\n".join(lines) + "\n"


def write_inputs(directory, args, store, dtype):
    """Writes each pointer argument's initial value to <name>.in; returns
    the element counts."""
    counts = {}
    for kind, name in args:
        if kind == "pointer":
            value = np.ascontiguousarray(store[name], dtype=dtype)
            value.tofile(directory / (name + ".in"))
            counts[name] = value.size
    return counts
