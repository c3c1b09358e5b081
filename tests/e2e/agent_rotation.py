#!/usr/bin/env python3
"""Daily files: rotation at local midnight, retention and gzip.

  midnight:  TZ is a POSIX zone whose offset puts local midnight ~1.5 s after
             the agent starts; at 100 ms for ~4 s the rows split into two day
             files by their own timestamps, each with its header once, with
             no sample lost or repeated across the boundary (every 100 ms),
             and the store has the same samples.
  retention: files of earlier days are in the CSV directory when the agent
             starts with --retention 14d --compress-after 1d: those whose day
             ended more than 14 days ago are deleted (.csv and .csv.gz, all
             three kinds), finished days older than 1 day are gzipped into
             valid archives with the same bytes and modification time,
             yesterday and today stay plain, a stale .gz.tmp is removed, and
             other tasks' files and unrelated files are not touched.
  copytruncate: the file emptied under the running agent (logrotate's
             copytruncate) starts again with its header, then whole rows.
  once:      `record --once` (cron) applies the same settings in its one
             short run: with --retention 10d --compress-after 3d the files
             of days that ended more than 10 days ago are deleted, finished
             days older than 3 days gzipped (valid archives, same bytes),
             younger ones and today's kept, a stale .gz.tmp removed, each
             logged once; and the store's raw rows older than
             --store-retention-raw are deleted in that run too.

Environment from meson: GPUMON, SIM_LIB, SOURCE_ROOT.
"""
import datetime
import gzip
import os
import sqlite3
import subprocess
import time

from agentlib import (DEADLINE, Agent, EVENTS_HEADER, GPU_HEADER, Scratch, check, check_eq,
                      check_grid, check_no_duplicates, check_whole_samples, day_files, db_query,
                      db_samples, local_time, main, read_csv, read_text, run, sim_env)


def posix_tz(offset_s):
    """A POSIX TZ string for UTC+offset_s (POSIX writes east of UTC as '-')."""
    sign = "-" if offset_s >= 0 else "+"
    o = abs(offset_s)
    return f"MDN{sign}{o // 3600:02d}:{o // 60 % 60:02d}:{o % 60:02d}"


