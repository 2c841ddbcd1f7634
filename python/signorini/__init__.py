"""signorini: frictional contact simulation and proximal inverse dynamics, from numpy.

The dynamics are free functions in Pinocchio's shape (``rnea(model, data, q, v, a)``); every
array argument is float64, C-contiguous, of the documented shape and finite, or the call
raises ``TypeError``/``ValueError`` naming the argument. What the engine refuses raises
``signorini.Error``.
"""

from ._signorini import *  # noqa: F401,F403
from ._signorini import Error, InternalError, Model, Data  # noqa: F401

__all__ = [name for name in dir() if not name.startswith("_")]
