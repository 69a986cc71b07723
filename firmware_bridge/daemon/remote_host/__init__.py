"""The host's side of a remote match (docs/remote.md): the game runs here.

:class:`RemoteHost` is the extension; it sees the core only through its
:class:`~firmware_bridge.daemon.extension_context.ExtensionContext` and
hears its events on the bus. It invites the guest boards (``join`` on
``{base}/{host}/remote/{guest}``), follows their availability, takes their
forwarded actions exactly once (``remote_taken``, journaled with what the
action did), enforces turns (``not-your-turn``), pauses the match (phase
``waiting-remote``) while a guest is away, and adds the ``remote`` block and
each player's ``board`` to the state. No I/O in a constructor; everything
that changes the game runs on the daemon's loop under the core's lock.

Its parts, one a module: ``extension`` (:class:`RemoteHost`: the bus hooks,
the match's lifecycle, the link's messages, the timers), ``hosted_match``
(the match and its guests as data, the journal's ``remote`` record),
``invitations`` (the join handshake, the guests' availability and presence,
the offline timeout), ``action_intake`` (a guest's actions in ``seq`` order,
exactly once), ``turn_rules`` (whose turn, who may take a dart back,
``waiting-remote``), ``state_block`` (the match in ``state`` and ``result``)
and ``channel`` (sending to a guest, the rate-limited reports of what is
dropped). None imports the remote guest's.
"""

from firmware_bridge.daemon.remote_host.channel import REPORT_INTERVAL_S
from firmware_bridge.daemon.remote_host.extension import RemoteHost

__all__ = ["REPORT_INTERVAL_S", "RemoteHost"]
