"""The daemon for one board: board events in, a journaled game out over MQTT.

A small core and its extensions, on a typed bus (zigbee2mqtt's shape).

The core: ``board_daemon`` (the :class:`Daemon` that builds it all and runs
it; the state), ``board_game`` (the session, start, apply and journal,
resume, abandon, the result, the takeout timer), ``board_input`` (the
board's events), ``game_commands`` (``cmd`` and the game buttons),
``publisher`` (the outgoing queue), ``core_events`` (the bus and its typed
events, never published) and ``extension_context`` (all an extension sees of
the core, and the ``Extension`` base class).

The extensions, one a file, each built with its ``ExtensionContext`` alone
and doing no I/O in its constructor: ``extensions.coin_op`` (credits, prices,
books), ``extensions.operator_commands`` (``operator/cmd``; it is given the
coin-op's), ``extensions.ha_discovery`` (Home Assistant discovery),
``extensions.bot_players`` (computer players), ``extensions.takeout_watch``
(a takeout sensor); and, a package each as they are too big for one file,
``remote_host`` (a remote match hosted here: its ``extension``,
``hosted_match``, ``invitations``, ``action_intake``, ``turn_rules``,
``state_block``, ``channel``) and ``remote_guest`` (a match another board
hosts: its ``extension``, ``joined_match``, ``membership``,
``action_outbox``, ``host_mirror``, ``local_takeout``). An extension may
import ``extension_context``, ``core_events`` and the modules beside the
core listed below, never ``board_daemon`` nor another extension (but the
operator commands the coin-op).

Beside them: ``game_session`` (visits, takeout, NEXT/MISS/UNDO), ``journal``
(the SQLite journal: one connection, a store each for the games, the results
outbox, remote matches, the credit ledger with the books' running totals, and
the operator's settings), ``journal_health``, ``journal_salvage``,
``result_delivery``, ``clock_sync``, ``off_loop`` and ``solve_process`` (slow
solves in the daemon's one worker process), ``bots`` (a computer player's darts),
``credits`` and ``books`` (a coin-op's rules, pure), ``mqtt_link`` (the
broker connection; its parts ``mqtt_inbox`` and ``mqtt_outgoing``),
``board_claim`` (one daemon per board id on a broker),
``home_assistant`` (discovery messages, pure), ``config`` (``oche.toml``, a
package: ``sections`` the dataclasses, ``parsing`` and its checks, ``loading``
the search path; its names imported from ``config`` itself),
``embedded_broker`` (amqtt, for a board with no broker) and ``log_setup``.

It may import :mod:`engine`, :mod:`drivers`, :mod:`mqtt_contract`,
:mod:`mqtt_client` (the MQTT client and its backoff) and :mod:`credentials`;
never :mod:`firmware_bridge.cli` or :mod:`display`.
"""
