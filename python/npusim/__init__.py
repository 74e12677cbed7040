"""npusim from Python: configs, testbenches, runs and sweeps as Python objects.

    import npusim
    cfg = npusim.Config.load("edge-npu").set("compute.units", 2)
    tb = npusim.Testbench.load("testbenches/hello.yaml")
    result = npusim.run(cfg, tb)
    print(result.simulated_ns, result.phases["execute_ns"])
    df = result.to_pandas("launches")

Runs happen in this process, each in a fresh simulation context; sweeps run each point in
a process of its own, as `npusim sweep` does. Errors are exceptions carrying the command
line's message and where the problem is (see Error).
"""

from ._errors import (ConfigError, Error, InputError, ModelError, OutputError, SimulationError,
                      SweepError, TestbenchError)
from ._inputs import Config, Testbench, import_onnx
from ._result import TABLES, Result, run
from ._sweep import SweepResult, sweep
from ._core import VERSION as __version__

__all__ = [
    "Config", "Testbench", "import_onnx", "run", "Result", "TABLES", "sweep", "SweepResult",
    "Error", "InputError", "ConfigError", "TestbenchError", "ModelError", "SweepError",
    "SimulationError", "OutputError",
]
