"""The service's one way to build an MQTT client (aiomqtt) for its broker:
the ingest's persistent session and a command's short one (``forget``
republishing the snapshots) connect with the same address, account and TLS."""

from __future__ import annotations

from typing import Any

import aiomqtt

from mqtt_contract import BrokerAddress

__all__ = ["broker_client"]


def broker_client(
    address: BrokerAddress,
    *,
    username: str | None,
    password: str | None,
    ca_file: str | None,
    identifier: str,
    **options: Any,
) -> aiomqtt.Client:
    """A client of the broker at ``address`` as ``identifier``. ``username``
    (and ``password``), when set, replace any account in the URL; ``ca_file``
    verifies a TLS broker (``None``: the system's CAs). ``options`` go to
    :class:`aiomqtt.Client` as they are (a will, a timeout, a clean session)."""
    if username is None:
        username, password = address.username, address.password
    return aiomqtt.Client(
        address.host,
        address.port,
        username=username,
        password=password,
        identifier=identifier,
        transport=address.transport,
        tls_params=aiomqtt.TLSParameters(ca_certs=ca_file) if address.tls else None,
        websocket_path=address.ws_path,
        **options,
    )