def test_midnight():
    lead = 1.5  # seconds from now to local midnight
    now = time.time()
    off = round(-(now + lead)) % 86400  # local = UTC + off is 00:00:00 at now + lead
    if off > 43200:
        off -= 86400
    r = (now + lead + off) % 86400  # seconds past local midnight at now + lead, ~0
    midnight_utc = now + lead - (r - 86400 if r > 43200 else r)
    tz = posix_tz(off)
    day1 = datetime.datetime.utcfromtimestamp(midnight_utc - 1 + off).strftime("%Y%m%d")
    day2 = datetime.datetime.utcfromtimestamp(midnight_utc + 1 + off).strftime("%Y%m%d")
    env = sim_env(pinned=100, tz=tz)
    with Scratch("mid") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "100ms"])
        try:
            a.start()
            while time.time() < midnight_utc + 2.5:
                check(a.alive(), "the agent runs", a.log())
                time.sleep(0.1)
            st = a.status()
            counted = (st["skipped"], st["last_sample_unix_ns"] // 1000000)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        csv_dir = os.path.join(data, "csv")
        files = day_files(csv_dir)
        names = [os.path.basename(p) for p in files]
        check_eq(names, [f"default_{day1}.csv", f"default_{day2}.csv"],
                 f"day files (TZ={tz}, midnight at {midnight_utc:.3f})", os.listdir(csv_dir))
        r1, r2 = read_csv(files[0]), read_csv(files[1])  # a header once in each
        check(r1 and r2, f"rows on both sides of midnight ({len(r1)}, {len(r2)})")
        # each row is in the file of its own local day (the time's date part)
        d1 = f"{day1[:4]}-{day1[4:6]}-{day1[6:]}"
        d2 = f"{day2[:4]}-{day2[4:6]}-{day2[6:]}"
        check(all(r[0].startswith(d1 + "T23:59:") for r in r1), f"{names[0]} holds {d1} rows",
              r1[-1])
        check(all(r[0].startswith(d2 + "T00:00:") for r in r2), f"{names[1]} holds {d2} rows",
              r2[0])
        rows = r1 + r2
        check_no_duplicates(rows, "CSV")
        # times from the local part and the zone's exact offset (ISO 8601
        # offsets have no seconds)
        times = []
        for i in range(0, len(rows), 8):
            local = datetime.datetime.fromisoformat(rows[i][0][:23])
            times.append(round((local - datetime.datetime(1970, 1, 1)).total_seconds() * 1000)
                         - off * 1000)
        check_whole_samples(r1, 8, names[0])
        check_whole_samples(r2, 8, names[1])
        check_grid(times, 100, "a sample every 100 ms, across midnight too", counted=counted)
        n = len(times)
        # none added: check_grid above (one sample per grid point); how many
        # came between --status and the stop is the machine's business
        check(st["samples"] <= n, f"{n} samples, --status said "
              f"{st['samples']} shortly before the stop")
        check_eq(len(rows), 8 * n, "GPU rows")
        srows = db_samples(os.path.join(data, "gpumon.db"))
        check_eq(sorted({r[0] for r in srows}), times, "store sample times")
        check_eq(len(srows), 8 * n, "store rows")
        ev = day_files(csv_dir, kind="events")
        check_eq([os.path.basename(p) for p in ev],
                 [f"default_events_{day1}.csv", f"default_events_{day2}.csv"], "events files")
        # (alert events, here GPU 5's temperature, go by the same rule; left out
        # so that the lifecycle events show which file holds which day)
        check_eq([e[7] for e in read_csv(ev[0], EVENTS_HEADER) if e[3] != "alert"],
                 ["agent started"], f"events of {day1}")
        check_eq([e[7] for e in read_csv(ev[1], EVENTS_HEADER) if e[3] != "alert"],
                 ["agent stopped"], f"events of {day2}")
        print(f"  TZ={tz}: {len(r1) // 8} samples on {day1}, {len(r2) // 8} on {day2}")


def test_copytruncate():
    env = sim_env(pinned=100)
    with Scratch("trunc") as d:
        data = os.path.join(d, "data")
        a = Agent(data, env, ["--interval", "200ms"])
        try:
            a.start()
            path = day_files(os.path.join(data, "csv"))[0]
            a.wait_samples(3)
            with open(path, "r+") as f:  # what logrotate's copytruncate does
                f.truncate(0)
            t_cut = time.time() * 1000
            n = a.status()["samples"]
            a.wait_samples(n + 4)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        rows = read_csv(path)  # the header again, once, first
        times = check_whole_samples(rows, 8, "CSV")
        check(len(times) >= 4, "rows after the truncation", len(times))
        check(times[0] > t_cut - 400, "only rows written after the truncation", times[0], t_cut)


def make_csv(path, header, nrows, mtime):
    with open(path, "w") as f:
        f.write(header + "\n")
        for i in range(nrows):
            f.write(f"2000-01-01T00:00:{i % 60:02d}.000+00:00,h,t,{i},GPU-x,n,1,2,3,4,5.00,6.00,"
                    f"7,8,9,none,ok\n")
    os.utime(path, (mtime, mtime))


def test_retention():
    env = sim_env(pinned=100)
    today = local_time(time.time()).date()

    def day(n):
        return (today - datetime.timedelta(days=n)).strftime("%Y%m%d")

    with Scratch("ret") as d:
        data = os.path.join(d, "data")
        csv_dir = os.path.join(data, "csv")
        os.makedirs(csv_dir)
        mtime = time.time() - 5 * 86400
        gone = [f"default_{day(20)}.csv", f"default_events_{day(20)}.csv",
                f"default_procs_{day(20)}.csv", f"default_{day(30)}.csv.gz",
                f"default_{day(15)}.csv"]
        zipped = [f"default_{day(14)}.csv", f"default_{day(3)}.csv", f"default_{day(3)}-2.csv",
                  f"default_events_{day(3)}.csv", f"default_procs_{day(2)}.csv"]
        kept = [f"default_{day(1)}.csv", f"default_events_{day(1)}.csv",
                f"default_{day(5)}.csv.gz", f"other_{day(20)}.csv", f"other_{day(3)}.csv",
                f"default-x_{day(3)}.csv", f"default_{day(3)}.txt", "notes.txt"]
        stale = [f"default_{day(4)}.csv.gz.tmp"]
        content = {}
        for i, name in enumerate(gone + zipped + kept + stale):
            p = os.path.join(csv_dir, name)
            if name.endswith(".gz"):
                with gzip.open(p, "wb") as f:
                    f.write((GPU_HEADER + "\n").encode())
                os.utime(p, (mtime, mtime))
            else:
                make_csv(p, EVENTS_HEADER if "_events_" in name else GPU_HEADER, 3 + i, mtime)
            content[name] = open(p, "rb").read()
        today_name = f"default_{today.strftime('%Y%m%d')}.csv"
        make_csv(os.path.join(csv_dir, today_name), GPU_HEADER, 2, mtime)
        today_before = read_text(os.path.join(csv_dir, today_name))

        want = set(kept) | {n + ".gz" for n in zipped} | {today_name,
                                                          f"default_events_{day(0)}.csv"}
        a = Agent(data, env, ["--interval", "200ms", "--retention", "14d", "--compress-after",
                              "1d"])
        try:
            a.start()
            deadline = time.time() + DEADLINE  # the first pass: about a second after the start
            while set(os.listdir(csv_dir)) != want and time.time() < deadline:
                check(a.alive(), "the agent runs", a.log())
                time.sleep(0.1)
            rc, _ = a.stop()
        finally:
            a.cleanup()
        check_eq(rc, 0, "exit status", a.log())
        have = set(os.listdir(csv_dir))
        check_eq(sorted(have - want), [], "files that should be gone")
        check_eq(sorted(want - have), [], "files that should be there")
        for name in zipped:
            p = os.path.join(csv_dir, name + ".gz")
            t = subprocess.run(["gzip", "-t", p], capture_output=True, text=True)
            check_eq(t.returncode, 0, f"gzip -t {name}.gz", t.stderr)
            with gzip.open(p, "rb") as f:
                check(f.read() == content[name], f"{name}.gz holds the file's exact bytes")
            check_eq(int(os.stat(p).st_mtime), int(mtime), f"{name}.gz keeps the day's mtime")
        for name in kept:
            with open(os.path.join(csv_dir, name), "rb") as f:
                check(f.read() == content[name], f"{name} is untouched")
        after = read_text(os.path.join(csv_dir, today_name))
        check(after.startswith(today_before) and len(after) > len(today_before),
              "today's file: kept, and the agent appended to it")
        read_csv(os.path.join(csv_dir, today_name))
        lines = a.log_lines()
        for name in gone:
            check_eq(sum(f"csv: deleted {csv_dir}/{name} (older than the retention)" in x
                         for x in lines), 1, f"log lines for deleting {name}", a.log())
        for name in zipped:
            check_eq(sum(f"csv: compressed {csv_dir}/{name} (" in x for x in lines), 1,
                     f"log lines for compressing {name}", a.log())
        check_eq(sum(f"removed {csv_dir}/{stale[0]} left by an interrupted compression" in x
                     for x in lines), 1, "log lines for the stale .tmp", a.log())
        print(f"  deleted {len(gone)}, gzipped {len(zipped)}, kept {len(kept) + 1}")


def test_once():
    env = sim_env(pinned=100)
    today = local_time(time.time()).date()

    def day(n):
        return (today - datetime.timedelta(days=n)).strftime("%Y%m%d")

    with Scratch("once") as d:
        data = os.path.join(d, "data")
        csv_dir = os.path.join(data, "csv")
        # --log-level info: record --once is silent on success by default
        # (cron), and this test reads the lines that say what was deleted
        args = ["record", "--once", "--no-config", "--data-dir", data, "--retention", "10d",
                "--compress-after", "3d", "--store-retention-raw", "2d", "--log-level", "info"]
        # a first run makes the store and today's files; rows of 5 days ago
        # are then put into the store, earlier days' files into the directory
        rc, _, err = run(args, env)
        check_eq(rc, 0, "record --once exit status (first run)", err)
        db = os.path.join(data, "gpumon.db")
        old_ms = int((time.time() - 5 * 86400) * 1000)
        con = sqlite3.connect(db)
        with con:
            con.execute("INSERT INTO samples (ts, gpu, task, status) SELECT ?, gpu, task, status "
                        "FROM samples", (old_ms,))
        con.close()
        check_eq(len(db_query(db, "SELECT 1 FROM samples WHERE ts = ?", (old_ms,))), 8,
                 "old rows put into the store")
        mtime = time.time() - 5 * 86400
        gone = [f"default_{day(20)}.csv", f"default_procs_{day(11)}.csv",
                f"default_{day(12)}.csv.gz"]
        zipped = [f"default_{day(9)}.csv", f"default_events_{day(5)}.csv",
                  f"default_{day(4)}-2.csv"]
        kept = [f"default_{day(2)}.csv", f"default_events_{day(1)}.csv", f"other_{day(20)}.csv"]
        stale = [f"default_{day(6)}.csv.gz.tmp"]
        content = {}
        for i, name in enumerate(gone + zipped + kept + stale):
            p = os.path.join(csv_dir, name)
            if name.endswith(".gz"):
                with gzip.open(p, "wb") as f:
                    f.write((GPU_HEADER + "\n").encode())
                os.utime(p, (mtime, mtime))
            else:
                make_csv(p, EVENTS_HEADER if "_events_" in name else GPU_HEADER, 3 + i, mtime)
            content[name] = open(p, "rb").read()
        rc, _, err = run(args, env)
        check_eq(rc, 0, "record --once exit status", err)
        today_name = f"default_{today.strftime('%Y%m%d')}.csv"
        want = set(kept) | {n + ".gz" for n in zipped} | {today_name,
                                                          f"default_events_{day(0)}.csv"}
        have = set(os.listdir(csv_dir))
        check_eq(sorted(have - want), [], "files that should be gone after record --once", err)
        check_eq(sorted(want - have), [], "files that should be there after record --once", err)
        for name in zipped:
            p = os.path.join(csv_dir, name + ".gz")
            t = subprocess.run(["gzip", "-t", p], capture_output=True, text=True)
            check_eq(t.returncode, 0, f"gzip -t {name}.gz", t.stderr)
            with gzip.open(p, "rb") as f:
                check(f.read() == content[name], f"{name}.gz holds the file's exact bytes")
        for name in kept:
            with open(os.path.join(csv_dir, name), "rb") as f:
                check(f.read() == content[name], f"{name} is untouched")
        read_csv(os.path.join(csv_dir, today_name))
        lines = err.splitlines()
        for name in gone:
            check_eq(sum(f"csv: deleted {csv_dir}/{name} (older than the retention)" in x
                         for x in lines), 1, f"log lines for deleting {name}", err)
        for name in zipped:
            check_eq(sum(f"csv: compressed {csv_dir}/{name} (" in x for x in lines), 1,
                     f"log lines for compressing {name}", err)
        check_eq(sum(f"removed {csv_dir}/{stale[0]} left by an interrupted compression" in x
                     for x in lines), 1, "log lines for the stale .tmp", err)
        check_eq(db_query(db, "SELECT count(*) FROM samples WHERE ts = ?", (old_ms,))[0][0], 0,
                 "store rows older than --store-retention-raw after record --once")
        check_eq(db_query(db, "SELECT count(DISTINCT ts) FROM samples")[0][0], 2,
                 "the two runs' samples stay in the store")
        print(f"  record --once: deleted {len(gone)}, gzipped {len(zipped)}, kept {len(kept)}")


if __name__ == "__main__":
    main([test_midnight, test_retention, test_copytruncate, test_once])
