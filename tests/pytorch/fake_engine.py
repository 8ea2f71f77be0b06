"""A stand-in for liboxport's trace API that records calls in Python, so the
recording layer can be tested without the engine (and its output asserted exactly)."""


from oxport import _engine as E


class Node:
    def __init__(self, kind, args, outs, scope):
        self.kind = kind
        self.args = args      # [(name, kind, value)]
        self.outs = outs      # [vid]
        self.scope = scope

    def arg(self, name):
        for n, _k, v in self.args:
            if n == name:
                return v
        raise KeyError(f"{self.kind} has no argument {name}: {[a[0] for a in self.args]}")

    def arg_names(self):
        return [a[0] for a in self.args]


class FakeLib:
    def __init__(self):
        self.nodes = []
        self.inputs = []
        self.params = {}      # vid -> (name, shape, ptr)
        self.consts = {}      # vid -> shape
        self.outputs = []
        self.fixed = []  # ([vid, ...], warning) handed to the engine
        self.scope = []
        self.next = 1
        self.model_name = None

    def _new(self):
        v = self.next
        self.next += 1
        return v

    def ox_trace_begin(self, h, name, out):
        self.model_name = name.decode()
        out._obj.value = 1
        return 0

    def ox_trace_abort(self, t):
        pass

    def ox_trace_input(self, t, name, dt, rank, sizes, out):
        v = self._new()
        self.inputs.append(v)
        out._obj.value = v
        return 0

    def ox_trace_param(self, t, name, dt, rank, sizes, ptr, own, out):
        v = self._new()
        self.params[v] = (name.decode(), [sizes[i] for i in range(rank)], ptr)
        out._obj.value = v
        return 0

    def ox_trace_const(self, t, dt, rank, sizes, ptr, own, out):
        v = self._new()
        self.consts[v] = [sizes[i] for i in range(rank)]
        out._obj.value = v
        return 0

    def ox_trace_op(self, t, kind, n, args, nout, descs, ids):
        rec = []
        for i in range(n):
            a = args[i]
            k = a.kind
            if k == E.ARG_TENSOR:
                v = a.u.tensor
            elif k in (E.ARG_INT, E.ARG_BOOL, E.ARG_DTYPE):
                v = a.u.i
            elif k == E.ARG_NONE:
                v = None
            elif k == E.ARG_FLOAT:
                v = a.u.f
            elif k == E.ARG_STRING:
                v = a.u.s.decode()
            elif k == E.ARG_INTS:
                v = [a.u.ints.data[j] for j in range(a.u.ints.n)]
            elif k == E.ARG_FLOATS:
                v = [a.u.floats.data[j] for j in range(a.u.floats.n)]
            elif k == E.ARG_TENSOR_LIST:
                v = [a.u.tensors.data[j] for j in range(a.u.tensors.n)]
            rec.append((a.name.decode(), k, v))
        outs = []
        for i in range(nout):
            o = self._new()
            ids[i] = o
            outs.append(o)
        self.nodes.append(Node(kind.decode(), rec, outs, "/".join([self.model_name] + self.scope)))
        return 0

    def ox_trace_push_scope(self, t, seg):
        self.scope.append(seg.decode())
        return 0

    def ox_trace_pop_scope(self, t):
        self.scope.pop()
        return 0

    def ox_trace_output(self, t, v, name):
        self.outputs.append(v)
        return 0

    def ox_trace_fixed_values(self, t, n, values, warning):
        self.fixed.append(([values[i] for i in range(n)], warning.decode()))
        return 0

    def ox_trace_finish(self, t, out):
        out._obj.value = 1
        return 0


class FakeContext:
    def __init__(self):
        self.L = FakeLib()
        self.h = None

    def check(self, st, call):
        assert st == 0, call
