"""The daemon bridging a board's firmware to the network, and the ``oche`` CLI."""
