"""The daemon's extensions, one a file: each sees the core only through its
:class:`~firmware_bridge.daemon.extension_context.ExtensionContext` and the
bus (:mod:`firmware_bridge.daemon.core_events`). See the package
:mod:`firmware_bridge.daemon` for what each may import."""
