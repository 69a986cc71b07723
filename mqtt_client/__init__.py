"""Oche's MQTT client, the one every package uses: the daemon's link, the
leaderboard's ingest and snapshots, the display's feed and operator link, and
the CLI through them.

- ``mqtt_client.backoff``: :class:`Backoff` (start, cap, jitter; pure), also
  the board drivers' for serial, USB and Bluetooth LE reconnects;
- ``mqtt_client.client``: :func:`~mqtt_client.client.new_client` (a
  :class:`mqtt_contract.BrokerAddress`, an account, TLS from
  :func:`~mqtt_client.client.load_tls`) and its
  :class:`~mqtt_client.client.Client` (fire-and-forget hand-over, manual
  PUBACK after a commit), with the two helpers every receive loop needs.

May import ``mqtt_contract``, aiomqtt and paho-mqtt; nothing else of Oche's.
This ``__init__`` imports only the backoff, so a driver that imports it loads
no MQTT library: import the client's names from ``mqtt_client.client``.
"""

from __future__ import annotations

from mqtt_client.backoff import Backoff

__all__ = ["Backoff"]
