"""The registry of named quantities that :func:`fisherrdp.scan.scan` evaluates.

Every elementwise public function of fisherrdp is registered under its public name
(``log_bessel_i``, ``ncx2_logpdf``, ``renyi_ncx2``, ``theorem52_bound``, ...), and the
quantities a scan is usually about have short names as well: ``fisher``, ``renyi``,
``hockey_stick``, ``privacy_profile``, ``epsilon_for_delta``, ``release_k1``, ``path_bound``,
``theorem_5_2``. Each entry records the parameter names (the names of the grid's axes), the
names of the outputs, the valid range of each parameter (the function's own, declared with
:func:`~fisherrdp._src.core.validation.validated`; checked on the axes before anything is
computed) and a default chunk size measured for the 2-core CPU (see ``benchmarks/bench_scan.py``).

:func:`register` adds a quantity of one's own; :func:`resolve` also accepts any elementwise JAX
function, whose positional parameter names become the axis names.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

from fisherrdp import bounds, divergences, fisher, special
from fisherrdp._src.core.validation import ANY, Domain
from fisherrdp.stats import ncx2

__all__ = ["Domain", "Quantity", "quantities", "register", "resolve"]


@dataclasses.dataclass(frozen=True)
class Quantity:
    """A named elementwise quantity.

    Attributes:
        name: Registered name.
        fn: Elementwise JAX function of the parameters (positional, in order); returns an array
            or a tuple of arrays, one per output.
        params: Parameter names, in the order ``fn`` takes them.
        outputs: Output names (data variables of the result).
        domains: Valid range of each parameter.
        chunk: Default points per compiled call, per device, on a CPU (×16 on accelerators).
        description: One line.
        source: The public function it evaluates.
    """

    name: str
    fn: Callable
    params: tuple[str, ...]
    outputs: tuple[str, ...]
    domains: Mapping[str, Domain]
    chunk: int
    description: str
    source: str

    def check(self, values: Mapping[str, Any]) -> None:
        """Raise ``ValueError`` naming the first axis with a value out of its domain."""
        for name in self.params:
            if name in values:
                try:
                    self.domains.get(name, ANY).check(name, values[name], allow_nan=False)
                except ValueError as exc:
                    raise ValueError(f"axis {name!r}: {exc}") from None

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": {p: self.domains.get(p, ANY).describe() for p in self.params},
            "outputs": list(self.outputs),
            "description": self.description,
            "source": self.source,
            "chunk": self.chunk,
        }


_REGISTRY: dict[str, Quantity] = {}


def register(
    name: str,
    fn: Callable,
    *,
    params: tuple[str, ...] | None = None,
    outputs: tuple[str, ...] | None = None,
    domains: Mapping[str, Domain] | None = None,
    chunk: int = 1024,
    description: str = "",
    source: str | None = None,
) -> Quantity:
    """Register ``fn`` under ``name`` for :func:`fisherrdp.scan.scan` and ``fisherrdp scan``.

    Args:
        name: The name to scan it by.
        fn: An elementwise JAX function of its parameters (positional).
        params: Parameter names (default: the positional parameters of ``fn``).
        outputs: Output names (default: ``(name,)``).
        domains: Valid range of each parameter (default: any real number, NaN excluded).
        chunk: Default points per compiled call and device, on a CPU.
        description: One line for ``fisherrdp scan --list``.
        source: The public function it evaluates (default: ``fn``'s qualified name).

    Returns:
        The registered :class:`Quantity`.
    """
    quantity = Quantity(
        name=name,
        fn=fn,
        params=tuple(params) if params is not None else _positional_names(fn),
        outputs=tuple(outputs) if outputs is not None else (name,),
        domains=dict(domains or {}),
        chunk=int(chunk),
        description=description,
        source=source or f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', fn)}",
    )
    _REGISTRY[name] = quantity
    return quantity


def _positional_names(fn: Callable) -> tuple[str, ...]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    names = tuple(
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind in kinds and p.default is inspect.Parameter.empty
    )
    if not names:
        raise ValueError(f"{fn!r} has no positional parameters to scan over")
    return names


def quantities() -> dict[str, dict[str, Any]]:
    """The registered quantities: name → parameters (with their ranges), outputs, description.

    Examples:
        >>> q = quantities()["renyi"]
        >>> list(q["params"]), q["outputs"]
        (['alpha', 'd', 'a', 'b'], ['renyi'])
    """
    return {name: q.to_dict() for name, q in sorted(_REGISTRY.items())}


def resolve(quantity: str | Callable | Quantity) -> Quantity:
    """The :class:`Quantity` for a registered name, a :class:`Quantity`, or a JAX function.

    Raises:
        ValueError: An unknown name (the message lists the registered ones).
    """
    if isinstance(quantity, Quantity):
        return quantity
    if isinstance(quantity, str):
        if quantity not in _REGISTRY:
            raise ValueError(
                f"unknown quantity {quantity!r}; registered: {', '.join(sorted(_REGISTRY))}"
            )
        return _REGISTRY[quantity]
    if callable(quantity):
        return _from_function(quantity)
    raise TypeError(f"quantity must be a name or a function, got {quantity!r}")


@functools.lru_cache(maxsize=64)
def _from_function(fn: Callable) -> Quantity:
    name = getattr(fn, "__name__", "value")
    return Quantity(
        name=name,
        fn=fn,
        params=_positional_names(fn),
        outputs=(),  # named from the output count at scan time
        domains={},
        chunk=1024,
        description="user function",
        source=f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', name)}",
    )


# ----------------------------------------------------------------------------------------------
# The elementwise public functions (module-level wrappers: compiled programs are cached by them).


def _domains_of(public: Callable) -> Callable[[Callable], Callable]:
    """A wrapper of ``public`` takes its domains (the ranges it validates)."""

    def mark(wrapper: Callable) -> Callable:
        wrapper.domains = public.domains
        return wrapper

    return mark


@_domains_of(fisher.ncx2_amplitude_fisher)
def _fisher_with_error(d, theta):
    return fisher.ncx2_amplitude_fisher(d, theta, return_error=True)


@_domains_of(bounds.path_bound_ncx2)
def _path_bound_with_error(alpha, d, a, b):
    return bounds.path_bound_ncx2(alpha, d, a, b, return_error=True)


@_domains_of(bounds.theorem52_bound)
def _theorem52_printed(alpha, d, C, delta):
    return bounds.theorem52_bound(alpha, d, C, delta, variant="printed")


@_domains_of(bounds.theorem53_fisher_bound)
def _theorem53_printed(path_length_sq, rho, m):
    return bounds.theorem53_fisher_bound(path_length_sq, rho, m, variant="printed")


@_domains_of(bounds.theorem54_bound)
def _theorem54_printed(alpha, d, k, C, delta):
    return bounds.theorem54_bound(alpha, d, k, C, delta, variant="printed")


# (name, function, outputs or None, chunk, description, aliases); each parameter's range is the
# function's own (its ``domains``, declared with ``validated``).
_TABLE: list[tuple] = [
    ("log_bessel_i", special.log_bessel_i, None, 8192, "log I_v(x)", ()),
    ("log_bessel_ive", special.log_bessel_ive, None, 8192, "log(e^-x I_v(x))", ()),
    ("bessel_ratio", special.bessel_ratio, None, 8192, "I_{v+1}(x)/I_v(x)", ()),
    ("log_bessel_k", special.log_bessel_k, None, 8192, "log K_v(x)", ()),
    ("log_bessel_kve", special.log_bessel_kve, None, 8192, "log(e^x K_v(x))", ()),
    ("log_hyp0f1", special.log_hyp0f1, None, 8192,
     "log 0F1(; b; x)", ()),
    ("ncx2_logpdf", ncx2.logpdf, None, 8192, "log density of chi2_df(nc)", ()),
    ("ncx2_pdf", ncx2.pdf, None, 8192, "density of chi2_df(nc)", ()),
    ("ncx2_logcdf", ncx2.logcdf, None, 2048, "log cdf of chi2_df(nc)", ()),
    ("ncx2_logsf", ncx2.logsf, None, 2048, "log survival function of chi2_df(nc)", ()),
    ("ncx2_cdf", ncx2.cdf, None, 2048, "cdf of chi2_df(nc)", ()),
    ("ncx2_sf", ncx2.sf, None, 2048, "survival function of chi2_df(nc)", ()),
    ("ncx2_mean", ncx2.mean, None, 8192, "mean of chi2", ()),
    ("ncx2_var", ncx2.var, None, 8192, "variance of chi2", ()),
    ("ncx2_amplitude_fisher", _fisher_with_error, ("fisher", "fisher_error"), 2048,
     "Fisher information of chi2_d(theta^2) in theta, and its quadrature error estimate",
     ("fisher",)),
    ("renyi_ncx2", divergences.renyi_ncx2, None, 512,
     "exact D_alpha(chi2_d(a^2) || chi2_d(b^2))", ("renyi",)),
    ("hockey_stick_ncx2", divergences.hockey_stick_ncx2, None, 512,
     "exact hockey-stick divergence E_{e^eps}(chi2_d(a^2) || chi2_d(b^2))", ("hockey_stick",)),
    ("privacy_profile_ncx2", divergences.privacy_profile_ncx2, None,
     512, "max of both orders' hockey-stick divergences (a pair's privacy profile)",
     ("privacy_profile",)),
    ("epsilon_for_delta_ncx2", divergences.epsilon_for_delta_ncx2, None, 128, "smallest eps whose privacy profile is <= delta",
     ("epsilon_for_delta",)),
    ("renyi_release_k1", divergences.renyi_release_k1, None, 16,
     "exact Renyi divergence of a finite synthetic release, k = 1", ("release_k1",)),
    ("hockey_stick_release_k1", divergences.hockey_stick_release_k1, None, 16, "exact hockey-stick divergence of a finite release, k = 1",
     ()),
    ("gaussian_renyi", bounds.gaussian_renyi, None, 8192,
     "alpha delta^2 / 2", ()),
    ("path_bound_ncx2", _path_bound_with_error, ("path_bound", "path_bound_error"), 128, "Prop 3.2 path bound with the exact Fisher information",
     ("path_bound",)),
    ("theorem52_bound", bounds.theorem52_bound, None, 8192, "Theorem 5.2 (re-derived)",
     ("theorem_5_2",)),
    ("theorem52_bound_printed", _theorem52_printed, None, 8192,
     "Theorem 5.2 as printed", ("theorem_5_2_printed",)),
    ("theorem53_fisher_bound", bounds.theorem53_fisher_bound, None, 8192,
     "Theorem 5.3 Fisher bound (re-derived)", ("theorem_5_3",)),
    ("theorem53_fisher_bound_printed", _theorem53_printed, None, 8192,
     "Theorem 5.3 Fisher bound as printed", ()),
    ("theorem54_bound", bounds.theorem54_bound, None, 8192,
     "Theorem 5.4 (re-derived)", ("theorem_5_4",)),
    ("theorem54_bound_printed", _theorem54_printed, None, 8192,
     "Theorem 5.4 as printed", ()),
    ("theorem51_envelope", bounds.theorem51_envelope, ("lower", "upper"), 8192, "Theorem 5.1 envelope", ()),
    ("local_expansion_prop31", bounds.local_expansion_prop31, None, 8192, "alpha I delta^2 / 2 (Prop 3.1)",
     ()),
    ("postprocessing_envelope", bounds.postprocessing_envelope, None, 8192, "post-processing envelope", ()),
] + [
    (name, getattr(bounds, name), None, 8192, f"{name.replace('_', ' ')} (d, theta)",
     ())
    for name in bounds.__all__
    if name.startswith("fisher_")  # the closed-form Fisher bounds, all of (d, theta)
]



def _public_path(name: str) -> str:
    """Where the function registered as ``name`` is public."""
    if name.endswith("_printed"):
        return _public_path(name[: -len("_printed")]) + '(variant="printed")'
    if name.startswith("ncx2_") and name[5:] in ncx2.__all__:
        return f"fisherrdp.stats.ncx2.{name[5:]}"
    for module in (special, fisher, divergences, bounds):
        if name in module.__all__:
            return f"{module.__name__}.{name}"
    raise ValueError(f"{name} is not a public function")  # pragma: no cover


for _name, _fn, _outputs, _chunk, _description, _aliases in _TABLE:
    _source = _public_path(_name)
    for _key in (_name, *_aliases):
        register(
            _key,
            _fn,
            params=_positional_names(_fn),
            outputs=_outputs or (_key,),
            domains=_fn.domains,
            chunk=_chunk,
            description=_description + (f" (alias of {_name})" if _key != _name else ""),
            source=_source,
        )
