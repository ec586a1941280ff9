"""Validation of a project folder: schema and reference checks with YAML locations.

Names are loaded on first use, so `studio.validation.findings` (Finding, Severity) can be read
without the models and the loader: the window shows its empty findings dock before they load.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_MODULE_OF = {"Finding": "studio.validation.findings", "Severity": "studio.validation.findings",
              "NotAProjectError": "studio.validation.validate", "validate_project": "studio.validation.validate"}
__all__ = ["Finding", "Severity", "NotAProjectError", "validate_project"]

if TYPE_CHECKING:
    from studio.validation.findings import Finding, Severity
    from studio.validation.validate import NotAProjectError, validate_project


def __getattr__(name: str) -> Any:
    if name not in _MODULE_OF:
        raise AttributeError(f"module 'studio.validation' has no attribute {name!r}")
    return getattr(importlib.import_module(_MODULE_OF[name]), name)
