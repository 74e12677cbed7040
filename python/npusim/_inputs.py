"""Configs, testbenches and ONNX models, loaded and checked as the command line does."""

import json
import os
import warnings

from . import _core, _paths
from ._errors import ModelError


def setting(key, value):
    """`key=value` as --set and --tb-set take it: Python values written as YAML."""
    if not isinstance(key, str) or not key:
        raise TypeError(f"a setting's key is a non-empty string, got {key!r}")
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float, str)):
        text = str(value)
    elif isinstance(value, (list, tuple, dict)) or value is None:
        text = json.dumps(value)  # JSON is YAML's flow style
    else:
        raise TypeError(f"{key}: cannot write a {type(value).__name__} as a setting; "
                        "use a number, a string, a bool, a list or a dict")
    return f"{key}={text}"


def _lookup(document, key):
    node = document
    for part in key.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise KeyError(key)
    return node


class _Settable:
    """What Config and Testbench share: settings applied by reloading with the whole list,
    so that each one gets every check the command line makes."""

    def _load(self, overrides):
        raise NotImplementedError

    def _apply(self, overrides):
        self._handle = self._load(overrides)  # raises, leaving the object as it was
        self._overrides = tuple(overrides)

    def set(self, key, value):
        """Applies `key=value` and returns the object itself."""
        self._apply(self._overrides + (setting(key, value),))
        return self

    def copy(self):
        """An independent copy (settings included)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        return other

    def get(self, key):
        """A dotted key's value ("compute.units", "kernels.gemm.m"), as to_dict() has it."""
        return _lookup(self.to_dict(), key)

    @property
    def name(self):
        return self._handle.name

    @property
    def path(self):
        """The file it was read from."""
        return self._handle.file

    @property
    def overrides(self):
        """The settings applied, as the command line's options take them ("compute.units=8")."""
        return list(self._overrides)

    def __repr__(self):
        return (f"<npusim.{type(self).__name__} {self.name} ({self.path}), "
                f"{len(self._overrides)} settings>")


class Config(_Settable):
    """A hardware configuration: a YAML file (or a config's name, such as "edge-npu"),
    with settings applied as `npusim run --set` applies them.

        cfg = npusim.Config.load("edge-npu").set("compute.units", 8)

    Every set() checks the whole config again, as the command line would, and raises
    ConfigError with its message; a failed set() leaves the config as it was.
    """

    def __init__(self, path, overrides=()):
        self._path = os.fspath(path)
        self._apply(tuple(overrides))

    def _load(self, overrides):
        return _core.load_config(self._path, list(overrides), _paths.DATA_DIR)

    @classmethod
    def load(cls, path):
        """Loads a config file, or a config by name ("edge-npu")."""
        return cls(path)

    def to_dict(self):
        """Every key with its value after extends, defaults and settings, as the report's
        `config` section has it."""
        return self._handle.effective()


class Testbench(_Settable):
    """A workload: a YAML testbench (or one imported from ONNX, see import_onnx), with
    settings applied as `npusim run --tb-set` applies them.

        tb = npusim.Testbench.load("testbenches/hello.yaml").set("kernels.gemm.m", 512)

    A failed set() raises TestbenchError and leaves the testbench as it was.
    """

    __test__ = False  # not a test class (pytest)

    def __init__(self, path=None, overrides=(), text=None, origin=None):
        self._path = None if path is None else os.fspath(path)
        self._text = text
        self._origin = origin if origin is not None else self._path
        self._apply(tuple(overrides))

    def _load(self, overrides):
        if self._text is None:
            return _core.load_testbench(self._path, list(overrides))
        return _core.load_testbench_text(self._text, self._origin, list(overrides))

    @classmethod
    def load(cls, path):
        """Loads a testbench file."""
        return cls(path)

    @classmethod
    def from_text(cls, text, origin="<text>"):
        """A testbench from YAML text; `origin` names it in messages and reports."""
        return cls(text=text, origin=origin)

    @classmethod
    def from_dict(cls, document, origin="<dict>"):
        """A testbench from a dict with the keys a testbench file has."""
        return cls(text=json.dumps(document, indent=1), origin=origin)

    def to_dict(self):
        """The testbench after settings, as the report's `testbench` section has it (values
        as written: "256", "16KiB")."""
        return self._handle.document()


_DTYPES = ("int8", "fp16", "bf16", "fp32")


def _check_choice(option, value, choices):
    if value not in choices:
        raise ModelError(f"error: {option}: expected one of {', '.join(choices)}, got {value!r}",
                         key=option)


def _check_count(option, value, low, high):
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ModelError(f"error: {option}: expected a whole number from {low} to {high}, "
                         f"got {value!r}", key=option)


def _shape_text(shape):
    if isinstance(shape, str):
        return shape
    return "x".join(str(d) for d in shape)


def import_onnx(path, batch=None, shapes=None, dtype="int8", fuse="none", streams=1, name=None,
                dims=None, unsupported="error"):
    """An ONNX model as a testbench, as `npusim import` makes it (and `run --model` runs it).

    batch: binds the first dimension of every input (None: as the model says)
    shapes: {input: "1x3x224x224" or (1, 3, 224, 224)}, an input's whole shape
    dtype: "int8", "fp16", "bf16" or "fp32", the data type of every op
    fuse: "none", or "elementwise": elementwise nodes join their producer's kernel
    streams: streams for independent branches (1 to 64)
    name: the testbench's name (None: the model file's stem)
    dims: {symbolic dimension: value}
    unsupported: "error", or "memcpy": an unsupported node becomes a copy, with a warning

    Raises ModelError with the command line's message for a model it cannot import.
    """
    if batch is not None:
        _check_count("batch", batch, 1, 1 << 24)
    _check_choice("dtype", dtype, _DTYPES)
    _check_choice("fuse", fuse, ("none", "elementwise"))
    _check_count("streams", streams, 1, 64)
    _check_choice("unsupported", unsupported, ("error", "memcpy"))
    path = os.fspath(path)
    shape_list = [f"{k}={_shape_text(v)}" for k, v in (shapes or {}).items()]
    dim_list = [f"{k}={v}" for k, v in (dims or {}).items()]
    text, notes, *_ = _core.import_onnx(path, batch or 0, dtype, fuse == "elementwise", streams,
                                        name or "", dim_list, shape_list, unsupported == "memcpy")
    for note in notes:
        warnings.warn(f"{note}: not supported, mapped to a copy", stacklevel=2)
    return Testbench(text=text, origin=path)
