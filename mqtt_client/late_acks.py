"""A subscribe given up (cancelled at shutdown, or timed out on a loaded
machine) may still be acknowledged by the broker. aiomqtt then logs that SUBACK
or UNSUBACK as an ERROR with a traceback ("Unexpected message ID"), though
nothing is wrong: :func:`quiet_late_acks` makes it one DEBUG line."""

from __future__ import annotations

import logging

__all__ = ["LateAckFilter", "quiet_late_acks"]

log = logging.getLogger(__name__)

_LATE_ACK = 'Unexpected message ID "%d" in on_'


class LateAckFilter(logging.Filter):
    """Drops aiomqtt's "Unexpected message ID" line for a SUBACK or UNSUBACK
    (logging it at DEBUG instead); every other record passes."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str) and record.msg.startswith(_LATE_ACK):
            log.debug("the broker acknowledged a request given up: %s", record.getMessage())
            return False
        return True


def quiet_late_acks(logger: logging.Logger) -> logging.Logger:
    """``logger`` (a client's), with a :class:`LateAckFilter` once."""
    if not any(isinstance(f, LateAckFilter) for f in logger.filters):
        logger.addFilter(LateAckFilter())
    return logger
