"""The installable build: packaging/dbstudio.spec builds a one-folder app that works on its own.

The app is built once for this module with PyInstaller into a temporary folder (about a minute
and a half on a 2-core machine), then run from a folder outside the checkout with its own home,
git identity and workspace: `--help` and `--version`, the window on Qt's offscreen platform
(which makes the user's copy of the bundled sample, as a first start does), `validate` and
`review` of that copy, and `new` from the bundled template. The desktop file and the icons are
checked without a build.
"""

from __future__ import annotations

import configparser
import fnmatch
import json
import os
import re
import runpy
import signal
import subprocess
import sys
import time
import tomllib
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import pytest
from PySide6.QtCore import QSize
from PySide6.QtGui import QImage

from studio import __version__
from studio.cli.registry import COMMANDS
from studio.gui.widgets.icons import ICON_SIZES, app_icon

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "packaging" / "dbstudio.spec"
ICONS = ROOT / "resources" / "icons"
DESKTOP_FILE = ROOT / "resources" / "dbstudio.desktop"
SAMPLE = "kestrel-refinancing"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class FrozenApp:
    folder: Path  # dist/dbstudio
    outside: Path  # a working folder outside the checkout
    workspace: Path  # DBSTUDIO_WORKSPACE of the runs
    variables: dict[str, str]

    @property
    def executable(self) -> Path:
        return self.folder / "dbstudio"

    @property
    def bundled(self) -> Path:
        return self.folder / "_internal" / "studio" / "_bundled"

    def run(self, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(self.executable), *args], cwd=self.outside, env={**self.variables, **extra},
                              capture_output=True, text=True, timeout=300)


def _isolated_environment(home: Path, workspace: Path) -> dict[str, str]:
    # Nothing of the build environment may help the frozen app: no Python paths, no venv.
    variables = {k: v for k, v in os.environ.items()
                 if k not in {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "VIRTUAL_ENV", "PYTHONSAFEPATH",
                              "QT_PLUGIN_PATH", "QT_QPA_PLATFORM_PLUGIN_PATH", "LD_LIBRARY_PATH"}}
    gitconfig = home / ".gitconfig"
    gitconfig.write_text("[user]\n\tname = Packaging Test\n\temail = packaging-test@example.org\n")
    variables.update(HOME=str(home), GIT_CONFIG_GLOBAL=str(gitconfig), GIT_CONFIG_NOSYSTEM="1",
                     DBSTUDIO_WORKSPACE=str(workspace), QT_QPA_PLATFORM="offscreen")
    return variables


@pytest.fixture(scope="module")
def frozen(tmp_path_factory: pytest.TempPathFactory) -> FrozenApp:
    work = tmp_path_factory.mktemp("frozen")
    assert ROOT not in work.resolve().parents
    built = subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
         "--distpath", str(work / "dist"), "--workpath", str(work / "build"), str(SPEC)],
        cwd=ROOT, capture_output=True, text=True, timeout=1800,
    )
    assert built.returncode == 0, built.stderr[-4000:]
    outside, home = work / "outside", work / "home"
    outside.mkdir()
    home.mkdir()
    workspace = home / "DeliverBench"
    return FrozenApp(work / "dist" / "dbstudio", outside, workspace, _isolated_environment(home, workspace))


def _shipped_files() -> list[tuple[str, str]]:
    """(file in the checkout, place in the package) of every tracked data file the wheel ships."""
    wheel = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["hatch"]["build"]
    wheel = wheel["targets"]["wheel"]
    listed = subprocess.run(["git", "ls-files", "-z", "--", *wheel["sources"]], cwd=ROOT, capture_output=True,
                            check=True).stdout.decode()
    shipped = []
    for name in filter(None, listed.split("\0")):
        parts = name.split("/")
        prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
        if any(fnmatch.fnmatchcase(prefix, pattern) for prefix in prefixes for pattern in wheel["exclude"]):
            continue
        top = parts[0]
        shipped.append((name, "/".join([wheel["sources"][top], *parts[1:]])))
    return shipped


def test_frozen_help_and_version_are_the_installed_command_lines(frozen: FrozenApp):
    helped = frozen.run("--help")
    assert helped.returncode == 0, helped.stderr
    assert helped.stdout.startswith("usage: dbstudio ")
    for command in COMMANDS:
        assert f"\n  {command.name} " in helped.stdout, command.name
    assert helped.stderr == ""

    version = frozen.run("--version")
    assert (version.returncode, version.stdout.strip()) == (0, f"dbstudio {__version__}")

    one = frozen.run("validate", "--help")
    assert one.returncode == 0, one.stderr
    assert one.stdout.startswith("usage: dbstudio validate ")
    assert "check a project folder for schema and reference problems" in one.stdout


def test_the_folder_holds_the_data_and_leaves_out_what_the_app_does_not_use(frozen: FrozenApp):
    shipped = _shipped_files()
    assert any(name.endswith("fleet-valuation-extract.pdf") for name, _ in shipped)
    assert [name for name, place in shipped if not (frozen.folder / "_internal" / place).is_file()] == []
    assert (frozen.bundled / "resources" / "icons" / "dbstudio-256.png").is_file()

    qt = frozen.folder / "_internal" / "PySide6" / "Qt"
    assert sorted(p.name for p in (qt / "plugins" / "platforms").iterdir()) == ["libqoffscreen.so", "libqxcb.so"]
    libraries = {p.name.split(".so")[0] for p in (qt / "lib").iterdir()}
    assert {"libQt6Core", "libQt6Gui", "libQt6Widgets", "libQt6Svg"} <= libraries
    unused = ("WebEngine", "Qml", "Quick", "3D", "Multimedia", "WaylandClient", "Network", "Pdf")
    assert [name for name in libraries if any(part in name for part in unused)] == []
    # Every Qt module the code imports is there (none of them is on the spec's list of unused ones).
    used = {match for source in (ROOT / "studio").rglob("*.py")
            for match in re.findall(r"PySide6\.(Qt\w+)", source.read_text(encoding="utf-8"))}
    assert {"QtCore", "QtGui", "QtWidgets"} <= used
    assert [name for name in sorted(used) if not (qt.parent / f"{name}.abi3.so").is_file()] == []
    everything = {p.name for p in (frozen.folder / "_internal").rglob("*")}
    assert not everything & {"pytest", "PyInstaller", "hypothesis", "onnxruntime", "_tkinter", "tkinter"}


