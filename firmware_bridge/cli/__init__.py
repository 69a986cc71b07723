"""The ``oche`` command: ``main`` parses the command line and hands each
sub-command to its own ``*_command`` module (``run``, ``play``, ``display``,
``replay``/``history``/``export``, ``monitor``, ``calibrate``, ``firmware``,
``udev``, ``cribbage``); ``command_support`` holds what they share.

It may import everything else of Oche's (:mod:`engine`, :mod:`drivers`,
:mod:`firmware_bridge.daemon`, :mod:`mqtt_contract` and, for
``oche display`` and ``oche play`` only, :mod:`display`, loaded lazily so the
daemon's commands never load pygame). Nothing imports it.
"""
