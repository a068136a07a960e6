"""Random well-typed tensor language programs, with a NumPy evaluator of the
report's semantics written independently of the project's C++ code.

The generator keeps programs checkable across implementations that sum in
different orders: input values are small integers (so sums of products are
exact), and no division has a division below it (so whether a dividend is
exactly zero, which controlled division depends on, never depends on
rounding). The extensions keep that: literals below a division or a
function are dyadic (exact), and sqrt, exp and log, whose results are
rounded, appear only where no division or function above depends on an
exact value; exp only as exp(-abs(e)), so that no huge value makes sums
cancel differently in different orders.
"""

import random

import numpy as np


class Program:
    """A generated program: declarations, statements and its source text."""

    def __init__(self, decls, stmts, batch=None, sizes=None):
        self.decls = decls  # [(name, shape, qualifiers)]
        self.stmts = stmts  # [(target, expr)]
        # (extent, last, batched names) of a batch program; shapes are an
        # element's.
        self.batch = batch
        # {size name: the extent it stands for}: the source declares the
        # sizes and writes each such extent as its size (every one of them,
        # so the program stays well-typed; see Generator.sized_program).
        self.sizes = sizes or {}

    def bind(self, values):
        """The program with each size's extent replaced by `values[size]`:
        the meaning of the source for those values, without sizes."""
        mapping = {extent: values[name] for name, extent in self.sizes.items()}

        def shape(s):
            return tuple(mapping.get(d, d) for d in s)

        def node(expr):
            parts = []
            for part in expr[1:-1]:
                if isinstance(part, tuple) and part and isinstance(part[0], str) \
                        and part[0] in KINDS:
                    part = node(part)
                elif expr[0] == "stack":
                    part = tuple(node(e) for e in part)
                parts.append(part)
            return (expr[0],) + tuple(parts) + (shape(expr[-1]),)

        return Program([(n, shape(s), q) for n, s, q in self.decls],
                       [(t, node(e)) for t, e in self.stmts], self.batch)

    @property
    def live_out(self):
        """The variables whose final values the caller sees: the outputs if
        any variable has a qualifier, else all."""
        if any(quals for _, _, quals in self.decls):
            return [n for n, _, q in self.decls if "output" in q]
        return [n for n, _, _ in self.decls]

    @property
    def shapes(self):
        return {name: shape for name, shape, _ in self.decls}

    @property
    def storage_shapes(self):
        """The shapes of the variables' values as the caller holds them:
        a batched variable's with the batch dimension."""
        shapes = self.shapes
        if self.batch:
            extent, last, names = self.batch
            for name in names:
                shapes[name] = (shapes[name] + (extent,) if last
                                else (extent,) + shapes[name])
        return shapes

    def source(self):
        lines = ["size %s" % name for name in self.sizes]
        names = {extent: name for name, extent in self.sizes.items()}
        for name, shape, quals in self.decls:
            lines.append("var %s%s : [%s]" % (
                "".join(q + " " for q in quals), name,
                " ".join(names.get(d, str(d)) for d in shape)))
        if self.batch:
            extent, last, names = self.batch
            lines.append("batch [%s] %d%s" % (
                " ".join(n for n, _, _ in self.decls if n in names), extent,
                " last" if last else ""))
        lines.append("")
        for target, expr in self.stmts:
            lines.append("%s = %s" % (target, to_source(expr)))
        return "\n".join(lines) + "\n"


# Expression trees: ("var", name, shape) | ("lit", text, shape)
# | ("outer", a, b, shape) | ("contract", a, pairs, shape)
# | ("transpose", a, pairs, shape) | ("arith", op, a, b, shape) with op one
# of + - * / min max | ("unary", fn, a, shape) with fn one of
# - sqrt abs exp log | ("stack", (e1, ..., ek), shape). Pairs are 0-based.

KINDS = ("var", "lit", "outer", "contract", "transpose", "arith", "unary",
         "stack")

# Literals whose products and sums with small integers stay exact, and
# others.
EXACT_LITERALS = ["0", "1", "2", "3", "0.5", "0.25", "2.5E+1"]
INEXACT_LITERALS = ["0.1", "1e-3", "3.75e2", "1.5"]


def subexpressions(expr):
    if expr[0] == "stack":
        return list(expr[1])
    return [e for e in expr[1:] if isinstance(e, tuple) and e
            and isinstance(e[0], str) and e[0] in KINDS]


def reads_of(expr):
    """The variables an expression reads."""
    if expr[0] == "var":
        return {expr[1]}
    return set().union(*(reads_of(e) for e in subexpressions(expr)))