def test_the_frozen_window_starts_offscreen_and_its_sample_copy_validates(frozen: FrozenApp):
    sample = frozen.workspace / SAMPLE
    assert not sample.exists()
    # No command: the window on the user's copy of the bundled sample, made and committed first.
    window = subprocess.Popen([str(frozen.executable)], cwd=frozen.outside, env=frozen.variables,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 180
        while window.poll() is None and time.monotonic() < deadline and not _committed(sample):
            time.sleep(0.2)
        committed = _committed(sample)
        # A moment for the window to open on it: a failure there ends the process (exit 2 or 70).
        settle = time.monotonic() + 3
        while window.poll() is None and time.monotonic() < settle:
            time.sleep(0.2)
        running = window.poll() is None
    finally:
        if window.poll() is None:
            window.send_signal(signal.SIGTERM)
        _, stderr = window.communicate(timeout=60)
    assert committed, stderr
    assert running, f"exit {window.returncode}: {stderr}"
    assert (sample / "materials" / "fleet-valuation-extract.pdf").is_file()

    checked = frozen.run("validate", str(sample), "--format", "json")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert json.loads(checked.stdout) == {"project": str(sample), "findings": []}

    reviewed = frozen.run("review", str(sample))
    assert reviewed.returncode == 0, reviewed.stdout + reviewed.stderr
    assert "0 errors" in reviewed.stdout + reviewed.stderr


def _committed(project: Path) -> bool:
    if not (project / ".git").is_dir():
        return False
    head = subprocess.run(["git", "-C", str(project), "rev-parse", "--verify", "--quiet", "HEAD"],
                          capture_output=True, text=True)
    return head.returncode == 0


def test_frozen_new_uses_the_bundled_template(frozen: FrozenApp):
    created = frozen.run("new", "fresh-project", "--id", "frozen-check", "--title", "Made by the frozen app")
    assert created.returncode == 0, created.stderr
    assert "templates: blank, " in created.stdout and "finance-transaction" in created.stdout
    checked = frozen.run("validate", "fresh-project")
    assert checked.returncode == 0 and checked.stdout.startswith("OK: "), checked.stdout + checked.stderr

    unknown = frozen.run("new", "other", "--id", "x", "--title", "X", "--template", "nope")
    assert unknown.returncode == 2
    assert "no project template 'nope' (available: blank, " in unknown.stderr


def test_desktop_file_launches_the_app_with_its_icon():
    entry = configparser.ConfigParser(interpolation=None, strict=True)
    entry.optionxform = str  # type: ignore[assignment,method-assign]  # keys are case-sensitive
    entry.read_string(DESKTOP_FILE.read_text(encoding="utf-8"))
    assert entry.sections() == ["Desktop Entry"]
    desktop = entry["Desktop Entry"]
    assert desktop["Type"] == "Application"
    assert desktop["Name"] == "DeliverBench Studio"
    assert desktop["Exec"].split() == ["dbstudio", "gui", "%f"]
    assert desktop["TryExec"] == "dbstudio"
    assert desktop["Terminal"] == "false"
    assert desktop["Icon"] == "dbstudio"
    assert (ICONS / f"{desktop['Icon']}.svg").is_file()
    assert desktop["Categories"].endswith(";") and "Office" in desktop["Categories"].split(";")
    # The program the launcher runs is the console script and the frozen executable's name.
    assert 'dbstudio = "studio.cli.main:main"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "name=\"dbstudio\"" in SPEC.read_text(encoding="utf-8")


def test_the_svg_icon_is_a_valid_square_drawing(qapp):
    from PySide6.QtSvg import QSvgRenderer

    root = ElementTree.parse(ICONS / "dbstudio.svg").getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 256 256"
    renderer = QSvgRenderer(str(ICONS / "dbstudio.svg"))
    assert renderer.isValid()
    assert renderer.defaultSize() == QSize(256, 256)


@pytest.mark.parametrize("size", ICON_SIZES)
def test_each_png_is_the_render_of_the_svg_at_its_size(qapp, size: int):
    png = ICONS / f"dbstudio-{size}.png"
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    shipped = QImage(str(png))
    assert (shipped.width(), shipped.height()) == (size, size)
    assert shipped.hasAlphaChannel()

    render = runpy.run_path(str(ROOT / "scripts" / "render-icons.py"))["render"]
    fresh = render(ICONS / "dbstudio.svg", size)
    shipped = shipped.convertToFormat(fresh.format())
    # Another Qt version may antialias an edge a shade differently; an edited SVG differs by far more.
    differences = [abs(a - b) for a, b in zip(bytes(shipped.constBits()), bytes(fresh.constBits()))]
    assert max(differences) <= 24, f"{png} is stale: run scripts/render-icons.py"
    assert sum(differences) / len(differences) < 0.5


def test_app_icon_offers_every_rendered_size(qapp):
    icon = app_icon()
    assert not icon.isNull()
    assert sorted(s.width() for s in icon.availableSizes()) == sorted(ICON_SIZES)
    assert icon.pixmap(QSize(64, 64)).width() == 64
