"""The daemon for one board: board events in, a journaled game out over MQTT.

What lives here: ``board_daemon`` (the :class:`Daemon` that ties it together),
``game_session`` (visits, takeout, NEXT/MISS/UNDO), ``journal`` (the SQLite
journal and results outbox), ``mqtt_link`` (the broker connection),
``board_claim`` (one daemon per board id on a broker), ``home_assistant``
(discovery), ``config`` (``oche.toml``), ``embedded_broker``
(amqtt, for a board with no broker) and ``log_setup``.

It may import :mod:`engine`, :mod:`drivers`, :mod:`mqtt_contract` and
:mod:`mqtt_client` (the MQTT client and its backoff); never :mod:`firmware_bridge.cli` or
:mod:`display`.
"""
