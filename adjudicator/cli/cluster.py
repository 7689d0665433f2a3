"""`pamir db upgrade` and `pamir nodes`: PostgreSQL mode's commands (docs/cluster.md)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from adjudicator.cli.refusal import Refused
from adjudicator.home import advisory, backend, database, store
from adjudicator.home.nodes import list_nodes
from adjudicator.home.settings import Settings, SettingsError, load_settings
from adjudicator.mail import outbox
from adjudicator.schedule.leader import LEADER_LOCK

NEW_KEY_VARIABLE = "PAMIR_NEW_SECRET_KEY"


def _clustered() -> Settings:
    try:
        settings = load_settings()
    except SettingsError as error:
        raise Refused(str(error)) from None
    if settings.database_url is None:
        raise Refused("no database is configured: set PAMIR_DATABASE_URL (docs/cluster.md)")
    return settings


def cmd_db(args: argparse.Namespace) -> None:
    settings = _clustered()
    if args.db_command == "rekey":
        _rekey(settings)
        return
    if args.db_command == "import-home":
        _import_home(settings, Path(args.home).resolve())
        return
    try:
        applied = database.upgrade(settings)
    except database.DatabaseError as error:
        raise Refused(str(error)) from None
    for step in applied:
        print(f"applied schema version {step.version}: {step.description}")
    print(f"the database's schema is at version {database.SCHEMA_VERSION}")


def _rekey(settings: Settings) -> None:
    """Seal every secret of the database again under PAMIR_NEW_SECRET_KEY (the old key:
    PAMIR_SECRET_KEY), in one transaction; then every node is given the new key."""
    new = os.environ.get(NEW_KEY_VARIABLE)
    if not new:
        raise Refused(f"set {NEW_KEY_VARIABLE} to the new key (docs/cluster.md#the-secret-key)")
    try:
        backend.of(settings).check()
        records = store.of(settings)
        assert isinstance(records, store.DatabaseStore)
        count = records.reseal(new)
    except (database.DatabaseError, store.StoreError) as error:
        raise Refused(str(error)) from None
    print(
        f"{count} records sealed again under the new key: give every node "
        f"PAMIR_SECRET_KEY={NEW_KEY_VARIABLE}'s value and restart it"
    )


def _import_home(settings: Settings, home: Path) -> None:
    """Copy a PAMIR_HOME's records (kept as files on one machine, or on a shared file
    system) into the database, and register its forge-hosted games."""
    from adjudicator.games import hosting  # Git's client, for this command only

    if not home.is_dir():
        raise Refused(f"{home} is not a folder")
    try:
        backend.of(settings).check()
        records = store.of(settings)
        copied, kept = store.import_home(records, home)
        hosting.register_clones(settings.model_copy(update={"home": home}))
        registered = hosting.registered(settings)
    except (database.DatabaseError, store.StoreError, OSError) as error:
        raise Refused(str(error)) from None
    for name in kept:
        print(f"left alone (the database has it already): {name}")
    print(f"{len(copied)} records copied from {home}; {len(registered)} games registered")


def cmd_nodes(args: argparse.Namespace) -> None:
    settings = _clustered()
    try:
        backend.of(settings).check()
        found = list_nodes(settings)
        leader = advisory.leader_of(settings, LEADER_LOCK)
    except database.DatabaseError as error:
        raise Refused(str(error)) from None
    leader_node = leader.split(" ", 2)[-1] if leader else None
    print(f"{'NODE':<32} {'HOST':<20} {'PID':>7}  {'LAST SEEN':<12} SCHEDULER")
    for node in found:
        seen = f"{node.silent_seconds:.0f}s ago" if node.is_alive else "silent"
        role = "leader" if node.name == leader_node else "standing by"
        print(f"{node.name:<32} {node.host:<20} {node.pid:>7}  {seen:<12} {role}")
    if leader_node is None:
        print("scheduler leader: none (no node runs the scheduler)")
    else:
        print(f"scheduler leader: {leader_node}")
    print(f"outbox: {len(outbox.messages_in(settings, outbox.PENDING))} messages pending")
