"""Board I/O: the wire protocol, serial, USB, simulated and keyboard sources.
It may import ``engine`` and ``mqtt_client.backoff`` (the one ``Backoff``, for
the sources' reconnects; pure, it loads no MQTT library), nothing else of Oche's."""
