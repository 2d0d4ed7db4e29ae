"""Argument validation for concrete inputs, skipped under JAX tracing.

fisherrdp's numerical functions are pure JAX and work under :func:`jax.jit`, :func:`jax.vmap`
and :func:`jax.grad`. Inside those transformations the arguments are abstract tracers whose
values are unknown, so no value check is possible there: an out-of-range argument then gives
NaN or a meaningless number, as documented by each function. When a function is called eagerly
with concrete values (Python numbers, NumPy arrays, concrete JAX arrays), the helpers here
raise :class:`ValueError` with a message that names the argument and its valid range, e.g.::

    ValueError: argument 'alpha' must be > 1, got 0.5

NaN passes the range checks by default (it propagates through the computation, as in NumPy
and SciPy); pass ``allow_nan=False`` to reject it.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

__all__ = [
    "ANY",
    "DIMENSION",
    "NONNEG",
    "ORDER",
    "POSITIVE",
    "PROBABILITY",
    "Domain",
    "check_arguments",
    "check_concrete",
    "check_concrete_le",
    "is_tracer",
    "require_concrete",
    "validated",
]


def is_tracer(value: Any) -> bool:
    """Whether ``value`` is an abstract JAX tracer (inside ``jit``, ``vmap``, ``grad``, ...)."""
    return isinstance(value, jax.core.Tracer)


def require_concrete(why: str, **arguments: Any) -> None:
    """Raise a ValueError naming the first argument that is (or holds) a JAX tracer.

    For functions that compute on the host (NumPy, SciPy, searches whose steps depend on
    values): under ``jit`` or a derivative they cannot run, and say so by name instead of
    JAX's own conversion error.

    Args:
        why: Why the arguments must be concrete (ends the message).
        arguments: The arguments, by name.

    Raises:
        ValueError: ``argument 'NAME' must be concrete (WHY)``.

    Examples:
        >>> import jax
        >>> def host(x):
        ...     require_concrete("computed with NumPy", x=x)
        ...     return float(x) ** 2
        >>> try:
        ...     jax.grad(host)(3.0)
        ... except ValueError as error:
        ...     print(error)
        argument 'x' must be concrete (computed with NumPy)
    """
    for name, value in arguments.items():
        if any(is_tracer(leaf) for leaf in jax.tree_util.tree_leaves(value)):
            raise ValueError(f"argument {name!r} must be concrete ({why})")


def _format_number(x: Any) -> str:
    if isinstance(x, (float, np.floating)):
        return repr(float(x))
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return str(int(x))
    return repr(x)


def _format_bound(x: Any) -> str:
    """A range end: integral values print without a trailing ``.0`` (``> 1``, not ``> 1.0``)."""
    integral = isinstance(x, (float, np.floating)) and np.isfinite(x) and float(x).is_integer()
    if integral and abs(x) < 1e15:
        return str(int(x))
    return _format_number(x)


def _describe_range(
    lower: float | None,
    upper: float | None,
    lower_inclusive: bool,
    upper_inclusive: bool,
    integer: bool,
) -> str:
    kind = "an integer " if integer else ""
    if lower is not None and upper is not None:
        left = "[" if lower_inclusive else "("
        right = "]" if upper_inclusive else ")"
        return f"{kind}in {left}{_format_bound(lower)}, {_format_bound(upper)}{right}"
    if lower is not None:
        op = ">=" if lower_inclusive else ">"
        return f"{kind}{op} {_format_bound(lower)}"
    if upper is not None:
        op = "<=" if upper_inclusive else "<"
        return f"{kind}{op} {_format_bound(upper)}"
    return "an integer" if integer else "a real number"


def _as_numeric_array(name: str, value: Any) -> np.ndarray:
    try:
        array = np.asarray(value)
    except Exception as exc:  # pragma: no cover - exotic inputs
        raise TypeError(f"argument {name!r} must be numeric, got {value!r}") from exc
    if not (np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_):
        raise TypeError(f"argument {name!r} must be numeric, got {value!r}")
    if np.iscomplexobj(array):
        raise TypeError(f"argument {name!r} must be real, got {value!r}")
    return array


def _first_offender(array: np.ndarray, bad: np.ndarray) -> str:
    if array.ndim == 0:
        return _format_number(array.item())
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return f"{_format_number(array[index].item())} at index {index}"


def check_concrete(
    name: str,
    value: Any,
    *,
    lower: float | None = None,
    upper: float | None = None,
    lower_inclusive: bool = True,
    upper_inclusive: bool = True,
    integer: bool = False,
    allow_nan: bool = True,
) -> None:
    """Check that every element of a concrete ``value`` lies in a range; no-op for tracers.

    Args:
        name: The argument's name, used in the error message.
        value: A scalar or array-like. JAX tracers are accepted and not checked.
        lower: Lower end of the valid range, or ``None`` for no lower end.
        upper: Upper end of the valid range, or ``None`` for no upper end.
        lower_inclusive: Whether ``lower`` itself is valid.
        upper_inclusive: Whether ``upper`` itself is valid.
        integer: Also require integer values (an integer dtype or integral floats).
        allow_nan: Whether NaN elements pass (they propagate through the numerics).

    Raises:
        ValueError: If ``value`` is concrete and an element is out of range, not integral
            (when ``integer``), or NaN (when not ``allow_nan``). The message reads e.g.
            ``argument 'alpha' must be > 1, got 0.5`` and, for arrays, gives the index of the
            first offending element.
        TypeError: If ``value`` is concrete and not real-numeric.

    Examples:
        >>> check_concrete("alpha", 2.0, lower=1, lower_inclusive=False)
        >>> check_concrete("alpha", 0.5, lower=1, lower_inclusive=False)
        Traceback (most recent call last):
            ...
        ValueError: argument 'alpha' must be > 1, got 0.5
        >>> check_concrete("k", [1, 2.5], lower=1, integer=True)
        Traceback (most recent call last):
            ...
        ValueError: argument 'k' must be an integer >= 1, got 2.5 at index (1,)
    """
    if is_tracer(value):
        return
    array = _as_numeric_array(name, value)
    if array.size == 0:
        return
    expected = _describe_range(lower, upper, lower_inclusive, upper_inclusive, integer)
    with np.errstate(invalid="ignore"):
        floating = np.issubdtype(array.dtype, np.floating)
        nan = np.isnan(array) if floating else np.zeros(array.shape, bool)
        if not allow_nan and nan.any():
            raise ValueError(
                f"argument {name!r} must be {expected} (not NaN), got {_first_offender(array, nan)}"
            )
        bad = np.zeros(array.shape, bool)
        if lower is not None:
            bad |= (array < lower) if lower_inclusive else (array <= lower)
        if upper is not None:
            bad |= (array > upper) if upper_inclusive else (array >= upper)
        if integer:
            finite = np.isfinite(array) if floating else True
            bad |= ~nan & ~(finite & (np.floor(array) == array))
        bad &= ~nan
    if bad.any():
        raise ValueError(f"argument {name!r} must be {expected}, got {_first_offender(array, bad)}")


def check_concrete_le(small_name: str, small: Any, large_name: str, large: Any) -> None:
    """Check ``small <= large`` elementwise (with broadcasting) when both are concrete.

    Args:
        small_name: Name of the argument that must be the smaller one.
        small: Its value (scalar or array-like; tracers are not checked).
        large_name: Name of the argument that must be the larger one.
        large: Its value.

    Raises:
        ValueError: If both are concrete and some element has ``small > large``, e.g.
            ``argument 'w_norm' must be <= 'C', got w_norm=3.0, C=2.0``.

    Examples:
        >>> check_concrete_le("w_norm", 1.0, "C", 2.0)
        >>> check_concrete_le("w_norm", [1.0, 3.0], "C", 2.0)
        Traceback (most recent call last):
            ...
        ValueError: argument 'w_norm' must be <= 'C', got w_norm=3.0, C=2.0 at index (1,)
    """
    if is_tracer(small) or is_tracer(large):
        return
    a = _as_numeric_array(small_name, small)
    b = _as_numeric_array(large_name, large)
    a, b = np.broadcast_arrays(a, b)
    with np.errstate(invalid="ignore"):
        bad = a > b
    if bad.any():
        if a.ndim == 0:
            where = ""
            va, vb = a.item(), b.item()
        else:
            index = tuple(int(i) for i in np.argwhere(bad)[0])
            where = f" at index {index}"
            va, vb = a[index].item(), b[index].item()
        raise ValueError(
            f"argument {small_name!r} must be <= {large_name!r}, got "
            f"{small_name}={_format_number(va)}, {large_name}={_format_number(vb)}{where}"
        )


@dataclasses.dataclass(frozen=True)
class Domain:
    """The valid range of one argument: what :func:`check_concrete` checks, as a value.

    A function declares its arguments' domains once, with :func:`validated`; the checks of its
    concrete arguments and the scan registry's ranges (:mod:`fisherrdp._src.scan.registry`)
    both read them from there.
    """

    lower: float | None = None
    upper: float | None = None
    lower_inclusive: bool = True
    upper_inclusive: bool = True
    integer: bool = False

    def check(self, name: str, value: Any, *, allow_nan: bool = True) -> None:
        """:func:`check_concrete` of ``value`` against this range (no-op for tracers)."""
        check_concrete(name, value, lower=self.lower, upper=self.upper,
                       lower_inclusive=self.lower_inclusive,
                       upper_inclusive=self.upper_inclusive, integer=self.integer,
                       allow_nan=allow_nan)

    def describe(self) -> str:
        """The range as :func:`check_concrete`'s messages state it: ``'> 1'``, ``'in (0, 1)'``,
        ``'an integer >= 1'``, ``'a real number'``."""
        return _describe_range(self.lower, self.upper, self.lower_inclusive,
                               self.upper_inclusive, self.integer)

ANY = Domain()
NONNEG = Domain(lower=0.0)
POSITIVE = Domain(lower=0.0, lower_inclusive=False)
ORDER = Domain(lower=1.0, lower_inclusive=False)
DIMENSION = Domain(lower=1.0)
PROBABILITY = Domain(lower=0.0, upper=1.0, lower_inclusive=False, upper_inclusive=False)


def check_arguments(fn: Callable, *args, **kwargs) -> None:
    """Check arguments for ``fn`` against its declared ``domains`` (see :func:`validated`),
    without calling it: what a caller that evaluates ``fn``'s kernel some other way (in chunks,
    in another program) checks first. No-op for tracers."""
    arguments = inspect.signature(fn).bind(*args, **kwargs).arguments
    for name, domain in fn.domains.items():
        if name in arguments:
            domain.check(name, arguments[name])


def validated(**domains: Domain) -> Callable[[Callable], Callable]:
    """Declare the domains of a function's arguments: checked when concrete, and recorded.

    The decorated function checks each named argument it is called with against its
    :class:`Domain` (a :class:`ValueError` naming the argument and its range; nothing under a
    JAX transformation, where the arguments are tracers) and exposes the domains, read-only, as
    its ``domains`` attribute: the one list of its ranges, which the scan registry reads.

    Examples:
        >>> @validated(alpha=ORDER, d=DIMENSION)
        ... def f(alpha, d):
        ...     return alpha * d
        >>> f(2.0, 3.0), f.domains["alpha"].describe()
        (6.0, '> 1')
        >>> f(0.5, 3.0)
        Traceback (most recent call last):
            ...
        ValueError: argument 'alpha' must be > 1, got 0.5
    """

    def decorate(fn: Callable) -> Callable:
        signature = inspect.signature(fn)
        unknown = set(domains) - set(signature.parameters)
        if unknown:
            raise TypeError(f"{fn.__qualname__} has no argument {sorted(unknown)}")

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            check_arguments(checked, *args, **kwargs)
            return fn(*args, **kwargs)

        checked.__signature__ = signature  # inspect.signature(checked): no unwrapping per call
        checked.domains = types.MappingProxyType(dict(domains))
        return checked

    return decorate
