"""The README's examples, one function per RPC.

Everything between a ``# region: <name>`` and ``# endregion`` line is copied verbatim into
README.md (tests/test_readme.py checks it) and run by tests/test_e2e.py against a real gateway.
"""

from __future__ import annotations

from onebot_gateway import Client
from onebot_gateway.aio import AsyncClient


def connect() -> Client:
    # region: connect
    import os

    from onebot_gateway import Client

    client = Client(
        os.environ.get("ONEBOT_GATEWAY_ADDR", "http://127.0.0.1:50051"),
        token=os.environ.get("ONEBOT_GATEWAY_TOKEN"),  # sent as `authorization: Bearer <token>`
        # For TLS: an https:// address, plus ca_file="ca.pem" for a private CA.
    )
    # endregion
    return client


def health(client: Client) -> str:
    # region: health
    status = client.health()  # or client.health("onebot.gateway.v1.account.default")
    print("gateway:", status)  # SERVING
    # endregion
    return status


def accounts(client: Client) -> list[str]:
    # region: accounts
    for account in client.accounts():
        print(account.account_id, account.nickname, list(account.groups))
    # endregion
    return [a.account_id for a in client.accounts()]


async def asyncio_client(address: str) -> str:
    # region: asyncio
    from onebot_gateway.aio import AsyncClient

    async with AsyncClient(address) as aclient:
        status = await aclient.health()
        accounts = await aclient.accounts()
        print(status, [a.account_id for a in accounts])
    # endregion
    assert isinstance(aclient, AsyncClient)
    return status