def shape_of(expr):
    return expr[-1]


def to_source(expr):
    """Fully parenthesized source text, with 1-based indices."""
    kind = expr[0]
    if kind in ("var", "lit"):
        return expr[1]
    if kind == "unary":
        if expr[1] == "-":
            return "(-%s)" % to_source(expr[2])
        return "%s(%s)" % (expr[1], to_source(expr[2]))
    if kind == "stack":
        return "[%s]" % ", ".join(to_source(e) for e in expr[1])
    if kind == "arith" and expr[1] in ("min", "max"):
        return "%s(%s, %s)" % (expr[1], to_source(expr[2]), to_source(expr[3]))
    if kind == "outer":
        return "(%s # %s)" % (to_source(expr[1]), to_source(expr[2]))
    if kind in ("contract", "transpose"):
        pairs = expr[2]
        text = " ".join("[%d %d]" % (m + 1, n + 1) for m, n in pairs)
        if len(pairs) > 1:
            text = "[" + text + "]"
        op = "." if kind == "contract" else "^"
        return "(%s %s %s)" % (to_source(expr[1]), op, text)
    return "(%s %s %s)" % (to_source(expr[2]), expr[1], to_source(expr[3]))


def stack_extents(expr):
    """The extents that stacks in an expression create (their element
    counts): a literal number of elements, never a size."""
    found = {shape_of(expr)[0]} if expr[0] == "stack" else set()
    return found.union(*(stack_extents(e) for e in subexpressions(expr)))


def has_division(expr):
    if expr[0] == "arith" and expr[1] == "/":
        return True
    return any(has_division(e) for e in subexpressions(expr))


