"""Oche's results service: it stores every finished game published on
``{base}/+/result`` once, re-scored from its log, and serves rankings,
statistics and records as an API, pages for a bar's TV and retained MQTT
snapshots; it keeps each venue's roster (players with stable ids, their cards
as keyed hashes) and sends every board its venue's, and serves the page a
phone joins a board's lobby from (relaying ``join`` to the board). It may import
``engine``, ``mqtt_contract``, ``mqtt_client`` (its MQTT clients and
backoffs) and ``credentials.secret_hash`` (the admin password's hash) only,
never the daemon, the CLI, ``drivers`` or ``display`` (docs/architecture.md)."""
