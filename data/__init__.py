"""``mjbot_data``: the assets shipped with mjbot (this ``data/`` folder, installed under that name).

Read them with :mod:`render.assets` (``importlib.resources``), never with a path relative to the source tree.
"""
