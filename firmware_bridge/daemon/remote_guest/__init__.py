"""The guest's side of a remote match (docs/remote.md): the game runs at the host.

:class:`RemoteGuest` is the extension; it sees the core only through its
:class:`~firmware_bridge.daemon.extension_context.ExtensionContext` and
hears its events on the bus. It accepts invitations from the hosts
``[remote] allow`` names (and refuses others, saying why), journals and
forwards this board's hits, buttons and ``dart``/``miss``/``next``/``undo``
commands with a sequence number (sent again until the host has taken them),
keeps takeout local, and mirrors the host's state and events onto this
board's own topics. No I/O in a constructor.

Nothing is applied here: the host's state is the truth. An action is
journaled (``guest_forwarded``) before it is sent, and sent again after every
(re)connect, on every ``join`` (a resync) and whenever the host's state still
shows it untaken ``[remote] resend_s`` after it went out; the host takes each
``seq`` once. Takeout is reckoned locally (three darts forwarded in this
board's visit, or the host's state saying so) so it works while the link is
down too.

Its parts, one a module: ``extension`` (:class:`RemoteGuest`: the bus hooks,
the link's messages, the timers), ``joined_match`` (the match as data, and
what is kept of its end), ``membership`` (invitations accepted or refused,
the match resumed, left, ended), ``action_outbox`` (actions journaled, sent,
sent again until taken), ``host_mirror`` (the host's state, events and
availability as this board's) and ``local_takeout`` (this board's own
takeout). None imports the remote host's.
"""

from firmware_bridge.daemon.remote_guest.extension import TAKEOUT, RemoteGuest
from firmware_bridge.daemon.remote_guest.joined_match import final_result

__all__ = ["TAKEOUT", "RemoteGuest", "final_result"]
