"""What the compiled modules' Cython declarations mean without Cython: nothing.

A module that declares C types for a hot function (``@cython.locals(...)``, pure-Python mode)
imports ``cython``; Cython is optional at run time (``shared/accel.py``), so without it the
module imports this instead and the declarations are no-ops: the ``.py`` runs as written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

compiled = False
Py_ssize_t = int
bint = bool
ulonglong = int
p_uchar = object  # (a C pointer type: only named in declarations)


def locals(**_types: Any) -> Callable[[Any], Any]:  # Cython's name
    return lambda f: f


def cclass(cls: type) -> type:  # an extension type compiled; a plain class from source
    return cls


def declare(t: Any = None, value: Any = None, **_kwds: Any) -> Any:  # a typed attribute/local
    return value


def cfunc(f: Callable[..., Any]) -> Callable[..., Any]:  # a C function when compiled
    return f


ccall = cfunc  # a cpdef function when compiled: a C call inside its module
