"""Tests of the board firmware (firmware_bridge/mcu/) under CPython and of
``oche firmware install``."""
