"""PyInstaller's own QtGui hook, less the Qt plugins a widgets app on X11 never loads.

It replaces the stock hook (a spec's hookspath wins), so the plugins left out here are never
analysed: their libraries (GTK, Wayland, EGL devices) stay out of the build as well.
"""

from PyInstaller.utils.hooks.qt import add_qt6_dependencies

# Plugin folders (or single plugins) of Qt that the app does not use: other windowing systems
# and devices, the GTK 3 theme (needs GTK at run time) and the accessibility bridge of macOS.
UNUSED_PLUGINS = (
    "/platforms/",  # all but the two kept below
    "/egldeviceintegrations/",
    "/generic/",
    "/wayland-decoration-client/",
    "/wayland-graphics-integration-client/",
    "/wayland-shell-integration/",
    "/platformthemes/libqgtk3",
    "/accessiblebridge/",
)
KEPT_PLUGINS = ("/platforms/libqxcb.so", "/platforms/libqoffscreen.so")


def _kept(source: str) -> bool:
    path = source.replace("\\", "/")
    if any(path.endswith(kept) for kept in KEPT_PLUGINS):
        return True
    return not any(part in path for part in UNUSED_PLUGINS)


hiddenimports, binaries, datas = add_qt6_dependencies(__file__)
binaries = [(source, destination) for source, destination in binaries if _kept(source)]
