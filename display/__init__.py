"""The pygame scoreboard client; talks to the daemon only through MQTT. It
may import ``engine``, ``mqtt_contract``, ``mqtt_client`` (its MQTT clients
and backoff) and ``credentials``; never the daemon, the CLI or ``drivers``."""
