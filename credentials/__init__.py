"""How Oche keeps secrets: never in clear. :mod:`credentials.secret_hash` holds
the scrypt hashes of the operator PIN and the leaderboard's admin password,
:mod:`credentials.card_hash` the keyed hashes of players' cards.
Pure (no I/O) and importing nothing of Oche's, so the daemon's config, the
display, the leaderboard and the CLI all check them the same way."""