class Generator:
    def __init__(self, seed, max_extent=3, max_rank=3, max_depth=4,
                 extensions=True):
        self.rng = random.Random(seed)
        self.max_extent = max_extent
        self.max_rank = max_rank
        self.max_depth = max_depth
        # Literals, unary minus, scalars on either side, min/max and the
        # functions (docs/language.md, extensions).
        self.extensions = extensions

    def program(self, qualifiers=False):
        rng = self.rng
        decls = [("s0", (), [])]
        # One vector per extent, so that every type can be built from
        # outer products.
        for d in range(1, self.max_extent + 1):
            decls.append(("v%d" % d, (d,), []))
        for i in range(rng.randint(2, 5)):
            rank = rng.randint(0, self.max_rank)
            shape = tuple(rng.randint(1, self.max_extent) for _ in range(rank))
            decls.append(("t%d" % i, shape, []))
        if qualifiers:
            # Some variables are locals (no qualifier).
            decls = [(n, s, rng.choice(["input", "output", "input output", ""]).split())
                     for n, s, _ in decls]
        self.decls = decls
        stmts = []
        for _ in range(rng.randint(1, 6)):
            name, shape, _ = rng.choice(decls)
            if rng.random() < 0.25:
                # A plain copy: aliasing between variables (t = a; a = ...).
                stmts.append((name, ("var", rng.choice(self.vars_of(shape)), shape)))
            else:
                stmts.append((name, self.expr(shape, self.max_depth, True)))
        if qualifiers:
            # A variable read before it is assigned must be an input (the
            # frontend rejects the program otherwise); one output at least.
            defined = {n for n, _, q in decls if "input" in q}
            needs_input = set()
            for target, expr in stmts:
                needs_input |= reads_of(expr) - defined
                defined.add(target)
            decls = [(n, s, (["input"] if n in needs_input else []) + q)
                     for n, s, q in decls]
            if not any("output" in q for _, _, q in decls):
                n, s, q = decls[-1]
                decls[-1] = (n, s, q + ["output"])
        return Program(decls, stmts)

    def batch_program(self, qualifiers=False):
        """A program with a batch: some variables batched, and as many more
        as rules t-batch and t-batch-shared need (docs/language.md)."""
        rng = self.rng
        program = self.program(qualifiers)
        names = [n for n, _, _ in program.decls]
        batched = set(rng.sample(names, rng.randint(1, len(names))))
        while True:
            grown = set(batched)
            assigned_shared = {t for t, _ in program.stmts} - grown
            assigned = set()
            for target, expr in program.stmts:
                reads = reads_of(expr)
                # t-batch: a value read from the batch goes to the batch.
                if reads & grown:
                    grown.add(target)
                # t-batch-shared: no shared variable read before it is
                # assigned.
                grown |= (reads & assigned_shared) - assigned
                assigned.add(target)
            if grown == batched:
                break
            batched = grown
        extent = rng.choice([1, 2, 3, 5])
        program.batch = (extent, rng.random() < 0.5, batched)
        return program

    def sized_program(self, qualifiers=False, batch=False):
        """A program with one or two sizes: each stands for every
        occurrence of one extent (rule t-contr and the others compare
        extents syntactically, so replacing all of them keeps the program
        well-typed), except an extent a stack creates, which is a number."""
        rng = self.rng
        while True:
            program = (self.batch_program(qualifiers) if batch
                       else self.program(qualifiers))
            stacked = set().union(*(stack_extents(e) for _, e in program.stmts))
            candidates = [d for d in range(1, self.max_extent + 1)
                          if d not in stacked]
            if candidates:
                break
        chosen = rng.sample(candidates, min(len(candidates), rng.randint(1, 2)))
        program.sizes = dict(zip(["N", "M"], chosen))
        return program

    def vars_of(self, shape):
        return [n for n, s, _ in self.decls if s == shape]

    def expr(self, shape, depth, allow_div):
        """An expression of type `shape`. `allow_div`: no division or
        function above needs this value exact, so it may divide and round."""
        rng = self.rng
        candidates = self.vars_of(shape)
        if depth == 0 or (candidates and rng.random() < 0.25):
            if not shape and self.extensions and rng.random() < 0.3:
                return ("lit", rng.choice(EXACT_LITERALS if not allow_div
                                          else EXACT_LITERALS + INEXACT_LITERALS), ())
            if candidates:
                return ("var", rng.choice(candidates), shape)
            return self.build_from_vectors(shape)
        choice = rng.random()
        if self.extensions and choice < 0.12:
            return self.unary(shape, depth, allow_div)
        if self.extensions and shape and shape[0] <= 3 and rng.random() < 0.1:
            elements = tuple(self.expr(shape[1:], depth - 1, allow_div)
                             for _ in range(shape[0]))
            return ("stack", elements, shape)
        if choice < 0.25:
            ops = ["+", "-", "*", "/"] if allow_div else ["+", "-", "*"]
            if self.extensions:
                ops += ["min", "max"]
            op = rng.choice(ops)
            sub_div = allow_div and op != "/"
            if shape and (self.extensions or op in "*/") and rng.random() < 0.3:
                # A scalar with a tensor: the report's t-smul (s * e) and
                # t-sdiv (e / s), and with the extensions any operation,
                # the scalar on either side (t-scalar).
                scalar = self.expr((), depth - 1, sub_div)
                tensor = self.expr(shape, depth - 1, sub_div)
                if self.extensions:
                    scalar_first = rng.random() < 0.5
                else:
                    scalar_first = op == "*"
                if scalar_first:
                    return ("arith", op, scalar, tensor, shape)
                return ("arith", op, tensor, scalar, shape)
            return ("arith", op, self.expr(shape, depth - 1, sub_div),
                    self.expr(shape, depth - 1, sub_div), shape)
        if choice < 0.45 and shape:
            cut = rng.randint(0, len(shape))
            return ("outer", self.expr(shape[:cut], depth - 1, allow_div),
                    self.expr(shape[cut:], depth - 1, allow_div), shape)
        if choice < 0.8 and len(shape) + 2 <= self.max_rank + 2:
            return self.contraction(shape, depth, allow_div)
        if len(shape) >= 2:
            return self.transposition(shape, depth, allow_div)
        return self.contraction(shape, depth, allow_div)

    def unary(self, shape, depth, allow_div):
        rng = self.rng
        fn = rng.choice(["-", "abs", "sqrt", "exp", "log"] if allow_div
                        else ["-", "abs"])
        if fn in ("-", "abs"):
            return ("unary", fn, self.expr(shape, depth - 1, allow_div), shape)
        # Rounded results, of exact operands: whether the operand of sqrt or
        # log is negative or zero never depends on summation order.
        operand = self.expr(shape, depth - 1, False)
        if fn == "exp":
            operand = ("unary", "-", ("unary", "abs", operand, shape), shape)
        return ("unary", fn, operand, shape)

    def contraction(self, shape, depth, allow_div):
        rng = self.rng
        npairs = 1 if rng.random() < 0.7 else 2
        operand = list(shape)
        positions = []
        for _ in range(npairs):
            extent = rng.randint(1, self.max_extent)
            for _ in range(2):
                at = rng.randint(0, len(operand))
                operand.insert(at, extent)
                positions = [p + (p >= at) for p in positions]
                positions.append(at)
        pairs = [(positions[2 * i], positions[2 * i + 1]) for i in range(npairs)]
        pairs = [(m, n) if rng.random() < 0.5 else (n, m) for m, n in pairs]
        # Contraction does not divide, but keep the rule simple: what sits
        # under a sum may divide only if nothing above divides.
        sub = self.expr(tuple(operand), depth - 1, allow_div)
        return ("contract", sub, pairs, shape)

    def transposition(self, shape, depth, allow_div):
        rng = self.rng
        pairs = [tuple(rng.sample(range(len(shape)), 2))
                 for _ in range(rng.randint(1, 2))]
        operand = list(shape)
        for m, n in reversed(pairs):
            operand[m], operand[n] = operand[n], operand[m]
        sub = self.expr(tuple(operand), depth - 1, allow_div)
        return ("transpose", sub, pairs, shape)

    def build_from_vectors(self, shape):
        if not shape:
            return ("var", "s0", ())
        expr = ("var", "v%d" % shape[0], (shape[0],))
        for i, d in enumerate(shape[1:], start=2):
            expr = ("outer", expr, ("var", "v%d" % d, (d,)), shape[:i])
        return expr

    def values(self, program, undefined_fraction=0.1):
        """Small integers, some zero, some undefined (NaN) where allowed."""
        store = {}
        shapes = program.storage_shapes
        for name, _, quals in program.decls:
            shape = shapes[name]
            a = np.array(self.rng.choices(range(-2, 3), k=int(np.prod(shape, dtype=int))),
                         dtype=np.float64).reshape(shape)
            if not any("input" in q for q in quals):
                mask = np.array([self.rng.random() < undefined_fraction
                                 for _ in range(a.size)],
                                dtype=bool).reshape(shape)
                a[mask] = np.nan
            store[name] = a
        return store


