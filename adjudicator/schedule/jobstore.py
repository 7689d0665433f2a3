"""The scheduler's job store in PostgreSQL mode (docs/cluster.md#the-scheduler): APScheduler's
SQLAlchemy job store, in the table `pamir_scheduler_jobs`, so that the next elected
scheduler starts from the jobs of the last.
"""

from __future__ import annotations

from typing import Any

from adjudicator.home.settings import Settings

JOBS_TABLE = "pamir_scheduler_jobs"  # made by the schema's migrations (home/database.py)


def job_store(settings: Settings) -> Any:
    """APScheduler's SQLAlchemy job store on the settings' database (psycopg 3)."""
    from apscheduler.jobstores.sqlalchemy import (  # type: ignore[import-untyped, unused-ignore]
        SQLAlchemyJobStore,
    )
    from sqlalchemy import create_engine

    from adjudicator.home import database

    engine = create_engine(
        database.sqlalchemy_url(settings),
        pool_size=2,
        pool_pre_ping=True,  # a connection the server dropped is replaced, not used
        connect_args={
            "application_name": f"pamir jobs {database.node_name(settings)}"[:63],
            "options": database.SESSION_OPTIONS,
        },
    )
    return SQLAlchemyJobStore(engine=engine, tablename=JOBS_TABLE)
