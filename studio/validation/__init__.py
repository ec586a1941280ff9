"""Validation of a project folder: schema and reference checks with YAML locations."""

from studio.validation.findings import Finding, Severity
from studio.validation.validate import NotAProjectError, validate_project

__all__ = ["Finding", "Severity", "NotAProjectError", "validate_project"]
