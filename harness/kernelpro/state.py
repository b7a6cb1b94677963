"""What the adapter's phases share, declared once: the attributes kp_torch.Adapter sets up and the
methods it (or a test's stand-in) provides, which the mixins kernelpro.correctness.Correctness and
kernelpro.timing.Timing use. Declarations only: nothing here runs, and a phase that uses an attribute
not listed here is a type error (mypy.ini, --check-untyped-defs)."""

from typing import Any, Callable, Dict, List, Optional, Set


class AdapterState:
    # set up by kp_torch.Adapter.__init__ / import_torch / load_task / build_*
    torch: Any                      # the torch module
    cfg: Dict[str, Any]             # the config read from stdin (docs/internals/eval.md)
    result: Dict[str, Any]          # the result document being built
    flags: List[Dict[str, Any]]     # the result's flags
    checks_off: Set[str]            # --allow ids
    dev: Any                        # torch.device of the GPU
    ref: Any                        # the reference model
    cand: Any                       # ModelNew
    inputs: Any                     # kernelpro.inputs.InputMaker
    saved: Dict[str, Any]           # the stopwatch functions saved before the candidate was imported
    _record: Callable[..., Any]
    _elapsed: Callable[..., float]
    _sync: Callable[..., Any]
    _perf: Callable[[], float]

    # provided by the adapter (kp_torch.Adapter) or a test's stand-in
    def flag(self, check: str, severity: str, message: str) -> None:
        raise NotImplementedError

    def runtime_stop(self, what: str, e: BaseException) -> Exception:
        raise NotImplementedError

    def check_intact(self, when: str) -> None:
        raise NotImplementedError

    def set_seed(self, seed: int) -> None:
        raise NotImplementedError

    # provided by Correctness, used by Timing
    ref_mutates: bool = False

    def private(self, args: List[Any]) -> List[Any]:
        raise NotImplementedError

    def outputs(self, out: Any, who: str) -> List[Any]:
        raise NotImplementedError

    def compare(self, ref_outs: List[Any], outs: List[Any], trial: int, where: str, degenerate: bool = False,
                atols: Optional[List[float]] = None) -> Any:
        raise NotImplementedError
