"""The Qt desktop app: the only package that imports PySide6."""

import sys

if "PySide6.QtCore" in sys.modules:  # otherwise run_app drops it, once it has imported Qt
    from studio.gui.base.feature_hook import drop_feature_import_hook

    drop_feature_import_hook()
