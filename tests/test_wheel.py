"""The wheel carries everything the app needs at run time.

Built from this checkout, installed into a fresh virtual environment outside it, and used from
a folder outside it: `dbstudio new`, `validate` and `review` of the sample copy, `schemas --check`.
The fresh environment sees this environment's third-party packages through a plain path entry
in a .pth file (no download of PySide6 and the rest on every run); a path entry's own .pth
files are not processed, so the checkout's editable install stays invisible there, and the
tests check that `studio` really comes from the wheel.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = "studio/_bundled/"


@dataclass(frozen=True)
class Installed:
    wheel: Path
    env: Path  # the fresh virtual environment
    python: Path
    site: Path  # its site-packages, where the wheel went
    outside: Path  # a working folder outside the checkout
    variables: dict[str, str]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*args], cwd=self.outside, env=self.variables, capture_output=True, text=True,
                              timeout=300)

    def dbstudio(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run(str(self.env / "bin" / "dbstudio"), *args)


def _isolated_environment(home: Path) -> dict[str, str]:
    variables = {k: v for k, v in os.environ.items()
                 if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH"}}
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Wheel Test\n\temail = wheel-test@example.org\n")
    variables.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(gitconfig), GIT_CONFIG_NOSYSTEM="1",
                     DBSTUDIO_WORKSPACE=str(home / "DeliverBench"))
    return variables


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    assert ROOT not in work.resolve().parents
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--disable-pip-version-check",
         "--wheel-dir", str(work / "dist"), str(ROOT)],
        capture_output=True, text=True, timeout=600,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = (work / "dist").glob("deliverbench_studio-*.whl")

    env = work / "fresh-env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env)
    python = env / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # pip of this environment installs into the fresh one (--python), without its dependencies.
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index", "--quiet",
         "--disable-pip-version-check", str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert install.returncode == 0, install.stderr
    ours = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib")}
    (site / "zz_test_dependencies.pth").write_text("".join(f"{path}\n" for path in sorted(ours)))

    outside = work / "outside"
    home = work / "home"
    outside.mkdir()
    home.mkdir()
    return Installed(wheel, env, python, site, outside, _isolated_environment(home))


def _tracked(folder: str) -> list[str]:
    listed = subprocess.run(["git", "ls-files", "-z", "--", folder], cwd=ROOT, capture_output=True, check=True)
    return [name for name in listed.stdout.decode().split("\0") if name]


def test_the_wheel_holds_every_template_sample_and_schema_file(installed: Installed):
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    for folder in ("resources", "projects", "schemas"):
        tracked = _tracked(folder)
        assert tracked, folder
        assert [name for name in tracked if SHIPPED + name not in names] == []
    assert SHIPPED + "projects/kestrel-refinancing/materials/fleet-valuation-extract.pdf" in names
    assert not any(name.startswith(("resources/", "projects/", "schemas/", "tests/")) for name in names)


def test_studio_and_its_data_come_from_the_fresh_environment(installed: Installed):
    probe = installed.run(str(installed.python), "-c", (
        "import json, studio, studio.bundled as b\n"
        "print(json.dumps({'studio': studio.__file__, 'templates': str(b.templates_dir()),"
        " 'samples': str(b.samples_dir()), 'schemas': str(b.schemas_dir()),"
        " 'checkout': b.source_checkout() and str(b.source_checkout())}))"
    ))
    assert probe.returncode == 0, probe.stderr
    found = json.loads(probe.stdout)
    assert Path(found.pop("studio")).parent == installed.site / "studio"
    assert found.pop("checkout") is None
    for place in found.values():
        assert Path(place).is_relative_to(installed.site / "studio" / "_bundled"), place
        assert Path(place).is_dir(), place


def test_new_and_validate_from_outside_the_checkout(installed: Installed):
    created = installed.dbstudio("new", "fresh-project", "--id", "wheel-check", "--title", "Made from the wheel")
    assert created.returncode == 0, created.stderr
    assert created.stdout.startswith("created fresh-project (")
    assert "templates: blank, " in created.stdout and "finance-transaction" in created.stdout
    project = installed.outside / "fresh-project"
    assert "id: wheel-check" in (project / "project.yaml").read_text(encoding="utf-8")

    checked = installed.dbstudio("validate", "fresh-project", "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["findings"] == []

    unknown = installed.dbstudio("new", "other", "--id", "x", "--title", "X", "--template", "nope")
    assert unknown.returncode == 2
    assert "no project template 'nope' (available: blank, " in unknown.stderr
    assert not (installed.outside / "other").exists()


def test_the_sample_copy_validates_and_reviews(installed: Installed):
    script = "from studio.store.workspace import ensure_workspace_sample; print(ensure_workspace_sample())"
    copied = installed.run(str(installed.python), "-c", script)
    assert copied.returncode == 0, copied.stderr
    sample = Path(copied.stdout.strip())
    assert sample == Path(installed.variables["DBSTUDIO_WORKSPACE"]) / "kestrel-refinancing"
    assert (sample / "materials" / "fleet-valuation-extract.pdf").is_file()

    checked = installed.dbstudio("validate", str(sample), "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout)["findings"] == []
    reviewed = installed.dbstudio("review", str(sample))
    assert reviewed.returncode == 0, reviewed.stdout + reviewed.stderr


def test_schemas_check_compares_with_the_shipped_schemas(installed: Installed):
    clean = installed.dbstudio("schemas", "--check")
    assert clean.returncode == 0, clean.stderr
    assert clean.stderr == ""

    shipped = installed.site / "studio" / "_bundled" / "schemas" / "rubric.schema.json"
    original = shipped.read_bytes()
    try:
        shipped.write_bytes(original.replace(b'"properties"', b'"propertiez"', 1))
        stale = installed.dbstudio("schemas", "--check")
    finally:
        shipped.write_bytes(original)
    assert stale.returncode == 1
    assert f"{shipped}: out of date with the models" in stale.stderr


def test_writing_schemas_needs_a_checkout_or_a_folder(installed: Installed):
    refused = installed.dbstudio("schemas")
    assert refused.returncode == 2
    assert "not a source checkout: pass --out FOLDER" in refused.stderr

    written = installed.dbstudio("schemas", "--out", "my-schemas")
    assert written.returncode == 0, written.stderr
    assert sorted(p.name for p in (installed.outside / "my-schemas").iterdir()) == sorted(
        p.name for p in (installed.site / "studio" / "_bundled" / "schemas").iterdir())
