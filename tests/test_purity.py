"""The engine and the parsers are pure (docs/architecture.md, "Layers"; issue 2): they import
only the standard library, numpy, defusedxml (parsers) and each other. Checked two ways: the
import-linter contract in pyproject.toml, and this scan of every import statement, which also
covers imports the linter cannot see (third-party packages it is not told about)."""

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PURE_PACKAGES = ["grading/engine", "grading/ingest"]
ALLOWED_THIRD_PARTY = {"numpy", "defusedxml"}
ALLOWED_OWN = ("grading.engine", "grading.ingest")


def imported_modules(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    return found


def impure_imports(source: str) -> list[tuple[int, str]]:
    bad = []
    for lineno, module in imported_modules(source):
        top = module.split(".")[0]
        if module.startswith(ALLOWED_OWN) or top in ALLOWED_THIRD_PARTY:
            continue
        if top in sys.stdlib_module_names and top != "grading":
            continue
        bad.append((lineno, module))
    return bad


def test_the_checker_catches_a_django_import():
    assert impure_imports("import os\nfrom django.db import models\n") == [(2, "django.db")]
    assert impure_imports("from grading.models import Session") == [(1, "grading.models")]
    assert impure_imports("import celery") == [(1, "celery")]
    assert impure_imports("from grading.engine import types\nimport numpy as np") == []


def test_engine_and_ingest_import_nothing_impure():
    offenders = []
    for package in PURE_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for lineno, module in impure_imports(path.read_text()):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno} imports {module}")
    assert offenders == []


def test_importing_the_engine_loads_no_django():
    code = (
        "import sys, pkgutil, importlib, grading.engine, grading.ingest\n"
        "for pkg in (grading.engine, grading.ingest):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        importlib.import_module(m.name)\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'django', 'celery', 'rest_framework', 'clubs', 'members'})\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_import_linter_contract_holds():
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "KEPT" in result.stdout
