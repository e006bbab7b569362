"""A table process of tests/test_progressive_link.py that is killed with SIGKILL at a chosen
moment of a linked pool's hit: ``python -m tests.progressive_link_child MODE STORE_URL LINK_URL``.

- ``claimed``: the round's meter hit is claimed on the floor's store, and the process dies
  before the claim is resolved (inside the keeper's wait for hits at other tables);
- ``paying``: the hit is resolved and held; the pit's payment is chained in its transaction,
  and the process dies before that transaction commits.
"""

from __future__ import annotations

import os
import signal
import sys

from sqlmodel import Session

from table_controller.storage import make_engine
from table_controller.table import progressive_link
from table_controller.table.service import TableService
from tests.test_progressive_link import TOP_HANDS, WAGERS_T1, linked_settings, to_settle


def _die(*_args: object) -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main(mode: str, store_url: str, link_url: str) -> None:
    service = TableService(linked_settings("t1", link_url), make_engine(store_url))
    service.resume()
    service.open_round(WAGERS_T1, actor="dealer-ann")
    to_settle(service, TOP_HANDS)
    if mode == "claimed":
        assert isinstance(service.pool, progressive_link.LinkedPoolKeeper)
        service.pool._sleep = _die
        service.settle()
    elif mode == "paying":
        service.settle()
        original = progressive_link.write_locked_pool

        def write_then_die(session: Session, **kwargs: object) -> list[int]:
            seqs = original(session, **kwargs)  # type: ignore[arg-type]
            session.flush()
            _die()
            return seqs

        progressive_link.write_locked_pool = write_then_die  # type: ignore[assignment]
        service.pay_hit(1, actor="pit-bob", verified_by="surv-carol")
    raise SystemExit(f"mode {mode}: the process should have died")


if __name__ == "__main__":
    main(*sys.argv[1:4])
