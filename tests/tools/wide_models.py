"""ONNX files that are wide in one direction (many initializers, op types,
attributes, opset imports or modules), for the tools tests that run the CLI on
them and for benchmarks/cli_scaling.py, which times the CLI on each at n and 4n
items.  Each maker takes the item count."""
from onnx import TensorProto, helper


def _vi(name, shape=(1,)):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _io_graph(nodes, k, inits=()):
    outs = [f"y{i}" for i in range(k)] if k > 1 else ["y"]
    return helper.make_graph(nodes, "g", [_vi("x")], [_vi(o) for o in outs], initializer=list(inits))


def initializers(k):
    """One Sum over k initializers."""
    inits = [helper.make_tensor(f"p{i}", TensorProto.FLOAT, [1], [1.0]) for i in range(k)]
    node = helper.make_node("Sum", [f"p{i}" for i in range(k)], ["y"])
    g = helper.make_graph([node], "g", [], [_vi("y")], initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def op_types(k):
    """k nodes of k distinct custom op types."""
    nodes = [helper.make_node(f"Op{i}", ["x"], [f"y{i}"], domain="custom") for i in range(k)]
    return helper.make_model(_io_graph(nodes, k), opset_imports=[helper.make_opsetid("", 13),
                                                                 helper.make_opsetid("custom", 1)])


def attributes(k):
    """One custom node with k attributes."""
    node = helper.make_node("Op", ["x"], ["y"], domain="custom", **{f"a{i}": i for i in range(k)})
    return helper.make_model(_io_graph([node], 1), opset_imports=[helper.make_opsetid("", 13),
                                                                  helper.make_opsetid("custom", 1)])


def domains(k):
    """k nodes, each in a domain of its own with its own opset import."""
    nodes = [helper.make_node("Op", ["x"], [f"y{i}"], domain=f"d{i}") for i in range(k)]
    return helper.make_model(_io_graph(nodes, k), opset_imports=[helper.make_opsetid("", 13)] +
                             [helper.make_opsetid(f"d{i}", 1) for i in range(k)])


def modules(k):
    """A chain of k Relus, each in a module of its own under one parent (doc_string scopes)."""
    vi = lambda n: helper.make_tensor_value_info(n, TensorProto.FLOAT, [2])  # noqa: E731
    nodes = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"], doc_string=f"Top/M[m{i}]") for i in range(k)]
    return helper.make_model(helper.make_graph(nodes, "g", [vi("v0")], [vi(f"v{k}")]),
                             opset_imports=[helper.make_opsetid("", 13)])


# (name, maker, n, the CLI's arguments with "{}" for the file): what the tests run at
# 4n and the benchmark times at n and 4n.
CASES = [
    ("diff-initializers", initializers, 10000, ("diff", "{}", "{}")),
    ("diff-op-types", op_types, 4000, ("diff", "{}", "{}")),
    ("diff-attributes", attributes, 10000, ("diff", "{}", "{}")),
    ("check-attributes", attributes, 10000, ("check", "{}")),
    ("check-domains", domains, 4000, ("check", "{}")),
    ("dump-text-domains", domains, 4000, ("dump", "{}", "--format", "text")),
    ("dump-json-domains", domains, 4000, ("dump", "{}", "--format", "json")),
    ("dump-dot-domains", domains, 4000, ("dump", "{}", "--format", "dot")),
    ("dump-dot-depth-modules", modules, 4000, ("dump", "{}", "--format", "dot", "--depth", "1")),
]
