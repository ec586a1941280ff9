"""Every error a user can cause derives from StudioError, so callers tell them from bugs."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

from studio.errors import StudioError

STUDIO = Path(__file__).resolve().parents[1] / "studio"


def _core_modules() -> list[str]:
    return sorted(
        ".".join(p.relative_to(STUDIO.parent).with_suffix("").parts).removesuffix(".__init__")
        for p in STUDIO.rglob("*.py") if "gui" not in p.relative_to(STUDIO).parts
    )


def test_public_exceptions_derive_from_studio_error():
    seen, offenders = [], []
    for name in _core_modules():
        module = importlib.import_module(name)
        for cls_name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != name or not issubclass(cls, Exception) or cls_name.startswith("_"):
                continue
            seen.append(cls_name)
            if not issubclass(cls, StudioError):
                offenders.append(f"{name}.{cls_name}")
    assert offenders == []
    assert {"YamlSyntaxError", "HistoryError", "VerdictTableError", "RatingTableError"} <= set(seen)


def test_the_model_package_lists_what_it_exports():
    import studio.model as model

    assert sorted(model.__all__) == sorted(model._MODULE_OF)
    for name in model.__all__:
        assert getattr(model, name) is not None
