#!/usr/bin/env python3
"""A run kept as text, so a real run (an H200's) can ship with the project and be reported anywhere.

  tools/recorded-run.py dump RUN_DIR OUT_DIR     RUN_DIR/run.db -> OUT_DIR/run.sql (+ baseline.json)
  tools/recorded-run.py restore IN_DIR RUN_DIR   OUT_DIR's files -> RUN_DIR/run.db (+ baseline.json)

The dump is SQLite's own (iterdump) plus the two PRAGMAs kernelpro checks (application_id, the
schema's user_version), so the restored database is the run as it was: every version, verdict,
profile, finding, prompt and reply. Standard library only.
"""
import os
import shutil
import sqlite3
import sys


def dump(run_dir, out_dir):
    db = os.path.join(run_dir, "run.db")
    if not os.path.isfile(db):
        sys.exit("recorded-run: no run database at %s" % db)
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    app = con.execute("PRAGMA application_id").fetchone()[0]
    version = con.execute("PRAGMA user_version").fetchone()[0]
    os.makedirs(out_dir, exist_ok=True)
    tmp = os.path.join(out_dir, "run.sql.tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("PRAGMA application_id = %d;\nPRAGMA user_version = %d;\n" % (app, version))
        for line in con.iterdump():
            f.write(line + "\n")
    con.close()
    os.replace(tmp, os.path.join(out_dir, "run.sql"))
    if os.path.isfile(os.path.join(run_dir, "baseline.json")):
        shutil.copyfile(os.path.join(run_dir, "baseline.json"), os.path.join(out_dir, "baseline.json"))


def restore(in_dir, run_dir):
    sql = os.path.join(in_dir, "run.sql")
    if not os.path.isfile(sql):
        sys.exit("recorded-run: no run.sql in %s" % in_dir)
    os.makedirs(run_dir, exist_ok=True)
    db = os.path.join(run_dir, "run.db")
    tmp = db + ".tmp"
    if os.path.exists(tmp):
        os.remove(tmp)
    con = sqlite3.connect(tmp)
    with open(sql, encoding="utf-8") as f:
        con.executescript(f.read())
    con.commit()
    con.close()
    os.replace(tmp, db)
    if os.path.isfile(os.path.join(in_dir, "baseline.json")):
        shutil.copyfile(os.path.join(in_dir, "baseline.json"), os.path.join(run_dir, "baseline.json"))


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("dump", "restore"):
        sys.exit(__doc__.strip())
    (dump if sys.argv[1] == "dump" else restore)(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
