"""The bridge from a dartboard's firmware to the network, in three parts:

- :mod:`firmware_bridge.daemon`: the daemon for one board (sessions, visits, the
  journal, the MQTT link, Home Assistant discovery, the config, the embedded broker);
- :mod:`firmware_bridge.cli`: the ``oche`` command, one module per sub-command;
- ``firmware_bridge/mcu/``: the MicroPython firmware that runs on the board's
  microcontroller (copied there by ``oche firmware install``, never imported here).

Beside them, :mod:`mqtt_contract` is the I/O-free MQTT contract
(broker address, topics, payloads, commands) that the daemon, the config and the
display all read. This package's ``__init__`` imports nothing, so the display
can import the contract without loading the daemon.
"""
