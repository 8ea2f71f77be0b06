"""export_modules_as_functions: which module types become ONNX local functions.

The engine turns every scope instance of a named type into a call of a model-local
function (ox_export_options.function_types, entries "domain::Type"). Like torch.onnx
1.13, a function's domain is the Python module that defines the class
(`__main__`, `torch.nn.modules.linear`) and its name the class name; the model itself
(the root scope) stays the graph.
"""
import torch

# torch.onnx 1.13's own words (torch/onnx/utils.py), so code catching it keeps working.
BELOW_OPSET_15 = ("`export_modules_as_functions` is not supported for `opset_version` < 15."
                  "This is because `opset_version` < 15 implies IR version < 8, which means "
                  "no local function support. ")

MIN_OPSET = 15


def _is_module_type(t):
    return isinstance(t, type) and issubclass(t, torch.nn.Module)


def validate(value):
    """False/True or a set of nn.Module subclasses; anything else is refused by name."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (set, frozenset)):
        for t in value:
            if not isinstance(t, type):  # torch.onnx 1.13's own error
                raise RuntimeError("Only type of the `nn.Module` should be passed in the set for "
                                   "argument `export_modules_as_functions`. Got `%s`." % type(t).__name__)
        if all(_is_module_type(t) for t in value):
            return value
    # torch.onnx ignores other values (a list, say) without a word; a user who passed one
    # meant functions, so say how to ask for them.
    raise ValueError(f"oxport.torch.export: export_modules_as_functions={value!r} must be True, False "
                     f"or a set of torch.nn.Module subclasses, e.g. {{torch.nn.TransformerEncoderLayer}}")


def selected_types(model, value, opset):
    """The engine's entries ("module::Class") for `value`; [] when no functions."""
    if value is False or value == set() or value == frozenset():
        return []
    if opset < MIN_OPSET:
        raise ValueError(BELOW_OPSET_15)
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"oxport.torch.export: export_modules_as_functions needs the model to be a "
                         f"torch.nn.Module (its submodules become functions), not {type(model).__name__}")
    if value is True:
        types = {type(m) for m in model.modules() if m is not model}
    else:
        types = set(value)
    # A scope names its module by class name only: two selected classes sharing a
    # name could not be told apart.
    by_name = {}
    for t in types:
        other = by_name.setdefault(t.__name__, t)
        if other is not t:
            a, b = sorted([f"{other.__module__}.{other.__qualname__}", f"{t.__module__}.{t.__qualname__}"])
            raise ValueError(f"oxport.torch.export: export_modules_as_functions selects two module types "
                             f"named {t.__name__!r} ({a} and {b}); oxport tells modules apart by class "
                             f"name, so select only one of them")
    return sorted(f"{t.__module__}::{t.__name__}" for t in types)