def controlled_divide(a, b):
    """Definition 5 of the report, on arrays: 0/0 = 0, 0/undef = 0,
    v/0 = undef for v != 0, undef/w = undef."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        q = a / b
    q = np.where((a == 0) & ((b == 0) | np.isnan(b)), 0.0, q)
    q = np.where((a != 0) & (b == 0), np.nan, q)
    return q


def evaluate(expr, store):
    kind = expr[0]
    if kind == "var":
        return store[expr[1]]
    if kind == "lit":
        return np.float64(float(expr[1]))
    if kind == "stack":
        return np.stack([np.asarray(evaluate(e, store), dtype=float)
                         for e in expr[1]])
    if kind == "unary":
        a = np.asarray(evaluate(expr[2], store), dtype=float)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            if expr[1] == "-":
                return -a
            if expr[1] == "abs":
                return np.abs(a)
            if expr[1] == "sqrt":
                return np.sqrt(a)
            if expr[1] == "exp":
                return np.exp(a)
            # log 0 is undefined, like v / 0 (docs/language.md).
            return np.where(a == 0, np.nan, np.log(a))
    if kind == "outer":
        return np.multiply.outer(evaluate(expr[1], store), evaluate(expr[2], store))
    if kind == "transpose":
        a = evaluate(expr[1], store)
        for m, n in expr[2]:
            a = np.swapaxes(a, m, n)
        return a
    if kind == "contract":
        a = evaluate(expr[1], store)
        letters = [chr(ord("a") + i) for i in range(a.ndim)]
        for k, (m, n) in enumerate(expr[2]):
            letters[m] = letters[n] = chr(ord("A") + k)
        out = "".join(l for l in letters if l.islower())
        return np.asarray(np.einsum("".join(letters) + "->" + out, a))
    op, a, b = expr[1], evaluate(expr[2], store), evaluate(expr[3], store)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if op == "min":
        return np.minimum(a, b)
    if op == "max":
        return np.maximum(a, b)
    return controlled_divide(a, b)


def run(program, store):
    """The report's program evaluation: each statement's right-hand side is
    evaluated against the store before the variable is updated. A batch
    program runs once per element, on the element's slices of the batched
    variables."""
    store = {k: np.array(v, dtype=float) for k, v in store.items()}
    if not program.batch:
        run_statements(program, store)
        return store
    extent, last, names = program.batch
    axis = -1 if last else 0
    for e in range(extent):
        element = {k: (np.take(v, e, axis=axis).copy() if k in names else v)
                   for k, v in store.items()}
        run_statements(program, element)
        for k, v in element.items():
            if k in names:
                index = (Ellipsis, e) if last else (e, Ellipsis)
                store[k][index] = v
            else:
                store[k] = v
    return store


def run_statements(program, store):
    for target, expr in program.stmts:
        store[target] = np.array(evaluate(expr, store), dtype=float).reshape(
            program.shapes[target])
