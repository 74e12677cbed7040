"""npusim's exceptions. Each carries the one line the command line prints for the same
problem (without its "npusim: " prefix) and, where the problem is in a file, where."""


class Error(Exception):
    """Base of every npusim error.

    message: the command line's line for the same problem, without "npusim: "
    file, line, column: where it is (None where unknown; line and column count from 1)
    key: the dotted key it is about ("compute.units"), or None
    """

    def __init__(self, message, file=None, line=None, column=None, key=None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.key = key

    @property
    def location(self):
        """"file:line:col", "file", or None: what the message starts with."""
        if self.file is None:
            return None
        if self.line is None:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"

    def __reduce__(self):
        return (type(self), (self.message, self.file, self.line, self.column, self.key))


class InputError(Error):
    """A bad input (the command line exits with status 2)."""


class ConfigError(InputError):
    """A hardware config, or a setting of one, that npusim refuses."""


class TestbenchError(InputError):
    """A testbench, a setting of one, or a testbench that does not fit its config."""

    __test__ = False  # not a test class (pytest)


class ModelError(InputError):
    """An ONNX model that cannot be imported, or import options that do not fit it."""


class SweepError(InputError):
    """A sweep file or sweep options that npusim refuses."""


class SimulationError(Error):
    """A workload that cannot finish (a deadlock, a stuck run, an invalid access) or a run
    that passed one of its limits (limits.sim_time, limits.wall_time, limits.memory)."""


class OutputError(Error):
    """An output that could not be written (a full disk, an I/O error)."""
