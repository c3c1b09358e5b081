#!/usr/bin/env python3
"""dbsize.py -- where the bytes of a gpumon history store go.

    dbsize.py DB        prints one JSON object

The file's size as it is (the writer is expected to have closed it, which
checkpoints the WAL into the file and removes it; if a non-empty DB-wal is
left, it is checkpointed here first and "wal_left" says so), its page size
and count, and per table and index from SQLite's dbstat virtual table:
pages, bytes, payload (the records), unused bytes and cells; plus the row
counts of the tables that grow.  Opens the file read-only after the
checkpoint.  Needs an SQLite built with dbstat (Debian's is).
"""

import json
import os
import sqlite3
import sys

GROWING = ("samples", "procs", "rollup_1m", "rollup_1h", "events")


def db_sizes(path):
    wal = path + "-wal"
    out = {"wal_left": os.path.exists(wal) and os.path.getsize(wal) > 0}
    if out["wal_left"]:
        c = sqlite3.connect(path)
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.close()
    out["file_bytes"] = os.path.getsize(path)
    c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        out["page_size"] = c.execute("PRAGMA page_size").fetchone()[0]
        out["page_count"] = c.execute("PRAGMA page_count").fetchone()[0]
        out["freelist_count"] = c.execute("PRAGMA freelist_count").fetchone()[0]
        tables = {}
        for name, pages, size, payload, unused, cells in c.execute(
                "SELECT name, count(*), sum(pgsize), sum(payload), sum(unused), sum(ncell)"
                " FROM dbstat GROUP BY name"):
            tables[name] = {"pages": pages, "bytes": size, "payload": payload,
                            "unused": unused, "cells": cells}
        out["tables"] = tables
        out["rows"] = {t: c.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
                       for t in GROWING}
    finally:
        c.close()
    return out


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: dbsize.py DB")
    if not os.path.isfile(sys.argv[1]):
        sys.exit("dbsize: %s: no such file" % sys.argv[1])
    json.dump(db_sizes(sys.argv[1]), sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
